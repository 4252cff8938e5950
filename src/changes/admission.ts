// Admission of an observed patch (SPEC §14). The patch is what the filesystem
// shows, never what the implementer says; one violation rejects the whole
// patch (nothing is filtered out) and the rejection names its rule.
import { CHANGE } from '../core/limits.js';
import { blake3 } from '../core/digest.js';
import type { FileChange } from '../repo/checkout.js';
import { isProtectedPath, normalizeRelativePath } from '../repo/paths.js';
import { containsSecret, type Secret } from '../workers/redact.js';
import { inScope } from './request.js';
import { ChangeError, oneLine, type AdmissionRule, type AllowedPath, type PatchFile } from './model.js';

export { ADMISSION_RULES, type AdmissionRule } from './model.js';

function reject(rule: AdmissionRule, message: string): never {
  throw new ChangeError(rule, oneLine(`patch rejected (${rule}): ${message}`));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isCleanUtf8(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** `secrets`: the values of the variables the implementer was given; a patch holding one is refused (never stored). */
export function admitPatch(changes: readonly FileChange[], allowed: readonly AllowedPath[], secrets: readonly Secret[] = []): PatchFile[] {
  if (changes.length === 0) reject('no_change', 'the implementer changed no file');
  if (changes.length > CHANGE.maxChangedFiles)
    reject('too_many_files', `${changes.length} files changed, at most ${CHANGE.maxChangedFiles} allowed`);
  if (changes.some((c) => c.path === '.git')) reject('protected_path', ".git of the checkout was modified (config, HEAD, refs, info, hooks or objects)");
  const sorted = [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const c of sorted) {
    if (normalizeRelativePath(c.path) !== c.path) reject('unsafe_path', JSON.stringify(c.path.slice(0, 200)));
    if (isProtectedPath(c.path)) reject('protected_path', `${c.path} is protected`);
    if (!inScope(c.path, allowed)) reject('out_of_scope', `${c.path} is outside the allowed paths`);
    if (c.kind === 'symlink') reject('symlink', `${c.path} is a symbolic link`);
    if (c.kind !== 'file') reject('special_file', `${c.path} is not a regular file`);
    if (c.modeChange)
      reject('mode_change', `${c.path} ${c.modeChange.after ? 'became' : 'is no longer'} executable; a patch carries file contents only, never modes`);
    const leaked = c.after ? containsSecret(c.after, secrets) : null;
    if (leaked) reject('credential', `${c.path} contains the value of ${leaked.name}`);
    for (const side of [c.before, c.after])
      if (side && !isCleanUtf8(side)) reject('not_utf8', `${c.path} is not NUL-free UTF-8 text`);
  }
  const afterBytes = sorted.reduce((n, c) => n + (c.after?.length ?? 0), 0);
  const totalBytes = sorted.reduce((n, c) => n + (c.before?.length ?? 0) + (c.after?.length ?? 0), 0);
  if (afterBytes > CHANGE.maxAfterBytes)
    reject('after_too_large', `${afterBytes} bytes after the change, at most ${CHANGE.maxAfterBytes}`);
  if (totalBytes > CHANGE.maxBeforeAfterBytes)
    reject('patch_too_large', `${totalBytes} bytes before and after, at most ${CHANGE.maxBeforeAfterBytes}`);

  const files: PatchFile[] = sorted.map((c) => ({
    path: c.path,
    operation: c.op,
    before: c.op === 'create' ? null : c.before,
    after: c.op === 'delete' ? null : c.after,
    beforeDigest: c.op === 'create' || !c.before ? null : blake3(c.before),
    afterDigest: c.op === 'delete' || !c.after ? null : blake3(c.after),
  }));
  for (const f of files)
    if ((f.operation !== 'create') !== (f.before !== null) || (f.operation !== 'delete') !== (f.after !== null))
      reject('special_file', `${f.path} has an inconsistent ${f.operation} record`);
  // Empty files all have the same bytes: deleting one and creating another is not a rename.
  const deleted = new Map(files.filter((f) => f.operation === 'delete' && f.before!.length > 0).map((f) => [f.beforeDigest, f.path]));
  for (const f of files) {
    const from = f.operation === 'create' ? deleted.get(f.afterDigest) : undefined;
    if (from !== undefined) reject('rename_like', `${f.path} recreates the deleted ${from} byte for byte`);
  }
  return files;
}
