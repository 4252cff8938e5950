import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getSufficiency } from '../../src/store/evidence/accounting.js';
import { FreshnessChecker } from '../../src/resolve/freshness.js';
import { replaySufficiency } from '../../src/resolve/sufficiency.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { IL_PARSE_OPTIONS, citing, harness, makeRepo, need, options, scriptedWorker, type Repo } from './fixture.js';

let repo: Repo;
beforeEach(() => {
  repo = makeRepo();
});
afterEach(() => repo.cleanup());

const PARSE = { kind: 'symbol' as const, name: 'parseOptions' };

describe('single flight', () => {
  it('shares one worker run between two concurrent identical resolves on two connections', async () => {
    const a = harness(repo);
    const b = harness(repo);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const started = new Promise<void>((r) => (entered = r));
    const slow = scriptedWorker(repo, async (input, observe) => {
      entered();
      await gate;
      return citing(IL_PARSE_OPTIONS)(input, observe);
    });
    const first = a.engine([slow]).resolve(need(repo, 'locate.implementation', PARSE), options());
    await started;
    const second = b.engine([slow]).resolve(need(repo, 'locate.implementation', PARSE), options());
    release();
    const [r1, r2] = await Promise.all([first, second]);
    expect(slow.calls).toHaveLength(1);
    expect(r1.workerSpawned).toBe(true);
    expect(r2.workerSpawned).toBe(false);
    expect(r2.resolution.kind).toBe('exact_hit');
    expect(a.db.prepare('SELECT COUNT(*) AS n FROM evidence_flights').get()).toEqual({ n: 0 });
  });
});

describe('single flight across processes', () => {
  const dist = resolve('dist/src/resolve/engine.js');
  // The in-process shortcut cannot help here: the leader is another process,
  // so only the SQLite lease coordinates, and its takeover when the holder dies.
  it.skipIf(!existsSync(dist))('waits on a lease held by another process and takes over when that process is killed', async () => {
    const dbFile = join(repo.dataDir, 'needle.sqlite3');
    const n = need(repo, 'locate.implementation', PARSE);
    const script = join(repo.root, '..', 'lead-forever.mjs');
    writeFileSync(
      script,
      `import { createEngine } from ${JSON.stringify(dist)};
import { openDb } from ${JSON.stringify(resolve('dist/src/store/db.js'))};
import { BUILTIN_LOCAL_PROFILE } from ${JSON.stringify(resolve('dist/src/core/profile.js'))};
const need = JSON.parse(process.argv[2]);
const worker = { name: 'stuck', countsAgainstLimit: false, async run() {
  process.stdout.write('leading\\n');
  return new Promise(() => {});
} };
const engine = createEngine({ db: openDb(${JSON.stringify(dbFile)}), repoRoot: ${JSON.stringify(repo.root)}, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE });
await engine.resolve(need, { cacheOnly: false, modelWorkersLeft: 3, signal: new AbortController().signal });
`,
    );
    const h = harness(repo, dbFile);
    const child = spawn(process.execPath, [script, JSON.stringify(n)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((ok, fail) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('leading') && ok());
      child.on('exit', (code) => fail(new Error(`child exited early (${code}): ${stderr}`)));
    });
    expect(h.db.prepare('SELECT owner_pid FROM evidence_flights').all()).toEqual([{ owner_pid: child.pid }]);

    let killedAt = Infinity;
    const calledAt: number[] = [];
    const mine = scriptedWorker(repo, (input, observe) => {
      calledAt.push(Date.now());
      return citing(IL_PARSE_OPTIONS)(input, observe);
    });
    const waiting = h.engine([mine]).resolve(n, options());
    // The follower polls the lease; it cannot lead while the holder lives.
    const exited = new Promise((r) => child.on('exit', r));
    await new Promise<void>((r) => setImmediate(r));
    expect(calledAt).toEqual([]);
    killedAt = Date.now();
    child.kill('SIGKILL');
    await exited;
    const r = await waiting;
    expect(mine.calls).toHaveLength(1);
    expect(calledAt[0]!).toBeGreaterThanOrEqual(killedAt);
    expect(r.resolution.kind).toBe('miss');
    expect(r.workerSpawned).toBe(true);
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM evidence_flights').get()).toEqual({ n: 0 });
  }, 60_000);
});

describe('sufficiency certificates', () => {
  it('replay without any model, and stop replaying once a dependency changes', async () => {
    const h = harness(repo);
    const engine = h.engine([scriptedWorker(repo, citing(IL_PARSE_OPTIONS))]);
    await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    const hit = await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    const id = (hit.resolution as { certificate_id: string }).certificate_id;
    const row = getSufficiency(h.db, id)!;
    const ctx = () => ({ db: h.db, freshness: new FreshnessChecker(repo.root), snapshotDigest: () => captureSnapshot(repo.root).sourceDigest });
    expect(replaySufficiency(ctx(), row)).toEqual({ valid: true, reasons: [] });
    repo.write('src/deploy.ts', repo.read('src/deploy.ts') + ' ');
    const replay = replaySufficiency(ctx(), row);
    expect(replay.valid).toBe(false);
    expect(replay.reasons.join()).toContain('src/deploy.ts changed since certification');
  });
});

describe('crash safety', () => {
  const dist = resolve('dist/src/resolve/engine.js');
  it.skipIf(!existsSync(dist))('a process killed inside the certification transaction leaves nothing servable', async () => {
    const fifo = join(repo.root, '..', 'hook.fifo');
    execFileSync('mkfifo', [fifo]);
    const dbFile = join(repo.dataDir, 'needle.sqlite3');
    const n = need(repo, 'locate.implementation', PARSE);
    const script = join(repo.root, '..', 'certify.mjs');
    writeFileSync(
      script,
      `import { createEngine } from ${JSON.stringify(dist)};
import { openDb } from ${JSON.stringify(resolve('dist/src/store/db.js'))};
import { BUILTIN_LOCAL_PROFILE } from ${JSON.stringify(resolve('dist/src/core/profile.js'))};
const need = JSON.parse(process.argv[2]);
const proposal = JSON.parse(process.argv[3]);
const worker = { name: 'child', countsAgainstLimit: false, async run() {
  return { outcome: { kind: 'proposed' }, proposals: [proposal], observed: [], observationComplete: true, usage: null };
} };
const engine = createEngine({ db: openDb(${JSON.stringify(dbFile)}), repoRoot: ${JSON.stringify(repo.root)}, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE });
await engine.resolve(need, { cacheOnly: false, modelWorkersLeft: 3, signal: new AbortController().signal });
`,
    );
    const child = spawn(process.execPath, [script, JSON.stringify(n), JSON.stringify(IL_PARSE_OPTIONS)], {
      env: { ...process.env, NEEDLE_TEST_HOOK_CERTIFY_FIFO: fifo },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((ok, fail) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('inside certification transaction') && ok());
      child.on('exit', (code) => fail(new Error(`child exited early (${code}): ${stderr}`)));
    });
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGKILL');
    await exited;

    const h = harness(repo, dbFile);
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM evidence_certifications').get()).toEqual({ n: 0 });
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM evidence_artifacts').get()).toEqual({ n: 0 });
    const r = await h.engine([]).resolve(n, options());
    expect(r.cacheHit).toBe(false);
    expect(r.context).not.toContain('src/config.ts');
  });
});
