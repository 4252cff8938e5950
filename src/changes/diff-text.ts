// A reviewable unified diff of a stored patch. Each file gets one hunk: the
// common leading and trailing lines are trimmed and the differing middle is
// shown whole, with context. Not minimal, but exact and cheap at any size.
import { CHANGE_RUN } from '../core/limits.js';
import type { PatchFile } from './model.js';
import { clipUtf8 } from '../core/text.js';

function lines(bytes: Buffer | null): string[] {
  if (!bytes || bytes.length === 0) return [];
  const text = bytes.toString('utf8');
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function range(start: number, count: number): string {
  return count === 0 ? `${start},0` : count === 1 ? `${start + 1}` : `${start + 1},${count}`;
}

export function fileDiff(f: PatchFile): string {
  const a = lines(f.before);
  const b = lines(f.after);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let post = 0;
  while (post < a.length - pre && post < b.length - pre && a[a.length - 1 - post] === b[b.length - 1 - post]) post++;
  const ctx = CHANGE_RUN.diffContextLines;
  const from = Math.max(0, pre - ctx);
  const aEnd = Math.min(a.length, a.length - post + ctx);
  const bEnd = Math.min(b.length, b.length - post + ctx);
  const out = [
    `diff --needle a/${f.path} b/${f.path} (${f.operation})`,
    `--- ${f.before ? `a/${f.path}` : '/dev/null'}`,
    `+++ ${f.after ? `b/${f.path}` : '/dev/null'}`,
  ];
  const noNewline = (bytes: Buffer | null) => bytes !== null && bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a;
  if (a.length === b.length && pre === a.length) {
    out.push('(only the final newline differs)');
    return out.join('\n') + '\n';
  }
  out.push(`@@ -${range(from, aEnd - from)} +${range(from, bEnd - from)} @@`);
  for (let i = from; i < pre; i++) out.push(` ${a[i]}`);
  for (let i = pre; i < a.length - post; i++) out.push(`-${a[i]}`);
  if (noNewline(f.before) && post === 0 && a.length > pre) out.push('\\ No newline at end of file');
  for (let i = pre; i < b.length - post; i++) out.push(`+${b[i]}`);
  if (noNewline(f.after) && post === 0 && b.length > pre) out.push('\\ No newline at end of file');
  for (let i = b.length - post; i < bEnd; i++) out.push(` ${b[i]}`);
  return out.join('\n') + '\n';
}

export function patchDiff(files: readonly PatchFile[]): string {
  const text = files.map(fileDiff).join('');
  const mark = `\n[diff cut at ${CHANGE_RUN.maxDiffBytes} bytes]\n`;
  return Buffer.byteLength(text) > CHANGE_RUN.maxDiffBytes ? clipUtf8(text, CHANGE_RUN.maxDiffBytes) + mark : text;
}
