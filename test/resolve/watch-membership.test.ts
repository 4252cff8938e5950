// Validators accept only files of the snapshot. When the worktree watch knows
// the snapshot it also knows its files (repo/snapshot.ts SnapshotListing), and
// the ladder reads membership from that listing instead of running
// `git ls-files` per resolution. A listing that disagrees with git shows
// which one was asked: a cited file git lists but the watch's listing lacks
// is rejected, and git is never asked at all (the repository root is not a
// git repository for that part).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { captureSnapshot, type SnapshotListing } from '../../src/repo/snapshot.js';
import type { WorktreeState } from '../../src/repo/worktree-watch.js';
import { createEngine } from '../../src/resolve/engine.js';
import { openDb } from '../../src/store/db.js';
import { rejectionsForNeed } from '../../src/store/evidence/accounting.js';
import { flushBookkeeping } from '../../src/store/bookkeeping.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { citing, IL_PARSE_OPTIONS, makeRepo, need, options, scriptedWorker, settled, type Repo } from './fixture.js';

const repos: Repo[] = [];
const dirs: string[] = [];
afterAll(() => {
  repos.forEach((r) => r.cleanup());
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** An engine whose watch knows the real snapshot digest and reports `paths` as its files. */
function watchedEngine(paths: readonly string[]) {
  const repo = makeRepo();
  repos.push(repo);
  const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
  const digest = captureSnapshot(repo.root).sourceDigest;
  const listing: SnapshotListing = { has: (p) => paths.includes(p) };
  const state: WorktreeState = { current: () => digest, pending: () => 1, digestAt: (t) => (t === 1 ? digest : null), listing: () => listing };
  const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
  const engine = settled(db, createEngine({ db, repoRoot: repo.root, explorers: [worker], profile: BUILTIN_LOCAL_PROFILE, worktree: state }));
  return { db, engine, locate: need(repo, 'locate.implementation', { kind: 'symbol', name: 'parseOptions' }) };
}

describe('snapshot membership from the worktree watch', () => {
  it('certifies a proposal whose files the listing holds', async () => {
    const { db, engine, locate } = watchedEngine(['src/config.ts', 'src/deploy.ts']);
    try {
      const r = await engine.resolve(locate, options());
      expect(r.satisfied).toEqual(['implementation_location']);
    } finally {
      db.close();
    }
  });

  it('rejects a cited file the listing lacks, although git lists it, and certifies nothing', async () => {
    const { db, engine, locate } = watchedEngine(['src/config.ts']);
    try {
      const r = await engine.resolve(locate, options());
      expect(r.satisfied).toEqual([]);
      expect(r.missing).toEqual(['implementation_location']);
      flushBookkeeping(db);
      const reasons = rejectionsForNeed(db, locate.id).flatMap((row) => row.reasons);
      expect(reasons.join('\n')).toMatch(/not a file of the snapshot .*src\/deploy\.ts/);
    } finally {
      db.close();
    }
  });

  it('answers membership from a listing without running git', () => {
    // Not a git repository: a git call would throw.
    const root = mkdtempSync(join(tmpdir(), 'needle-listing-'));
    dirs.push(root);
    writeFileSync(join(root, 'listed.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'unlisted.ts'), 'export const b = 2;\n');
    const reader = new SnapshotReader(root, new Map(), { has: (p) => p === 'listed.ts' });
    reader.prime(['listed.ts', 'unlisted.ts']);
    expect(typeof reader.file('listed.ts')).toBe('object');
    expect(reader.file('unlisted.ts')).toMatch(/^not a file of the snapshot/);
    // Without a listing the same reader asks git, which fails here.
    expect(() => new SnapshotReader(root).prime(['listed.ts'])).toThrow(/git/);
  });
});
