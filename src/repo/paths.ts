// Repository-relative paths arrive from models, MCP arguments and git output.
// They are normalized once here; everything downstream handles only the
// canonical `a/b/c` form, which cannot name anything above the repository.
import { lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { blake3, type Digest } from '../core/digest.js';
import { CHANGE } from '../core/limits.js';

const DRIVE_PREFIX = /^[A-Za-z]:/;

/** Canonical `a/b` form of a relative path, or null when it is empty, absolute or climbs out. */
export function normalizeRelativePath(p: string): string | null {
  if (p.includes('\0')) return null;
  const slashed = p.replace(/\\/g, '/');
  if (slashed.startsWith('/') || DRIVE_PREFIX.test(slashed)) return null;
  const parts: string[] = [];
  for (const part of slashed.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return null;
    parts.push(part);
  }
  return parts.length > 0 ? parts.join('/') : null;
}

/** Absolute real path of `rel` when it is a regular file whose real location stays inside `root`. */
export function resolveInside(root: string, rel: string): string | null {
  const normalized = normalizeRelativePath(rel);
  if (normalized === null) return null;
  try {
    const realRoot = realpathSync.native(root);
    const real = realpathSync.native(join(realRoot, normalized));
    if (!real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) return null;
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/** The digest of `rel`'s bytes now, when it is a regular file inside `root`; null when it is gone, outside or unreadable. */
export function repoFileDigest(root: string, rel: string): Digest | null {
  const abs = resolveInside(root, rel);
  if (abs === null) return null;
  try {
    return blake3(readFileSync(abs));
  } catch {
    return null;
  }
}

const PROTECTED = new Set<string>(CHANGE.protectedSegments.map((s) => s.toLowerCase()));

/** True when any segment is a protected component (.git, node_modules, …), at any depth, in any case. */
export function isProtectedPath(rel: string): boolean {
  return rel.split(/[\\/]/).some((segment) => PROTECTED.has(segment.toLowerCase()));
}

export interface EntryBelow {
  /** Absolute path as bytes, so names that are not UTF-8 still reach the filesystem intact. */
  readonly abs: Buffer;
  readonly stats: Stats;
}

/**
 * lstat of `root/rel` without following a symlink or a non-directory on the
 * way down: a path whose parent was replaced by a symlink is absent here, as
 * it is for git. `dirs` caches ancestor verdicts across calls of one walk.
 */
export function lstatBelow(root: string, rel: string | Buffer, dirs: Map<string, boolean> = new Map()): EntryBelow | null {
  const base = Buffer.from(root.endsWith('/') ? root : `${root}/`);
  const relBytes = typeof rel === 'string' ? Buffer.from(rel) : rel;
  for (let i = relBytes.indexOf(0x2f); i > 0; i = relBytes.indexOf(0x2f, i + 1)) {
    const key = relBytes.subarray(0, i).toString('latin1');
    let isDir = dirs.get(key);
    if (isDir === undefined) {
      isDir = lstatSync(Buffer.concat([base, relBytes.subarray(0, i)]), { throwIfNoEntry: false })?.isDirectory() ?? false;
      dirs.set(key, isDir);
    }
    if (!isDir) return null;
  }
  const abs = Buffer.concat([base, relBytes]);
  const stats = lstatSync(abs, { throwIfNoEntry: false });
  return stats ? { abs, stats } : null;
}
