// What Needle remembers about a checkout's base, outside anything a worker can
// write: per path the kind, BLAKE3 digest, git blob id and a stat fingerprint.
// Base bytes are read back from the checkout's own git objects and accepted
// only when they hash to the remembered digest, so a worker that rewrites
// `.git` can make a diff fail but never make it lie.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { blake3, type Digest } from '../core/digest.js';
import { RepoError } from './git.js';
import type { Snapshot } from './snapshot.js';

export type CheckoutPurpose = 'worker' | 'change' | 'verify';

export interface SkippedPath {
  readonly path: string;
  readonly reason: string;
}

export interface Checkout {
  runDir: string;
  /** The self-contained copy; the only directory a worker may write. */
  dir: string;
  home: string;
  tmp: string;
  purpose: CheckoutPurpose;
  /** The source snapshot the copy was taken from (re-checked after copying). */
  snapshot: Snapshot;
  /** Every copied path with the BLAKE3 of its bytes (of its target, for a symlink). */
  manifest: ReadonlyMap<string, Digest>;
  /** Source paths that were not copied (submodules, escaping symlinks, oversized files, …) and why. */
  skipped: readonly SkippedPath[];
}

export interface FileChange {
  path: string;
  op: 'create' | 'update' | 'delete';
  before: Buffer | null;
  after: Buffer | null;
  kind: 'file' | 'symlink' | 'other';
  /**
   * Set when the executable bit differs from the base (an update) or is set
   * on a created file: patches carry contents only, so admission refuses it
   * (rule `mode_change`) instead of losing it silently.
   */
  modeChange?: { readonly before: boolean | null; readonly after: boolean };
}

export interface BaseEntry {
  readonly kind: 'file' | 'symlink';
  readonly digest: Digest;
  readonly oid: string;
  readonly size: number;
  /** Any executable bit set (regular files only). */
  readonly executable: boolean;
  readonly ino: bigint;
  readonly ctimeNs: bigint;
}

export interface CheckoutBase {
  readonly entries: ReadonlyMap<string, BaseEntry>;
  /**
   * ctime of a marker written after the copy was verified. A fingerprint is
   * trusted only when strictly older: the kernel stamps ctime from a coarse
   * clock, so a write in the same tick as the copy could otherwise keep it.
   */
  readonly trustStatBefore: bigint;
  /** Digest of the checkout's own `.git` once the base commit was made (see digestGitDir). */
  readonly gitDigest: Digest;
}

const bases = new WeakMap<Checkout, CheckoutBase>();

export function registerBase(c: Checkout, base: CheckoutBase): void {
  bases.set(c, base);
}

export function baseOf(c: Checkout): CheckoutBase {
  const base = bases.get(c);
  if (!base) throw new RepoError(`not a checkout created by this process: ${c.dir}`);
  return base;
}

/** The object id git gives these bytes as a blob (SHA-1 object format). */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** A regular file's bytes, or null when absent, not a regular file (symlinks not followed) or larger than maxBytes. */
export function readBounded(path: string, maxBytes: number): Buffer | null {
  let fd: number;
  try {
    // No symlink at the last step and no blocking on a FIFO planted in place of an object.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** The base bytes of `path` (a symlink's target for a symlink), verified against the manifest. */
export function readBaseBytes(c: Checkout, path: string, entry: BaseEntry): Buffer {
  const objectPath = join(c.dir, '.git', 'objects', entry.oid.slice(0, 2), entry.oid.slice(2));
  // Deflate can grow incompressible data slightly; anything far larger is not our object.
  const compressed = readBounded(objectPath, entry.size + (entry.size >> 6) + 1024);
  if (!compressed) throw new RepoError(`base bytes of ${path} are gone from the checkout`);
  let raw: Buffer;
  try {
    raw = inflateSync(compressed, { maxOutputLength: entry.size + 64 });
  } catch {
    throw new RepoError(`base bytes of ${path} were altered in the checkout`);
  }
  const headerEnd = raw.indexOf(0);
  const bytes = raw.subarray(headerEnd + 1);
  if (headerEnd < 0 || raw.subarray(0, headerEnd).toString('latin1') !== `blob ${entry.size}` || blake3(bytes) !== entry.digest) {
    throw new RepoError(`base bytes of ${path} were altered in the checkout`);
  }
  return Buffer.from(bytes);
}

/**
 * What a checkout's `.git` holds, as one digest: every entry's path, kind and
 * mode, the bytes of every file outside `objects/` (config, HEAD, refs, info,
 * hooks, …) and a stat fingerprint (size, inode, ctime) of every object file,
 * whose contents are verified against the manifest when read anyway. Only the
 * index is left out: it is a stat cache git itself rewrites on read-only
 * commands (`git status`), git never executes anything from it, and the diff
 * never reads it.
 */
export function digestGitDir(checkoutDir: string): Digest {
  const gitDir = join(checkoutDir, '.git');
  const parts: string[] = [];
  const visit = (rel: string) => {
    const abs = rel ? join(gitDir, rel) : gitDir;
    const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    if (!st) {
      parts.push(`${rel}\0absent`);
      return;
    }
    const head = `${rel}\0${st.mode.toString(8)}`;
    if (st.isDirectory()) {
      parts.push(`${head}\0dir`);
      for (const name of readdirSync(abs).sort()) {
        const child = rel ? `${rel}/${name}` : name;
        if (child === 'index' || child === 'index.lock') continue;
        visit(child);
      }
    } else if (st.isSymbolicLink()) {
      parts.push(`${head}\0link\0${readlinkSync(abs)}`);
    } else if (st.isFile() && rel.startsWith('objects/')) {
      parts.push(`${head}\0object\0${st.size}\0${st.ino}\0${st.ctimeNs}`);
    } else if (st.isFile()) {
      const bytes = readBounded(abs, 64 * 1024 * 1024);
      parts.push(`${head}\0file\0${bytes ? blake3(bytes) : `unreadable ${st.size} ${st.ctimeNs}`}`);
    } else {
      parts.push(`${head}\0other`);
    }
  };
  visit('');
  return blake3(Buffer.from(parts.join('\n'), 'utf8'));
}
