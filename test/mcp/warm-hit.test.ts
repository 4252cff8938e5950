// Warm hits over real stdio, as the main model sees them: the built server,
// the real static worker, a real git repository and SQLite file. A `git` shim
// first on PATH records every git the server runs, so "a hit spawns no git"
// is observed from outside; the server is killed with SIGKILL right after a
// hit's answer to show what is durable.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo } from '../evidence/fixtures/repos.js';
import { LEVELS, LEVELS_TEST } from '../resolve/negative-fixture.js';
import { CLI, cleanupAll, queryRows, requireBuild, tempDir } from './fixtures.js';

const SHIM = tempDir('needle-git-shim-');
const GIT_LOG = join(SHIM, 'git.log');
/** The same runs, each with the process id of whoever started it. */
const PARENT_LOG = join(SHIM, 'git-parents.log');

beforeAll(() => {
  requireBuild();
  const real = ['/usr/bin/git', '/usr/local/bin/git', '/bin/git'].find((p) => existsSync(p));
  if (!real) throw new Error('no git binary found for the shim');
  writeFileSync(join(SHIM, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${GIT_LOG}'\nprintf '%s %s\\n' "$PPID" "$1" >> '${PARENT_LOG}'\nexec ${real} "$@"\n`);
  chmodSync(join(SHIM, 'git'), 0o755);
});
afterAll(cleanupAll);

const gitCalls = (): string[] => (existsSync(GIT_LOG) ? readFileSync(GIT_LOG, 'utf8').split('\n').filter(Boolean) : []);

/** locate.implementation of parseLevel with its focused test required: no test exists, so focused_tests stays missing. */
const PARTIAL = {
  route: 'locate.implementation',
  subject: { kind: 'symbol', name: 'parseLevel' },
  task: 'where is parseLevel and which test covers it',
  required: [{ kind: 'focused_tests' }],
};
const LOCATE = { route: 'locate.implementation', subject: { kind: 'symbol', name: 'parseLevel' }, task: 'where is parseLevel defined' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are asserted field by field
type Json = any;

class Server {
  readonly child: ChildProcessWithoutNullStreams;
  private out = '';
  private err = '';
  private readonly waiters: (() => void)[] = [];
  private nextId = 1;

  constructor(repo: string, dataDir: string) {
    this.child = spawn(process.execPath, [CLI, 'mcp', 'serve', '--role-profile', 'local', '--data-dir', dataDir, '--repository', repo], {
      env: { ...process.env, PATH: `${SHIM}:${process.env.PATH ?? ''}` },
    });
    const wake = () => this.waiters.splice(0).forEach((w) => w());
    this.child.stdout.on('data', (b: Buffer) => {
      this.out += b.toString('utf8');
      wake();
    });
    this.child.stderr.on('data', (b: Buffer) => {
      this.err += b.toString('utf8');
      wake();
    });
    this.child.on('exit', wake);
  }

  private until<T>(test: () => T | undefined, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr: ${this.err.slice(-1500)}`)), 30_000);
      const check = () => {
        const v = test();
        if (v !== undefined) {
          clearTimeout(timer);
          resolve(v);
        } else if (this.child.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`server exited while waiting for ${what}; stderr: ${this.err.slice(-1500)}`));
        } else this.waiters.push(check);
      };
      check();
    });
  }

  async request(method: string, params: object): Promise<Json> {
    const id = this.nextId++;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return this.until(
      () =>
        this.out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Json)
          .find((m) => m.id === id),
      `reply ${id}`,
    );
  }

  async initialize(): Promise<void> {
    await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  async need(args: object): Promise<Json> {
    const reply = await this.request('tools/call', { name: 'need_context', arguments: args });
    expect(reply.result?.isError, JSON.stringify(reply)).toBe(false);
    return reply.result.structuredContent;
  }

  /** Resolves once the worktree watch reported its `n`-th known snapshot. */
  watchSettled(n: number): Promise<void> {
    return this.until(() => ((this.err.match(/snapshot \w+ known/g) ?? []).length >= n ? true : undefined), `worktree watch snapshot #${n}`).then(() => {});
  }

  kill(): Promise<void> {
    this.child.kill('SIGKILL');
    return new Promise((resolve) => (this.child.exitCode !== null || this.child.signalCode !== null ? resolve() : this.child.once('exit', () => resolve())));
  }

  /** Sends `signal` and resolves with the exit code (null: killed by the signal itself). */
  stop(signal: NodeJS.Signals): Promise<number | null> {
    this.child.kill(signal);
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => (this.child.exitCode !== null ? resolve(null) : this.child.once('exit', resolve)));
  }
}

describe('warm hits over stdio', () => {
  let repo: string;
  beforeAll(() => {
    repo = createRepo(LEVELS);
  });

  it('a repeated hit and a repeated partial hit spawn no git; a new file that could add a candidate is still noticed', async () => {
    const dataDir = tempDir('needle-data-');
    const a = new Server(repo, dataDir);
    await a.initialize();
    const first = await a.need(PARTIAL);
    expect(first).toMatchObject({ status: 'generated', missing: ['focused_tests'], satisfied: ['implementation_location'] });
    await a.close();

    // A new server (the role profile allows 3 needs per connection), once its watch knows the snapshot.
    const s = new Server(repo, dataDir);
    await s.initialize();
    await s.watchSettled(1);
    const before = gitCalls().length;
    const partial = await s.need(PARTIAL);
    expect(partial).toMatchObject({ status: 'hit', worker_spawned: false, missing: ['focused_tests'], resolution: { kind: 'partial_hit' } });
    const hit = await s.need(LOCATE);
    expect(hit).toMatchObject({ status: 'hit', worker_spawned: false });
    expect(gitCalls().slice(before)).toEqual([]);

    // A new test file could add a candidate the worker's search would find:
    // the next partial need is not served from the negative outcome.
    mkdirSync(join(repo, 'test'), { recursive: true });
    writeFileSync(join(repo, 'test/levels.test.ts'), LEVELS_TEST);
    const found = await s.need(PARTIAL);
    expect(found.status).toBe('generated');
    expect(found.satisfied).toContain('focused_tests');
    await s.close();
  });

  it('repeats served from the remembered answer carry their own step and elapsed time, and otherwise the same answer', async () => {
    const r = createRepo(LEVELS);
    const dataDir = tempDir('needle-data-');
    const a = new Server(r, dataDir);
    await a.initialize();
    expect((await a.need(LOCATE)).status).toBe('generated');
    await a.close();

    const s = new Server(r, dataDir);
    await s.initialize();
    await s.watchSettled(1);
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push((await s.request('tools/call', { name: 'need_context', arguments: LOCATE })).result);
    await s.close();
    expect(replies.map((x) => x.structuredContent.step)).toEqual([
      { ordinal: 1, relation: 'independent' },
      { ordinal: 2, relation: 'repeat' },
      { ordinal: 3, relation: 'repeat' },
    ]);
    for (const reply of replies) {
      expect(reply).toMatchObject({ isError: false, structuredContent: { status: 'hit', worker_spawned: false } });
      expect(typeof reply._meta.elapsed_ms).toBe('number');
      expect(reply.content[0].text).toBe(reply.structuredContent.context);
    }
    const without = (x: Json) => ({ ...x, structuredContent: { ...x.structuredContent, step: null }, _meta: { ...x._meta, elapsed_ms: null } });
    expect(without(replies[2])).toEqual(without(replies[1]));
    expect(without(replies[1])).toEqual(without(replies[0]));
  });

  it('once started, the server starts no git itself: its watch\'s snapshots and a need run in process go through its helper shell', async () => {
    const r = createRepo(LEVELS);
    const s = new Server(r, tempDir('needle-data-'));
    await s.initialize();
    // Before its answer to initialize the server is small and runs git itself (the repository's root and lineage).
    const parents = () => (existsSync(PARENT_LOG) ? readFileSync(PARENT_LOG, 'utf8').split('\n').filter(Boolean) : []);
    const started = parents().length;
    // Asked at once, before the analyzer thread is ready: the need runs in the server's own thread.
    expect((await s.need(LOCATE)).status).toBe('generated');
    await s.watchSettled(1);
    writeFileSync(join(r, 'src/new.ts'), 'export const fresh = 1;\n');
    await s.watchSettled(2);
    await s.close();
    const after = parents().slice(started);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((line) => line.split(' ')[0] === String(s.child.pid))).toEqual([]);
  });

  it('a one-byte edit that keeps size and mtime (same timestamp tick) is still detected on the next hit', async () => {
    const r = createRepo(LEVELS);
    const dataDir = tempDir('needle-data-');
    const s = new Server(r, dataDir);
    await s.initialize();
    expect((await s.need(LOCATE)).status).toBe('generated');
    expect((await s.need(LOCATE)).status).toBe('hit');
    const file = join(r, 'src/levels.ts');
    const st = statSync(file, { bigint: true });
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace("return 'info';", "return 'warn';"));
    // Back to the exact nanosecond mtime: what a write within the same timestamp tick looks like.
    const ns = String(st.mtimeNs % 1_000_000_000n).padStart(9, '0');
    execFileSync('touch', ['-m', '-d', `@${st.mtimeNs / 1_000_000_000n}.${ns}`, file]);
    expect(statSync(file, { bigint: true }).size).toBe(st.size);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(st.mtimeNs);
    const after = await s.need(LOCATE);
    expect(after.status).not.toBe('hit');
    await s.close();
  });

  /** An initialized server on a new repository and a new data directory, with that directory's database file. */
  async function freshServer() {
    const r = createRepo(LEVELS);
    const dataDir = tempDir('needle-data-');
    const a = new Server(r, dataDir);
    await a.initialize();
    return { r, dataDir, a, dbFile: join(dataDir, 'needle.sqlite3') };
  }

  it('a SIGTERM right after answers keeps every step: the rows queued for the next quiet moment are committed before the server exits', async () => {
    const { a, dbFile } = await freshServer();
    expect((await a.need(LOCATE)).status).toBe('generated');
    expect((await a.need(LOCATE)).status).toBe('hit');
    expect((await a.need(LOCATE)).status).toBe('hit');
    expect(await a.stop('SIGTERM')).toBe(143);
    const steps = queryRows<{ ordinal: number; status: string }>(dbFile, 'SELECT ordinal, status FROM need_steps ORDER BY ordinal');
    expect(steps).toEqual([
      { ordinal: 1, status: 'generated' },
      { ordinal: 2, status: 'hit' },
      { ordinal: 3, status: 'hit' },
    ]);
    const delivered = queryRows<{ n: number }>(dbFile, "SELECT COUNT(*) AS n FROM need_events WHERE kind = 'delivered'")[0]!.n;
    expect(delivered).toBe(3);
  });

  it('a SIGKILL right after a hit loses at most bookkeeping: the next start serves the certificate and the negative outcome as hits', async () => {
    const { r, dataDir, a, dbFile } = await freshServer();
    expect((await a.need(PARTIAL)).status).toBe('generated');
    const certified = queryRows<{ n: number }>(dbFile, 'SELECT COUNT(*) AS n FROM evidence_certifications')[0]!.n;
    const negatives = queryRows<{ n: number }>(dbFile, 'SELECT COUNT(*) AS n FROM evidence_negative_outcomes')[0]!.n;
    expect(certified).toBeGreaterThan(0);
    expect(negatives).toBeGreaterThan(0);
    const hit = await a.need(PARTIAL);
    expect(hit.status).toBe('hit');
    await a.kill();

    expect(queryRows<{ n: number }>(dbFile, 'SELECT COUNT(*) AS n FROM evidence_certifications')[0]!.n).toBe(certified);
    expect(queryRows<{ n: number }>(dbFile, 'SELECT COUNT(*) AS n FROM evidence_negative_outcomes')[0]!.n).toBe(negatives);
    const b = new Server(r, dataDir);
    await b.initialize();
    const next = await b.need(PARTIAL);
    expect(next).toMatchObject({ status: 'hit', worker_spawned: false, missing: ['focused_tests'] });
    expect(next.context).toBe(hit.context);
    expect((await b.need(LOCATE)).status).toBe('hit');
    // Every step that was written is whole: a step row never exists without its requested event.
    const orphans = queryRows<{ n: number }>(
      dbFile,
      "SELECT COUNT(*) AS n FROM need_steps s WHERE NOT EXISTS (SELECT 1 FROM need_events e WHERE e.step_id = s.id AND e.kind = 'requested')",
    )[0]!.n;
    expect(orphans).toBe(0);
    await b.close();
  });
});
