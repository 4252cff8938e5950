// Remembered hits (resolve/hit-memo.ts) in a long-lived engine with a real
// worktree watch: a repeat is the remembered answer only while everything it
// rested on reads the same — a certificate invalidated through another handle
// (another process), an edited dependency that keeps its size and mtime, a
// new certification of the same need, each is seen by the very next request.
import { openSync, closeSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/resolution.js';
import type { Worker } from '../../src/core/worker.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { WorktreeWatch, type WorktreeState } from '../../src/repo/worktree-watch.js';
import { createEngine } from '../../src/resolve/engine.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { openDb, type Db } from '../../src/store/db.js';
import { evidenceGeneration, invalidate, listCertificates } from '../../src/store/evidence/certificates.js';
import { buildExplorers } from '../../src/workers/explorers.js';
import { citing, IL_PARSE_OPTIONS, makeRepo, need, options, scriptedWorker, settled, type Repo } from './fixture.js';
import { LEVELS, levelsNeed } from './negative-fixture.js';

const NO_SANDBOX = { bwrap: null, active: false, reason: 'not used by this test' };

const repos: Repo[] = [];
const closers: (() => void)[] = [];
afterAll(() => {
  closers.forEach((c) => c());
  repos.forEach((r) => r.cleanup());
});

/** Waits (event-driven, bounded) until the watch knows the snapshot. */
async function known(w: WorktreeWatch): Promise<void> {
  for (let i = 0; i < 6_000 && w.current() === null; i++) await new Promise((r) => setTimeout(r, 5));
  if (w.current() === null) throw new Error('the watch never reported a snapshot');
}

async function served(): Promise<{ repo: Repo; db: Db; engine: Engine; worker: ReturnType<typeof scriptedWorker>; watch: WorktreeWatch }> {
  const repo = makeRepo();
  repos.push(repo);
  const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
  const watch = new WorktreeWatch(repo.root).start();
  closers.push(() => watch.close(), () => db.close());
  await known(watch);
  const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
  const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE, worktree: watch }));
  return { repo, db, engine, worker, watch };
}

const locate = (repo: Repo) => need(repo, 'locate.implementation', { kind: 'symbol', name: 'parseOptions' });

describe('remembered hits', () => {
  it('serve the same answer again while nothing it rested on changed', async () => {
    const { repo, engine, worker } = await served();
    const first = await engine.resolve(locate(repo), options());
    expect(first.resolution.kind).toBe('miss');
    const second = await engine.resolve(locate(repo), options());
    const third = await engine.resolve(locate(repo), options());
    expect(second.resolution.kind).toBe('exact_hit');
    // The remembered result itself: no plan was made again.
    expect(third).toBe(second);
    expect(worker.calls).toHaveLength(1);
  });

  it('are not served once the certificate was invalidated through another handle', async () => {
    const { repo, db, engine, worker } = await served();
    await engine.resolve(locate(repo), options());
    const hit = await engine.resolve(locate(repo), options());
    expect(hit.resolution.kind).toBe('exact_hit');
    const other = openDb(join(repo.dataDir, 'needle.sqlite3'));
    const before = evidenceGeneration(db);
    try {
      const cert = listCertificates(other, 10)[0]!;
      expect(invalidate(other, cert.certificateId, 'wrong', Date.now())).toBe(1);
    } finally {
      other.close();
    }
    expect(evidenceGeneration(db)).toBeGreaterThan(before);
    const after = await engine.resolve(locate(repo), options());
    expect(after).not.toBe(hit);
    expect(after.resolution.kind).not.toBe('exact_hit');
    expect(worker.calls).toHaveLength(2);
  });

  it('see an edited dependency that kept its size and modification time', async () => {
    const { repo, engine, worker, watch } = await served();
    await engine.resolve(locate(repo), options());
    const hit = await engine.resolve(locate(repo), options());
    expect(hit.resolution.kind).toBe('exact_hit');
    const path = join(repo.root, 'src/config.ts');
    const { atime, mtime } = statSync(path);
    const text = repo.read('src/config.ts');
    // Same length, different bytes: only a hash can tell.
    repo.write('src/config.ts', text.replace('parseOptions(argv', 'parseOptionz(argv'));
    utimesSync(path, atime, mtime);
    closeSync(openSync(path, 'r'));
    await known(watch);
    const after = await engine.resolve(locate(repo), options());
    expect(after).not.toBe(hit);
    expect(after.resolution.kind).not.toBe('exact_hit');
    expect(worker.calls).toHaveLength(2);
  });

  it('are not taken from an engine without a worktree watch (one-shot CLI): each request plans', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
    closers.push(() => db.close());
    const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [scriptedWorker(repo, citing(IL_PARSE_OPTIONS))], profile: BUILTIN_LOCAL_PROFILE }));
    await engine.resolve(locate(repo), options());
    const a = await engine.resolve(locate(repo), options());
    const b = await engine.resolve(locate(repo), options());
    expect(a.resolution.kind).toBe('exact_hit');
    expect(b).not.toBe(a);
    expect(b).toEqual(a);
  });

  it('take the snapshot from the watch around a static run: a file added while it ran keeps its negative outcome uncertified', async () => {
    const repo = makeRepo(LEVELS);
    repos.push(repo);
    const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
    const watch = new WorktreeWatch(repo.root).start();
    closers.push(() => watch.close(), () => db.close());
    await known(watch);
    const real: Worker = buildExplorers(BUILTIN_LOCAL_PROFILE, { dataDir: repo.dataDir, db, sandbox: NO_SANDBOX })[0]!;
    let runs = 0;
    const editing: Worker = {
      ...real,
      async run(input) {
        runs++;
        // Someone saves a new file while the worker searches.
        if (runs === 1) repo.write('src/extra.ts', 'export const extra = 1;\n');
        return real.run(input);
      },
    };
    const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [editing], profile: BUILTIN_LOCAL_PROFILE, worktree: watch }));
    const first = await engine.resolve(levelsNeed(repo), options());
    expect(first.missing).toEqual(['focused_tests']);
    const negatives = () => (db.prepare('SELECT COUNT(*) AS n FROM evidence_negative_outcomes').get() as { n: number }).n;
    expect(negatives()).toBe(0);
    await known(watch);
    // Nothing moved since: this run's negative outcome is certified, and the repeat is served from it.
    await engine.resolve(levelsNeed(repo), options());
    expect(negatives()).toBe(1);
    const third = await engine.resolve(levelsNeed(repo), options());
    expect(third).toMatchObject({ cacheHit: true, workerSpawned: false, missing: ['focused_tests'] });
    expect(runs).toBe(2);
  });

  it('remember an answer decided while the watch was still taking the snapshot, once the watch knows that same moment', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
    closers.push(() => db.close());
    // A watch that is armed but has not reported yet, then reports generation 7, then sees an edit.
    let known = false;
    let generation = 7;
    const digest = captureSnapshot(repo.root).sourceDigest;
    const state: WorktreeState = {
      current: () => (known && generation === 7 ? digest : null),
      pending: () => generation,
      digestAt: (token) => (known && token === generation && generation === 7 ? digest : null),
    };
    const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
    const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE, worktree: state }));
    await engine.resolve(locate(repo), options());
    const early = await engine.resolve(locate(repo), options());
    expect(early.resolution.kind).toBe('exact_hit');
    known = true;
    expect(await engine.resolve(locate(repo), options())).toBe(early);
    // Anything that moves the watch's generation retires the remembered answer.
    generation = 8;
    const moved = await engine.resolve(locate(repo), options());
    expect(moved).not.toBe(early);
    expect(moved).toEqual(early);
  });
});
