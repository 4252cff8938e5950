// What validators see of the repository: regular files of the current snapshot
// (tracked or untracked-but-not-ignored), reached by canonical relative paths
// that cannot leave the repository. Every file read is recorded with the
// digest of exactly the bytes checked, which becomes the dependency manifest.
import { lstatSync, readFileSync } from 'node:fs';
import { blake3, type Digest } from '../core/digest.js';
import { EVIDENCE_STORE } from '../core/limits.js';
import { git } from '../repo/git.js';
import { normalizeRelativePath, resolveInside } from '../repo/paths.js';
import type { SnapshotListing } from '../repo/snapshot.js';
import { absentOrThrow } from '../repo/unreadable.js';

export interface SnapshotFile {
  readonly path: string;
  readonly digest: Digest;
  readonly text: string;
  /** Lines without terminators; a trailing newline does not start an extra line. */
  readonly lines: readonly string[];
}

export interface Dependency {
  readonly path: string;
  readonly digest: Digest;
}

/** Why `path` is not a canonical repository-relative path, or null when it is. */
export function unsafePathReason(path: string): string | null {
  if (path.length === 0) return 'empty path';
  if (normalizeRelativePath(path) !== path) return `not a canonical relative path inside the repository: ${clip(path)}`;
  if (path.split('/')[0] === '.git') return `path inside .git: ${clip(path)}`;
  return null;
}

export function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function splitLines(text: string): string[] {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Snapshot membership of paths, by path: shared by the readers of one validation batch. */
export type Membership = Map<string, boolean>;

export class SnapshotReader {
  private readonly files = new Map<string, SnapshotFile | string>();

  /**
   * `members` may be shared by the readers validating one worker's proposals
   * (each keeps its own reads): membership is a fact of the snapshot, not of
   * one proposal, and one git call can answer it for the whole batch.
   */
  constructor(
    readonly root: string,
    private readonly members: Membership = new Map(),
    /**
     * The current snapshot's files when a worktree watch knows them (the
     * caller asks it after letting pending file events arrive): membership
     * is then read from it instead of asking git.
     */
    private readonly listing: SnapshotListing | null = null,
  ) {}

  /** Looks up snapshot membership of many paths with one git call (none when the listing is known). */
  prime(paths: Iterable<string>): void {
    const wanted = [...new Set(paths)].filter((p) => !this.members.has(p) && unsafePathReason(p) === null);
    if (wanted.length === 0) return;
    if (this.listing !== null) {
      for (const p of wanted) this.members.set(p, this.listing.has(p));
      return;
    }
    const out = git(this.root, [
      'ls-files',
      '-z',
      '--cached',
      '--others',
      '--exclude-standard',
      '--',
      ...wanted.map((p) => `:(literal)${p}`),
    ]);
    const listed = new Set(out.split('\0').filter(Boolean));
    for (const p of wanted) this.members.set(p, listed.has(p));
  }

  /** The file, or the reason it cannot serve as evidence. */
  file(path: string): SnapshotFile | string {
    const cached = this.files.get(path);
    if (cached !== undefined) return cached;
    const result = this.load(path);
    this.files.set(path, result);
    return result;
  }

  /** True when `path` is a directory inside the repository (for cwd checks). */
  isDirectory(path: string): boolean {
    if (path === '.') return true;
    if (unsafePathReason(path) !== null) return false;
    try {
      return lstatSync(`${this.root}/${path}`).isDirectory();
    } catch (e) {
      return absentOrThrow(e, path) ?? false;
    }
  }

  /** Whether a regular snapshot file exists at `path`, without failing on absence. */
  exists(path: string): boolean {
    return typeof this.file(path) !== 'string';
  }

  /** Every file successfully read, sorted by path. */
  reads(): Dependency[] {
    return [...this.files.values()]
      .filter((f): f is SnapshotFile => typeof f !== 'string')
      .map((f) => ({ path: f.path, digest: f.digest }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private load(path: string): SnapshotFile | string {
    const unsafe = unsafePathReason(path);
    if (unsafe) return unsafe;
    this.prime([path]);
    if (!this.members.get(path)) return `not a file of the snapshot (missing, ignored or outside the repository): ${clip(path)}`;
    const abs = resolveInside(this.root, path);
    if (abs === null) return `not a regular file inside the repository: ${clip(path)}`;
    let bytes: Buffer;
    try {
      const st = lstatSync(`${this.root}/${path}`);
      if (st.isSymbolicLink()) return `symbolic link: ${clip(path)}`;
      if (!st.isFile()) return `not a regular file inside the repository: ${clip(path)}`;
      bytes = readFileSync(abs);
    } catch (e) {
      // Gone since it was listed: not a file of the snapshot. Anything else is an error, never absence.
      absentOrThrow(e, path);
      return `not a file of the snapshot (missing): ${clip(path)}`;
    }
    if (bytes.length > EVIDENCE_STORE.maxValidatedFileBytes) return `file too large to certify: ${clip(path)}`;
    if (bytes.includes(0)) return `binary file: ${clip(path)}`;
    const text = bytes.toString('utf8');
    return { path, digest: blake3(bytes), text, lines: splitLines(text) };
  }
}
