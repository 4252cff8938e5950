// The patch is what the filesystem says changed (SPEC §14), never a model's
// account of it: diffCheckout compares the checkout with the base Needle
// remembered, and applyPatchToCheckout replays a patch only onto the exact
// bytes it was derived from.
import { lstatSync, mkdirSync, readdirSync, readlinkSync, unlinkSync, writeFileSync, type BigIntStats } from 'node:fs';
import { dirname, join } from 'node:path';
import { blake3 } from '../core/digest.js';
import { REPO } from '../core/limits.js';
import { baseOf, digestGitDir, readBaseBytes, readBounded, type BaseEntry, type Checkout, type CheckoutBase, type FileChange } from './checkout-base.js';
import { RepoError } from './git.js';
import { isProtectedPath, normalizeRelativePath } from './paths.js';

type Kind = FileChange['kind'];

interface Found {
  readonly kind: Kind;
  readonly stats: BigIntStats;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function kindOf(st: BigIntStats): Kind | 'dir' {
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return st.isSymbolicLink() ? 'symlink' : 'other';
}

/** Every non-directory entry under the checkout except its own top-level `.git`. */
function walk(c: Checkout, base: CheckoutBase): Map<string, Found> {
  const found = new Map<string, Found>();
  let created = 0;
  const visit = (rel: string) => {
    for (const name of readdirSync(rel ? join(c.dir, rel) : c.dir, { encoding: 'buffer' })) {
      let text: string;
      try {
        text = utf8.decode(name);
      } catch {
        throw new RepoError(`file name is not UTF-8 in ${rel || '.'}`);
      }
      if (!rel && text === '.git') continue;
      const path = rel ? `${rel}/${text}` : text;
      const stats = lstatSync(join(c.dir, path), { bigint: true });
      const kind = kindOf(stats);
      if (kind === 'dir') {
        visit(path);
        continue;
      }
      if (!base.entries.has(path) && ++created > REPO.diffMaxChangedPaths) {
        throw new RepoError(`more than ${REPO.diffMaxChangedPaths} changed paths in the checkout`);
      }
      found.set(path, { kind, stats });
    }
  };
  visit('');
  return found;
}

/** Unchanged by fingerprint alone: same inode, size and a ctime older than the trust marker. */
function provablyUnchanged(now: Found, was: BaseEntry, base: CheckoutBase): boolean {
  return (
    now.kind === was.kind &&
    now.stats.ino === was.ino &&
    now.stats.size === BigInt(was.size) &&
    now.stats.ctimeNs === was.ctimeNs &&
    was.ctimeNs < base.trustStatBefore
  );
}

const executable = (f: Found): boolean => f.kind === 'file' && (f.stats.mode & 0o111n) !== 0n;

function currentBytes(c: Checkout, path: string, kind: Kind): Buffer | null {
  if (kind === 'other') return null;
  const abs = join(c.dir, path);
  if (kind === 'symlink') return readlinkSync(abs, { encoding: 'buffer' });
  const bytes = readBounded(abs, REPO.checkoutMaxFileBytes);
  if (!bytes) throw new RepoError(`cannot read ${path}: larger than ${REPO.checkoutMaxFileBytes} bytes or no longer a regular file`);
  return bytes;
}

export function diffCheckout(c: Checkout): FileChange[] {
  const base = baseOf(c);
  const found = walk(c, base);
  const paths = [...new Set([...found.keys(), ...base.entries.keys()])].sort();
  const changes: FileChange[] = [];
  let held = 0;
  const add = (change: FileChange) => {
    held += (change.before?.length ?? 0) + (change.after?.length ?? 0);
    if (held > REPO.diffMaxHeldBytes) throw new RepoError(`checkout changes exceed ${REPO.diffMaxHeldBytes} bytes`);
    if (changes.push(change) > REPO.diffMaxChangedPaths) {
      throw new RepoError(`more than ${REPO.diffMaxChangedPaths} changed paths in the checkout`);
    }
  };
  for (const path of paths) {
    const now = found.get(path);
    const was = base.entries.get(path);
    if (now && was) {
      if (provablyUnchanged(now, was, base)) continue;
      const after = currentBytes(c, path, now.kind);
      const modeChanged = now.kind === 'file' && was.kind === 'file' && executable(now) !== was.executable;
      const modeChange = modeChanged ? { modeChange: { before: was.executable, after: executable(now) } } : {};
      if (now.kind === was.kind && after !== null && blake3(after) === was.digest && !modeChanged) continue;
      add({ path, op: 'update', before: readBaseBytes(c, path, was), after, kind: now.kind, ...modeChange });
    } else if (now) {
      const modeChange = executable(now) ? { modeChange: { before: null, after: true } } : {};
      add({ path, op: 'create', before: null, after: currentBytes(c, path, now.kind), kind: now.kind, ...modeChange });
    } else if (was) {
      add({ path, op: 'delete', before: readBaseBytes(c, path, was), after: null, kind: was.kind });
    }
  }
  // The checkout's own repository: nothing there may change (config, HEAD,
  // refs, info/ and hooks would be obeyed by the next git command run there).
  if (digestGitDir(c.dir) !== base.gitDigest) changes.unshift({ path: '.git', op: 'update', before: null, after: null, kind: 'other' });
  return changes;
}

/** False when an existing ancestor of `rel` is anything but a real directory (a symlink would redirect the write). */
function ancestorsAreDirectories(root: string, rel: string): boolean {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const st = lstatSync(join(root, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (!st) return true;
    if (!st.isDirectory()) return false;
  }
  return true;
}

function checkShape(change: FileChange): void {
  const { path, op, before, after } = change;
  if (normalizeRelativePath(path) !== path || isProtectedPath(path)) throw new RepoError(`unsafe patch path: ${path}`);
  if (change.kind !== 'file') throw new RepoError(`cannot materialize a ${change.kind}: ${path}`);
  const wellFormed =
    (op === 'create' && before === null && after !== null) ||
    (op === 'update' && before !== null && after !== null) ||
    (op === 'delete' && before !== null && after === null);
  if (!wellFormed) throw new RepoError(`malformed ${op} for ${path}`);
}

export function applyPatchToCheckout(c: Checkout, changes: readonly FileChange[]): void {
  const ordered = [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Check every base first, so a refused patch leaves the checkout untouched.
  for (let i = 0; i < ordered.length; i++) {
    const change = ordered[i]!;
    checkShape(change);
    if (i > 0 && ordered[i - 1]!.path === change.path) throw new RepoError(`duplicate patch path: ${change.path}`);
    const abs = join(c.dir, change.path);
    if (!ancestorsAreDirectories(c.dir, change.path)) throw new RepoError(`base mismatch: ${change.path}`);
    const matches =
      change.op === 'create'
        ? lstatSync(abs, { throwIfNoEntry: false }) === undefined
        : readBounded(abs, change.before!.length)?.equals(change.before!) === true;
    if (!matches) throw new RepoError(`base mismatch: ${change.path}`);
  }
  for (const change of ordered) {
    const abs = join(c.dir, change.path);
    if (change.op === 'delete') {
      unlinkSync(abs);
    } else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, change.after!, { flag: change.op === 'create' ? 'wx' : 'w' });
    }
  }
  for (const change of ordered) {
    const abs = join(c.dir, change.path);
    const ok =
      change.op === 'delete'
        ? lstatSync(abs, { throwIfNoEntry: false }) === undefined
        : readBounded(abs, change.after!.length)?.equals(change.after!) === true;
    if (!ok) throw new RepoError(`materialization failed: ${change.path}`);
  }
}
