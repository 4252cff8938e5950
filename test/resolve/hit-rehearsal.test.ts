// A server's first hits come before its worktree watch can vouch for the
// worktree, so they cannot be remembered then. Once the watch first knows the
// snapshot they are decided again from the cache alone (resolve/engine.ts
// rehearse): no worker, no bookkeeping row; the session's first repeat is then
// a remembered answer, made without planning. Plans are counted by wrapping
// the real planner.
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import type { WorktreeState } from '../../src/repo/worktree-watch.js';
import { createEngine } from '../../src/resolve/engine.js';
import { openDb } from '../../src/store/db.js';
import { citing, IL_PARSE_OPTIONS, makeRepo, need, options, scriptedWorker, settled, type Repo } from './fixture.js';

const plans = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../src/resolve/cache-plan.js', async (original) => {
  const real = await original<typeof import('../../src/resolve/cache-plan.js')>();
  return {
    ...real,
    planFromCache: (...args: Parameters<typeof real.planFromCache>) => {
      plans.n++;
      return real.planFromCache(...args);
    },
  };
});

const repos: Repo[] = [];
afterAll(() => repos.forEach((r) => r.cleanup()));

/** An engine on a worktree the watch already knows, with one scripted worker, under a fake clock. */
function knownWorktree() {
  const repo = makeRepo();
  repos.push(repo);
  const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const digest = captureSnapshot(repo.root).sourceDigest;
  const state: WorktreeState = { current: () => digest, pending: () => 1, digestAt: (t) => (t === 1 ? digest : null), onKnown: () => {} };
  const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
  const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE, worktree: state }));
  return { db, engine, worker, locate: need(repo, 'locate.implementation', { kind: 'symbol', name: 'parseOptions' }) };
}

describe('hits decided before the watch knew the snapshot', () => {
  it('are decided again once it does, recording nothing and running nothing, so the first repeat is not planned', async () => {
    const repo = makeRepo();
    repos.push(repo);
    const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
    try {
      // A watch still walking the worktree (no digest, no token), then reporting.
      let known = false;
      const listeners: (() => void)[] = [];
      const digest = captureSnapshot(repo.root).sourceDigest;
      const state: WorktreeState = {
        current: () => (known ? digest : null),
        pending: () => (known ? 1 : null),
        digestAt: (token) => (known && token === 1 ? digest : null),
        onKnown: (l) => void listeners.push(l),
      };
      const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
      const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE, worktree: state }));
      const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM evidence_resolutions').get() as { n: number }).n;
      const locate = need(repo, 'locate.implementation', { kind: 'symbol', name: 'parseOptions' });
      // The session rehearses its answer path right after the engine's rehearsal, with what the engine remembered.
      const rehearsedWith: unknown[] = [];
      engine.onRehearsed!(() => rehearsedWith.push(engine.remembered!(locate, options())));

      await engine.resolve(locate, options());
      const unwatched = await engine.resolve(locate, options());
      expect(unwatched.resolution.kind).toBe('exact_hit');
      expect(rows()).toBe(2);

      expect(engine.remembered!(locate, options())).toBeNull();
      known = true;
      const before = plans.n;
      listeners.forEach((l) => l());
      expect(plans.n).toBe(before + 1);
      expect(rows()).toBe(2);
      expect(rehearsedWith).toHaveLength(1);
      expect(rehearsedWith[0]).toEqual(unwatched);

      const first = await engine.resolve(locate, options());
      const second = await engine.resolve(locate, options());
      expect(plans.n).toBe(before + 1);
      expect(second).toBe(first);
      expect(first).toBe(rehearsedWith[0]);
      expect(first).toEqual(unwatched);
      // Asking what is remembered records nothing and plans nothing; a changed worktree forgets it.
      expect(engine.remembered!(locate, options())).toBe(first);
      expect(rows()).toBe(4);
      expect(plans.n).toBe(before + 1);
      known = false;
      expect(engine.remembered!(locate, options())).toBeNull();
      known = true;
      expect(engine.remembered!(locate, options())).toBeNull();
      expect(worker.calls).toHaveLength(1);
    } finally {
      db.close();
    }
  });

  it('after a worker ran, the repeat is decided once the process is quiet, so the first repeat is not planned', async () => {
    const { db, engine, worker, locate } = knownWorktree();
    try {
      const generated = await engine.resolve(locate, options());
      expect(generated.workerSpawned).toBe(true);
      expect(engine.remembered!(locate, options())).toBeNull();
      const before = plans.n;
      vi.advanceTimersByTime(25);
      expect(plans.n).toBe(before + 1);
      const remembered = engine.remembered!(locate, options());
      expect(remembered).toMatchObject({ cacheHit: true, workerSpawned: false });
      const repeat = await engine.resolve(locate, options());
      expect(repeat).toBe(remembered);
      expect(plans.n).toBe(before + 1);
      expect(worker.calls).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      db.close();
    }
  });

  it('a repeat that comes before the quiet moment keeps its remembered answer: the later rehearsal replaces nothing', async () => {
    const { db, engine, locate } = knownWorktree();
    try {
      expect((await engine.resolve(locate, options())).workerSpawned).toBe(true);
      const first = await engine.resolve(locate, options());
      const before = plans.n;
      vi.advanceTimersByTime(25);
      expect(plans.n).toBe(before);
      expect(await engine.resolve(locate, options())).toBe(first);
    } finally {
      vi.useRealTimers();
      db.close();
    }
  });
});
