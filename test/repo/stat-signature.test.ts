// The racy-git rule shared by the freshness cache, the analyzer's held
// worktree text and git's settings files (src/repo/stat-signature.ts): a stat
// stands for bytes read earlier only when every field is the same and the
// file's last write was older than the read by the racy window.
import { describe, expect, it } from 'vitest';
import { EVIDENCE_STORE } from '../../src/core/limits.js';
import { settled, vouches, type StatSignature } from '../../src/repo/stat-signature.js';

const WINDOW = EVIDENCE_STORE.racyMtimeWindowMs;
const mtimeMs = 1_000_000;
const s: StatSignature = { size: 10n, mtimeNs: BigInt(mtimeMs) * 1_000_000n, ctimeNs: BigInt(mtimeMs) * 1_000_000n, ino: 7n, dev: 1n };
const show = (v: object): string => JSON.stringify(v, (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x));

describe('a stat signature', () => {
  it('vouches only when every field is the same', () => {
    const readAt = mtimeMs + WINDOW + 1;
    expect(vouches(s, s, readAt)).toBe(true);
    for (const changed of [{ size: 11n }, { mtimeNs: s.mtimeNs - 1n }, { ctimeNs: s.ctimeNs + 1n }, { ino: 8n }, { dev: 2n }]) {
      expect(vouches(s, { ...s, ...changed }, readAt), show(changed)).toBe(false);
    }
  });

  it('vouches only for a file last written before the racy window preceding the read', () => {
    expect(settled(s, mtimeMs + WINDOW + 1)).toBe(true);
    expect(settled(s, mtimeMs + WINDOW)).toBe(false);
    expect(vouches(s, s, mtimeMs + WINDOW)).toBe(false);
    expect(vouches(s, s, mtimeMs)).toBe(false);
  });
});
