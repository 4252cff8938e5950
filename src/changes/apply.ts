// Explicit apply (SPEC §14): only the latest verified revision, only with the
// caller quoting the current change digest, only onto a worktree whose
// snapshot equals the preparation base. A journal with the before-bytes of
// every touched path is committed before the first write; a failure rolls
// back, and an apply interrupted by a crash is rolled back at the next start.
// Nothing is staged, committed or pushed.
import { closeSync, chmodSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { blake3, type Digest } from '../core/digest.js';
import { processAlive } from '../core/process.js';
import type { Db } from '../store/db.js';
import { captureSnapshot, findRepositoryRoot } from '../repo/snapshot.js';
import { normalizeRelativePath } from '../repo/paths.js';
import { applyId, parseChangeId } from './identity.js';
import { appendEvent, currentChangeDigest, latestVerification, loadChange, loadPatch } from './store.js';
import { ChangeError, oneLine, type Operation, type PatchFile } from './model.js';

export interface ApplyResult {
  readonly status: 'applied';
  readonly change_id: string;
  readonly apply_id: Digest;
  readonly revision: number;
  readonly patch_id: Digest;
  readonly files: readonly { path: string; operation: Operation }[];
  readonly post_source_digest: Digest;
}

export interface RecoveredApply {
  readonly apply_id: Digest;
  readonly change_id: string;
  readonly status: 'rolled_back' | 'rollback_failed';
  readonly problems: readonly string[];
}

interface JournalEntry {
  path: string;
  operation: Operation;
  before: Buffer | null;
  beforeMode: number | null;
}

/** Absolute target of `rel` below `top`, refusing any ancestor that is not a real directory. */
function target(top: string, rel: string): string {
  if (normalizeRelativePath(rel) !== rel) throw new ChangeError('unsafe_path', `unsafe path in patch: ${JSON.stringify(rel.slice(0, 200))}`);
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const st = lstatSync(join(top, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw new ChangeError('base_mismatch', `${parts.slice(0, i).join('/')} is not a directory in the worktree`);
  }
  return join(top, rel);
}

/** The worktree still holds every path's before state; returns the file modes to restore and the directories a create must make. */
function checkBase(top: string, files: readonly PatchFile[]): { modes: Map<string, number>; createdDirs: string[] } {
  const modes = new Map<string, number>();
  const dirs = new Set<string>();
  for (const f of files) {
    const abs = target(top, f.path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (f.operation === 'create') {
      if (st) throw new ChangeError('base_mismatch', `${f.path} already exists in the worktree`);
      for (let d = dirname(f.path); d !== '.' && !lstatSync(join(top, d), { throwIfNoEntry: false }); d = dirname(d)) dirs.add(d);
      continue;
    }
    if (!st?.isFile() || blake3(readFileSync(abs)) !== f.beforeDigest)
      throw new ChangeError('base_mismatch', `${f.path} in the worktree differs from the patch's base`);
    modes.set(f.path, st.mode & 0o7777);
  }
  return { modes, createdDirs: [...dirs].sort((a, b) => b.length - a.length) };
}

function writeDurably(abs: string, bytes: Buffer, exclusive: boolean): void {
  const fd = openSync(abs, exclusive ? 'wx' : 'w');
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file writes of an apply and of its rollback: the one seam where tests inject a failing disk. */
export interface ApplyFs {
  write(abs: string, bytes: Buffer, exclusive: boolean): void;
  unlink(abs: string): void;
}

export const REAL_APPLY_FS: ApplyFs = { write: writeDurably, unlink: (abs) => unlinkSync(abs) };

/**
 * Writes the patch in order. On failure, returns the error and how many
 * entries (from the first) this apply may have changed: a file found changed
 * by someone else at the moment of its write, or a create that found its path
 * taken, was not touched, and a rollback must leave it as they made it.
 */
function writePatch(top: string, files: readonly PatchFile[], io: ApplyFs): { error: Error; touched: number } | null {
  for (const [i, f] of files.entries()) {
    try {
      const abs = target(top, f.path);
      if (f.operation !== 'create') {
        // Checked again at the write itself: the base check ran before the journal was committed.
        const st = lstatSync(abs, { throwIfNoEntry: false });
        if (!st?.isFile() || blake3(readFileSync(abs)) !== f.beforeDigest)
          return { error: new ChangeError('base_mismatch', `${f.path} changed in the worktree during the apply`), touched: i };
      }
      if (f.operation === 'delete') io.unlink(abs);
      else {
        if (f.operation === 'create') mkdirSync(dirname(abs), { recursive: true });
        io.write(abs, f.after!, f.operation === 'create');
      }
    } catch (e) {
      const untouched = e instanceof ChangeError || (e as NodeJS.ErrnoException).code === 'EEXIST';
      return { error: e as Error, touched: untouched ? i : i + 1 };
    }
  }
  return null;
}

/** Restores every journaled path, in reverse order; returns what could not be restored. */
function rollBack(top: string, journal: readonly JournalEntry[], createdDirs: readonly string[], io: ApplyFs = REAL_APPLY_FS): string[] {
  const problems: string[] = [];
  for (const e of [...journal].reverse()) {
    try {
      const abs = target(top, e.path);
      const st = lstatSync(abs, { throwIfNoEntry: false });
      if (e.operation === 'create') {
        if (st?.isFile() || st?.isSymbolicLink()) io.unlink(abs);
        else if (st) problems.push(`${e.path} is no longer a file`);
        continue;
      }
      if (st && !st.isFile()) {
        problems.push(`${e.path} is no longer a file`);
        continue;
      }
      if (st && blake3(readFileSync(abs)) === blake3(e.before!)) continue;
      mkdirSync(dirname(abs), { recursive: true });
      io.write(abs, e.before!, false);
      if (e.beforeMode !== null) chmodSync(abs, e.beforeMode);
    } catch (err) {
      problems.push(oneLine(`${e.path}: ${(err as Error).message}`));
    }
  }
  for (const d of createdDirs) {
    try {
      rmdirSync(join(top, d));
    } catch {
      // not empty or already gone: either way nothing of ours is left in it
    }
  }
  return problems;
}

function loadJournal(db: Db, id: string): JournalEntry[] {
  return (
    db.prepare('SELECT path, operation, before_blob, before_mode FROM change_apply_journal WHERE apply_id = ? ORDER BY ordinal').all(id) as {
      path: string;
      operation: Operation;
      before_blob: Buffer | null;
      before_mode: number | null;
    }[]
  ).map((r) => ({ path: r.path, operation: r.operation, before: r.before_blob, beforeMode: r.before_mode }));
}

/**
 * Settles a rolled-back apply: the worktree must show the pre-apply snapshot
 * again — or, when someone else changed it during the apply, every write of
 * ours must be undone (their change stays theirs).
 */
function settle(
  db: Db,
  top: string,
  row: { apply_id: string; change_id: string; pre_source_digest: string },
  problems: string[],
  why: string,
  othersChanged = false,
): RecoveredApply {
  const restored = problems.length === 0 && (othersChanged || captureSnapshot(top).sourceDigest === row.pre_source_digest);
  const status = restored ? 'rolled_back' : 'rollback_failed';
  if (!restored && problems.length === 0) problems.push('the worktree does not match its pre-apply snapshot after rollback');
  db.transaction(() => {
    db.prepare(`UPDATE change_applies SET status = ?, error = ?, completed_unix_ms = ? WHERE apply_id = ?`).run(
      status,
      oneLine(`${why}${problems.length ? `; ${problems.join('; ')}` : ''}`),
      Date.now(),
      row.apply_id,
    );
    db.prepare(`UPDATE change_requests SET state = ?, updated_unix_ms = ? WHERE change_id = ? AND state = 'applying'`).run(
      restored ? 'verified' : 'failed',
      Date.now(),
      row.change_id,
    );
    appendEvent(db, row.change_id, 'apply_rolled_back', { apply_id: row.apply_id, status });
  })();
  return { apply_id: row.apply_id as Digest, change_id: row.change_id, status, problems };
}

/** Rolls back every apply of this repository left in `applying` by a process that is gone, oldest first. */
export function recoverInterruptedApplies(db: Db, repoRoot: string, io: ApplyFs = REAL_APPLY_FS): RecoveredApply[] {
  const top = findRepositoryRoot(repoRoot);
  const rows = db
    .prepare(`SELECT apply_id, change_id, pre_source_digest, created_dirs_json, owner_pid FROM change_applies
              WHERE status = 'applying' AND repository_root = ? ORDER BY created_unix_ms, apply_id`)
    .all(top) as { apply_id: string; change_id: string; pre_source_digest: string; created_dirs_json: string; owner_pid: number | null }[];
  // An apply whose process still runs is in progress, not interrupted: rolling it back would fight its writes.
  return rows.filter((row) => row.owner_pid === null || !processAlive(row.owner_pid)).map((row) => {
    // Which writes a crash interrupted is unknown: every journaled path gets its before-bytes back.
    const problems = rollBack(top, loadJournal(db, row.apply_id), JSON.parse(row.created_dirs_json) as string[], io);
    return settle(db, top, row, problems, 'interrupted apply recovered at startup');
  });
}

export function applyChange(db: Db, repoRoot: string, rawId: string, ifMatch: string, io: ApplyFs = REAL_APPLY_FS): ApplyResult {
  const top = findRepositoryRoot(repoRoot);
  recoverInterruptedApplies(db, top, io);
  const id = parseChangeId(rawId);
  if (id === null) throw new ChangeError('invalid_request', 'change id must match chg_<24 hex>');
  const change = loadChange(db, id);
  if (!change) throw new ChangeError('unknown_change', `unknown change ${id}`);
  if (change.state === 'applied') throw new ChangeError('already_applied', `change ${id} is already applied`, id);
  const patch = loadPatch(db, id, change.latestRevision);
  const verification = latestVerification(db, id, change.latestRevision);
  if (change.state !== 'verified' || !patch || verification?.verdict !== 'verified' || verification.patchId !== patch.patchId)
    throw new ChangeError('not_verified', `change ${id} is not verified (state: ${change.state}); run verify_change first`, id);
  const digest = currentChangeDigest(db, change);
  if (ifMatch.trim() !== digest) throw new ChangeError('digest_mismatch', `--if-match does not equal the change digest of ${id} (see needle change show ${id})`, id);
  if (top !== change.repositoryRoot) throw new ChangeError('wrong_repository', `change ${id} belongs to ${change.repositoryRoot}`, id);
  const pre = captureSnapshot(top).sourceDigest;
  if (pre !== change.base)
    throw new ChangeError('snapshot_drift', `the worktree changed since change ${id} was prepared; apply needs the exact base snapshot`, id);
  const { modes, createdDirs } = checkBase(top, patch.files);

  const now = Date.now();
  const apply = applyId(id, patch.patchId, pre, now);
  db.transaction(() => {
    const moved = db
      .prepare(`UPDATE change_requests SET state = 'applying', updated_unix_ms = ? WHERE change_id = ? AND state = 'verified' AND latest_revision = ?`)
      .run(now, id, patch.revision);
    if (moved.changes !== 1) throw new ChangeError('not_verified', `change ${id} changed state while applying`, id);
    db.prepare(
      `INSERT INTO change_applies (apply_id, change_id, revision, patch_id, repository_root, pre_source_digest, status, created_dirs_json, created_unix_ms, owner_pid)
       VALUES (?, ?, ?, ?, ?, ?, 'applying', ?, ?, ?)`,
    ).run(apply, id, patch.revision, patch.patchId, top, pre, JSON.stringify(createdDirs), now, process.pid);
    const journal = db.prepare(
      `INSERT INTO change_apply_journal (apply_id, ordinal, path, operation, before_blob, before_mode, after_digest) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    patch.files.forEach((f, i) => journal.run(apply, i, f.path, f.operation, f.before, modes.get(f.path) ?? null, f.afterDigest));
    appendEvent(db, id, 'apply_started', { apply_id: apply, revision: patch.revision });
  }).immediate();

  const failed = writePatch(top, patch.files, io);
  if (failed) {
    // Live rollback: only what this apply may have written gets its before-bytes back.
    const problems = rollBack(top, loadJournal(db, apply).slice(0, failed.touched), createdDirs, io);
    const why = oneLine(`apply failed: ${failed.error.message}`);
    const othersChanged = failed.error instanceof ChangeError || (failed.error as NodeJS.ErrnoException).code === 'EEXIST';
    const settled = settle(db, top, { apply_id: apply, change_id: id, pre_source_digest: pre }, problems, why, othersChanged);
    if (settled.status === 'rolled_back') throw new ChangeError('apply_failed', `${why}; the worktree was rolled back`, id);
    throw new ChangeError(
      'apply_failed',
      // The advice first: the message is cut to one bounded line.
      oneLine(
        `ROLLBACK FAILED, the change is now failed: restore these paths by hand (\`needle change diff ${id}\` shows what the apply wrote, ` +
          `\`git status\` what differs): ${settled.problems.join('; ')}; ${why}`,
      ),
      id,
    );
  }
  const post = captureSnapshot(top).sourceDigest;
  db.transaction(() => {
    db.prepare(`UPDATE change_applies SET status = 'applied', post_source_digest = ?, completed_unix_ms = ? WHERE apply_id = ?`).run(post, Date.now(), apply);
    db.prepare(`UPDATE change_requests SET state = 'applied', updated_unix_ms = ? WHERE change_id = ?`).run(Date.now(), id);
    appendEvent(db, id, 'apply_completed', { apply_id: apply, post_source_digest: post });
  })();
  return {
    status: 'applied',
    change_id: id,
    apply_id: apply,
    revision: patch.revision,
    patch_id: patch.patchId,
    files: patch.files.map((f) => ({ path: f.path, operation: f.operation })),
    post_source_digest: post,
  };
}
