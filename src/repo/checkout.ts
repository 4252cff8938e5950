// Disposable checkouts (SPEC §7, §14): a self-contained copy of the snapshot in
// a run directory, with its own fresh git repository so tools that run
// `git diff` work, and no pointer back into the user's repository — unlike a
// linked worktree, whose `.git` file lets any process inside rewrite the
// user's config and hooks.
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, posix, sep } from 'node:path';
import { blake3, type Digest } from '../core/digest.js';
import { REPO } from '../core/limits.js';
import { digestGitDir, gitBlobId, registerBase, type BaseEntry, type Checkout, type CheckoutPurpose, type SkippedPath } from './checkout-base.js';
import { processAlive } from '../core/process.js';
import { git, gitBytes, LIST_WORKTREE_FILES, RepoError } from './git.js';
import { lstatBelow, normalizeRelativePath } from './paths.js';
import { captureSnapshot, splitNul, type Snapshot } from './snapshot.js';

export type { Checkout, CheckoutPurpose, FileChange, SkippedPath } from './checkout-base.js';
export { applyPatchToCheckout, diffCheckout } from './checkout-diff.js';

const RUN_DIR_NAME = /^(worker|change|verify)-(\d+)-\d+-[0-9a-f]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

type CopiedEntry = Omit<BaseEntry, 'ino' | 'ctimeNs' | 'executable'>;

function decodeName(raw: Buffer): string | null {
  try {
    return utf8.decode(raw);
  } catch {
    return null;
  }
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Copies every tracked and untracked non-ignored path's current bytes from `top` into `dir`. */
function copyWorkTree(top: string, dir: string): { copied: Map<string, CopiedEntry>; skipped: SkippedPath[] } {
  const copied = new Map<string, CopiedEntry>();
  const skipped: SkippedPath[] = [];
  const ancestors = new Map<string, boolean>();
  const madeDirs = new Set<string>();
  const ensureParent = (dest: string) => {
    const parent = dirname(dest);
    if (!madeDirs.has(parent)) mkdirSync(parent, { recursive: true });
    madeDirs.add(parent);
  };
  const links: { rel: string; target: Buffer }[] = [];
  const listing = gitBytes(top, LIST_WORKTREE_FILES);
  for (const raw of new Set(splitNul(listing).map((b) => b.toString('latin1')))) {
    const bytes = Buffer.from(raw, 'latin1');
    const text = decodeName(bytes);
    if (text === null) {
      skipped.push({ path: bytes.toString('utf8'), reason: 'file name is not UTF-8' });
      continue;
    }
    // An untracked nested repository is listed as `dir/`.
    const listed = text.endsWith('/') ? text.slice(0, -1) : text;
    const rel = normalizeRelativePath(listed);
    if (rel === null || rel !== listed || rel.split('/').some((s) => s.toLowerCase() === '.git')) {
      skipped.push({ path: text, reason: 'unsafe path' });
      continue;
    }
    const entry = lstatBelow(top, rel, ancestors);
    if (!entry) continue; // deleted in the work tree, so absent from the dirty state too
    const { abs, stats } = entry;
    if (stats.isFile()) {
      if (stats.size > REPO.checkoutMaxFileBytes) {
        skipped.push({ path: rel, reason: `larger than ${REPO.checkoutMaxFileBytes} bytes` });
        continue;
      }
      const content = readFileSync(abs);
      const dest = join(dir, rel);
      ensureParent(dest);
      writeFileSync(dest, content, { flag: 'wx', mode: stats.mode & 0o111 ? 0o755 : 0o644 });
      copied.set(rel, { kind: 'file', digest: blake3(content), oid: gitBlobId(content), size: content.length });
    } else if (stats.isSymbolicLink()) {
      links.push({ rel, target: readlinkSync(abs, { encoding: 'buffer' }) });
    } else if (stats.isDirectory()) {
      skipped.push({ path: rel, reason: 'submodule or nested repository' });
    } else {
      skipped.push({ path: rel, reason: 'not a regular file or symlink' });
    }
  }
  // Links last, so no file above was written through one.
  const placed: { rel: string; target: Buffer }[] = [];
  for (const link of links) {
    const text = decodeName(link.target);
    const joined = text === null || posix.isAbsolute(text) ? null : posix.join(posix.dirname(link.rel), text);
    if (joined !== null && (joined === '.' || normalizeRelativePath(joined) === joined)) {
      const dest = join(dir, link.rel);
      ensureParent(dest);
      symlinkSync(link.target, dest);
      placed.push(link);
    } else {
      skipped.push({ path: link.rel, reason: 'symlink points outside the repository' });
    }
  }
  // Textual containment is not enough (`a -> .` then `b -> a/..`), and a link
  // can resolve through one placed after it; ask the kernel once all exist.
  const realDir = realpathSync.native(dir);
  for (const { rel, target } of placed) {
    const dest = join(dir, rel);
    let real: string;
    try {
      real = realpathSync.native(dest);
    } catch {
      real = realDir; // dangling: removing other links only leaves more dangling
    }
    if (!isInside(real, realDir)) {
      unlinkSync(dest);
      skipped.push({ path: rel, reason: 'symlink points outside the repository' });
      continue;
    }
    copied.set(rel, { kind: 'symlink', digest: blake3(target), oid: gitBlobId(target), size: target.length });
  }
  return { copied, skipped };
}

function configValue(value: string): string {
  if (/[\n\r\0]/.test(value)) throw new RepoError(`unusable run directory path: ${JSON.stringify(value)}`);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** `git init` plus one base commit of exactly the copied bytes. */
function commitBase(dir: string, hooksDir: string, snapshot: Snapshot, copied: ReadonlyMap<string, CopiedEntry>): void {
  git(dir, ['init', '-q', '--template=', '--object-format=sha1', '--initial-branch=main', '.']);
  const gitDir = join(dir, '.git');
  // Attributes off: blobs must be the bytes on disk (no EOL conversion, no
  // LFS or clean filters), so the base commit can serve as the byte record.
  mkdirSync(join(gitDir, 'info'), { recursive: true });
  writeFileSync(join(gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n');
  appendFileSync(
    join(gitDir, 'config'),
    [
      '[user]',
      '\tname = Needle checkout',
      '\temail = checkout@needle.invalid',
      '[core]',
      `\thooksPath = ${configValue(hooksDir)}`,
      '\tautocrlf = false',
      '\tfsmonitor = false',
      '[commit]',
      '\tgpgsign = false',
      '[gc]',
      '\tauto = 0',
      '',
    ].join('\n'),
  );
  // git deflates every loose object with a fresh zlib state; a larger malloc
  // top pad keeps glibc from returning and re-faulting that memory per object,
  // which otherwise dominates the cost of a checkout (several-fold on VMs).
  git(dir, ['add', '--all', '--force'], { env: { MALLOC_TOP_PAD_: String(32 * 1024 * 1024) } });
  git(dir, ['commit', '-q', '--no-verify', '--allow-empty', '-m', `Needle base snapshot ${snapshot.sourceDigest}`]);
  const indexed = new Map<string, string>();
  for (const record of splitNul(gitBytes(dir, ['ls-files', '--stage', '-z']))) {
    const line = record.toString('utf8');
    const tab = line.indexOf('\t');
    indexed.set(line.slice(tab + 1), line.split(' ')[1] ?? '');
  }
  const matches = indexed.size === copied.size && [...copied].every(([rel, e]) => indexed.get(rel) === e.oid);
  if (!matches) throw new RepoError('checkout base commit does not match the copied bytes');
}

function ownerWritable(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return;
  try {
    chmodSync(path, 0o700);
    for (const name of readdirSync(path)) ownerWritable(join(path, name));
  } catch {
    // best effort: the removal that follows reports what is left
  }
}

/** Removes a run directory, restoring write permission a worker may have taken away; null when gone. */
function removeTree(path: string): string | null {
  const attempt = () => rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  try {
    attempt();
  } catch {
    ownerWritable(path);
    try {
      attempt();
    } catch (e) {
      return (e as Error).message.split('\n')[0] ?? 'removal failed';
    }
  }
  return lstatSync(path, { throwIfNoEntry: false }) ? `still present after removal: ${path}` : null;
}

export function createCheckout(repoRoot: string, runsRoot: string, purpose: CheckoutPurpose): Checkout {
  const snapshot = captureSnapshot(repoRoot);
  const top = snapshot.root;
  mkdirSync(runsRoot, { recursive: true });
  const realRuns = realpathSync.native(runsRoot);
  // `..` from a checkout must never lead into the repository it copies.
  if (isInside(realRuns, realpathSync.native(top))) throw new RepoError(`runs directory is inside the repository: ${runsRoot}`);

  const runDir = join(realRuns, `${purpose}-${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}`);
  mkdirSync(runDir, { mode: 0o700 });
  try {
    writeFileSync(join(runDir, 'owner.json'), JSON.stringify({ pid: process.pid, started: Date.now(), purpose }));
    const dir = join(runDir, 'checkout');
    const home = join(runDir, 'home');
    const tmp = join(runDir, 'tmp');
    const hooks = join(runDir, 'hooks');
    for (const d of [dir, home, tmp, hooks]) mkdirSync(d);
    chmodSync(hooks, 0o555);

    const { copied, skipped } = copyWorkTree(top, dir);
    const entries = new Map<string, BaseEntry>();
    for (const [rel, e] of copied) {
      const dest = join(dir, rel);
      const bytes = e.kind === 'file' ? readFileSync(dest) : readlinkSync(dest, { encoding: 'buffer' });
      if (blake3(bytes) !== e.digest) throw new RepoError('snapshot changed while copying');
      const st = lstatSync(dest, { bigint: true });
      entries.set(rel, { ...e, executable: e.kind === 'file' && (st.mode & 0o111n) !== 0n, ino: st.ino, ctimeNs: st.ctimeNs });
    }
    if (captureSnapshot(top).sourceDigest !== snapshot.sourceDigest) throw new RepoError('snapshot changed while copying');
    commitBase(dir, hooks, snapshot, copied);
    const gitDigest = digestGitDir(dir);

    const marker = join(runDir, 'base-verified');
    writeFileSync(marker, snapshot.sourceDigest);
    const trustStatBefore = lstatSync(marker, { bigint: true }).ctimeNs;
    const manifest = new Map<string, Digest>([...entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, e]) => [p, e.digest]));
    const checkout: Checkout = { runDir, dir, home, tmp, purpose, snapshot, manifest, skipped };
    registerBase(checkout, { entries, trustStatBefore, gitDigest });
    return checkout;
  } catch (e) {
    removeTree(runDir);
    if (e instanceof RepoError) throw e;
    throw new RepoError(`checkout failed: ${(e as Error).message.split('\n')[0]}`);
  }
}

export function disposeCheckout(c: Checkout): { removed: boolean; error: string | null } {
  const error = removeTree(c.runDir);
  return { removed: error === null, error };
}

function ownerPid(runDir: string): number | null {
  try {
    const { pid } = JSON.parse(readFileSync(join(runDir, 'owner.json'), 'utf8')) as { pid?: unknown };
    return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}


/** Removes run directories left by processes that no longer exist; anything else is left alone. */
export function sweepOrphanRuns(runsRoot: string): { removed: string[] } {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(runsRoot);
  } catch {
    return { removed };
  }
  for (const name of names.sort()) {
    const match = RUN_DIR_NAME.exec(name);
    const runDir = join(runsRoot, name);
    if (!match || !lstatSync(runDir, { throwIfNoEntry: false })?.isDirectory()) continue;
    // The name carries the pid too, covering a crash before owner.json was written.
    if (processAlive(ownerPid(runDir) ?? Number(match[2]))) continue;
    if (removeTree(runDir) === null) removed.push(runDir);
  }
  return { removed };
}
