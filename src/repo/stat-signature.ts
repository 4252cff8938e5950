// When a file's stat may stand for bytes read earlier (racy-git rule). A
// digest or text taken from a file is reused only while every stat field is
// unchanged and the file's mtime was already older than the read by
// EVIDENCE_STORE.racyMtimeWindowMs: a write in the same clock tick as the
// read could otherwise hide behind an identical stat. One rule for the
// validators' freshness cache (resolve/freshness.ts), the analyzer's held
// worktree text (evidence/worktree-texts.ts) and git's settings files
// (repo/git-settings.ts).
import type { BigIntStats } from 'node:fs';
import { EVIDENCE_STORE } from '../core/limits.js';

/** What a file's lstat said (bigint: nanosecond times). */
export interface StatSignature {
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
  readonly dev: bigint;
}

export function signatureOf(st: BigIntStats): StatSignature {
  return { size: st.size, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, ino: st.ino, dev: st.dev };
}

/** Whether bytes read at wall-clock `readAtMs` after a stat `before` still stand for a file whose stat is now `now`. */
export function vouches(before: StatSignature, now: StatSignature, readAtMs: number): boolean {
  return (
    before.size === now.size &&
    before.mtimeNs === now.mtimeNs &&
    before.ctimeNs === now.ctimeNs &&
    before.ino === now.ino &&
    before.dev === now.dev &&
    settled(now, readAtMs)
  );
}

/** Whether the file's last write (mtime) was older than `readAtMs` by the racy window. */
export function settled(st: StatSignature, readAtMs: number): boolean {
  return Number(st.mtimeNs / 1_000_000n) + EVIDENCE_STORE.racyMtimeWindowMs < readAtMs;
}
