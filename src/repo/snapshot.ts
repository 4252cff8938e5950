// The source snapshot (SPEC §9): one digest for HEAD, the index listing, every
// tracked change with its current bytes and every untracked non-ignored file.
// Byte layout follows reference/changes-sandbox.md §1 so that a clean tree is
// more than HEAD and staged differs from unstaged (the XY codes are hashed).
import { readFileSync, readlinkSync } from 'node:fs';
import { canonical, RawHasher, type Digest } from '../core/digest.js';
import { REPO } from '../core/limits.js';
import { lineageDigest } from '../core/need.js';
import { hashFileStreaming } from './filehash.js';
import { git, gitBytes, gitBytesAsync, RepoError } from './git.js';
import { lstatBelow } from './paths.js';

export interface Snapshot {
  /** The work tree's top directory as git reports it (symlinks resolved). */
  root: string;
  /** Full object id of HEAD; null in a repository without a commit. */
  head: string | null;
  lineage: Digest;
  sourceDigest: Digest;
  trackedDigest: Digest;
  untrackedDigest: Digest;
}

/**
 * The files of a snapshot: every index entry and every untracked file git
 * does not ignore — what `git ls-files --cached --others --exclude-standard`
 * lists — answered from the same git output the digest is taken from, so a
 * watched worktree answers membership without git.
 */
export interface SnapshotListing {
  has(path: string): boolean;
}

const TAB = 0x09;

/**
 * Membership looked up in git's raw `-z` output, kept as it came: two
 * Buffers outside the JavaScript heap. A Set of every path would put one
 * string per file on the heap (50 000 of them in a large repository) and its
 * garbage collection in the way of the answers that follow; a look-up here is
 * a byte search over the listing, made only for the few paths a proposal cites.
 */
class RawListing implements SnapshotListing {
  constructor(
    /** `ls-files --stage -z`: records `<mode> <object> <stage>\t<path>\0`. */
    private readonly stage: Buffer,
    /** `status --porcelain=v1 -z`: records `XY <path>\0`, untracked ones `?? <path>`. */
    private readonly status: Buffer,
  ) {}

  has(path: string): boolean {
    const bytes = Buffer.from(path, 'utf8');
    return this.inIndex(bytes) || this.untracked(bytes);
  }

  // A match counts only where the record's path starts: after the first tab
  // of its record (a path may itself contain a tab).
  private inIndex(path: Buffer): boolean {
    const needle = Buffer.concat([Buffer.of(TAB), path, Buffer.of(0)]);
    for (let i = this.stage.indexOf(needle); i >= 0; i = this.stage.indexOf(needle, i + 1))
      if (this.stage.indexOf(TAB, this.stage.lastIndexOf(0, i) + 1) === i) return true;
    return false;
  }

  // A match counts only at the start of a record.
  private untracked(path: Buffer): boolean {
    const needle = Buffer.concat([Buffer.from('?? '), path, Buffer.of(0)]);
    for (let i = this.status.indexOf(needle); i >= 0; i = this.status.indexOf(needle, i + 1)) if (i === 0 || this.status[i - 1] === 0) return true;
    return false;
  }
}

const SNAPSHOT_LAYOUT_VERSION = 2;
const NUL = Uint8Array.of(0);

/** Splits git's -z output into records (the trailing NUL yields no empty record). */
export function splitNul(out: Buffer): Buffer[] {
  const records: Buffer[] = [];
  let start = 0;
  for (let i = out.indexOf(0); i >= 0; i = out.indexOf(0, start)) {
    if (i > start) records.push(out.subarray(start, i));
    start = i + 1;
  }
  if (start < out.length) records.push(out.subarray(start));
  return records;
}

function topAndHead(dir: string): { top: string; head: string | null } {
  let lines: string[];
  try {
    lines = git(dir, ['rev-parse', '--show-toplevel', '--verify', '-q', 'HEAD'], { okCodes: [0, 1] }).split('\n');
  } catch (e) {
    if (e instanceof RepoError && e.missingGit) throw e;
    throw new RepoError(`not inside a git work tree: ${dir}`);
  }
  const top = lines[0]?.trim() ?? '';
  if (!top) throw new RepoError(`not inside a git work tree: ${dir}`);
  const head = lines[1]?.trim() || null;
  return { top, head };
}

export function findRepositoryRoot(dir: string): string {
  return topAndHead(dir).top;
}

function lineageOf(top: string, head: string | null): Digest {
  const roots = head ? git(top, ['rev-list', '--max-parents=0', 'HEAD']).split('\n').filter(Boolean) : [];
  return lineageDigest(roots);
}

export function repositoryLineage(root: string): Digest {
  const { top, head } = topAndHead(root);
  return lineageOf(top, head);
}

/** The work tree containing `dir` and its lineage, with one `rev-parse` for both (server start). */
export function locateRepository(dir: string): { readonly root: string; readonly lineage: Digest } {
  const { top, head } = topAndHead(dir);
  return { root: top, lineage: lineageOf(top, head) };
}

/**
 * The bytes a status record stands for. Symlinks contribute their target (what
 * git stores for them); a directory (a submodule or nested repository)
 * contributes nothing, because its inside is another repository's state.
 */
function currentBytes(top: string, path: Buffer): Uint8Array | string | null {
  const entry = lstatBelow(top, path);
  if (!entry) return null;
  const { abs, stats } = entry;
  if (stats.isFile()) return stats.size > REPO.checkoutMaxFileBytes ? hashFileStreaming(abs) : readFileSync(abs);
  if (stats.isSymbolicLink()) return readlinkSync(abs, { encoding: 'buffer' });
  if (stats.isDirectory()) return null;
  throw new RepoError(`not a regular file: ${path.toString('utf8')}`);
}

/**
 * `knownLineage`, when the caller already holds the repository's lineage (a
 * session freezes it), spares the walk of the whole history: the digest is
 * the same whenever it is the lineage, and HEAD's object id pins the history.
 */
export function captureSnapshot(root: string, knownLineage?: Digest): Snapshot {
  const { top, head } = topAndHead(root);
  const lineage = knownLineage ?? lineageOf(top, head);
  const stage = gitBytes(top, ['ls-files', '--stage', '-z']);
  // --no-renames: rename detection follows user config (status.renames), and
  // the digest must not depend on it.
  const status = gitBytes(top, STATUS_ARGS);
  return digestSnapshot(top, head, lineage, stage, status);
}

const STATUS_ARGS = ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'];

/** captureSnapshot with git run asynchronously (the same digest; for background work), and the snapshot's listing. */
export async function captureSnapshotAsync(root: string): Promise<Snapshot & { readonly listing: SnapshotListing }> {
  const lines = (await gitBytesAsync(root, ['rev-parse', '--show-toplevel', '--verify', '-q', 'HEAD'], { okCodes: [0, 1] })).toString('utf8').split('\n');
  const top = lines[0]?.trim() ?? '';
  if (!top) throw new RepoError(`not inside a git work tree: ${root}`);
  const head = lines[1]?.trim() || null;
  const roots = head ? (await gitBytesAsync(top, ['rev-list', '--max-parents=0', 'HEAD'])).toString('utf8').split('\n').filter(Boolean) : [];
  const [stage, status] = await Promise.all([gitBytesAsync(top, ['ls-files', '--stage', '-z']), gitBytesAsync(top, STATUS_ARGS)]);
  return { ...digestSnapshot(top, head, lineageDigest(roots), stage, status), listing: new RawListing(stage, status) };
}

function digestSnapshot(top: string, head: string | null, lineage: Digest, stage: Buffer, status: Buffer): Snapshot {
  const tracked = new RawHasher().update('needle-tracked-changes\n').update(stage);
  const untracked = new RawHasher().update('needle-untracked\n');
  for (const record of splitNul(status)) {
    if (record.length < 4 || record[2] !== 0x20) throw new RepoError(`unexpected git status record: ${record.toString('utf8')}`);
    const into = record[0] === 0x3f && record[1] === 0x3f ? untracked : tracked;
    into.update(record).update(NUL);
    const bytes = currentBytes(top, record.subarray(3));
    if (bytes !== null) into.update(bytes);
    into.update(NUL);
  }
  const trackedDigest = tracked.digest();
  const untrackedDigest = untracked.digest();
  const sourceDigest = canonical('source-snapshot')
    .u16(SNAPSHOT_LAYOUT_VERSION)
    .digest(lineage)
    .text(head ?? '')
    .digest(trackedDigest)
    .digest(untrackedDigest)
    .finish();
  return { root: top, head, lineage, sourceDigest, trackedDigest, untrackedDigest };
}
