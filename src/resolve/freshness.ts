// Dependency freshness (SPEC §9): is every file a certificate rests on still
// byte-identical? A (path, size, mtime, ctime, inode) → digest cache keeps warm
// lookups cheap; an entry is used only while every stat field is unchanged
// and the file's mtime was already old when the digest was taken (a write in
// the same clock tick could otherwise hide behind identical stats).
import { lstatSync, readFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { blake3, type Digest } from '../core/digest.js';
import { EVIDENCE_STORE } from '../core/limits.js';
import type { Dependency } from '../validate/snapshot-reader.js';
import { signatureOf, vouches, type StatSignature } from '../repo/stat-signature.js';

interface Entry extends StatSignature {
  readonly digest: Digest;
  /** Wall-clock ms when the digest was computed. */
  readonly hashedAtMs: number;
}

/** What a resolution observed: each file's digest (null: gone), or CHANGED when it moved while observed. */
export const CHANGED = 'changed' as const;
export type Observed = Map<string, Digest | null | typeof CHANGED>;

export class FreshnessChecker {
  private readonly cache = new Map<string, Entry>();
  private readonly observers = new Set<Observed>();
  /** Number of whole-file digests computed (not served from the stat cache). */
  hashes = 0;

  constructor(readonly root: string) {}

  /**
   * Records every digest asked for until the returned stop() (resolve/hit-memo.ts:
   * a decision is reusable while the files it looked at read the same).
   */
  observe(): { readonly seen: Observed; stop(): void } {
    const seen: Observed = new Map();
    this.observers.add(seen);
    return { seen, stop: () => void this.observers.delete(seen) };
  }

  /** Current digest of a regular, non-symlink file, or null when it is gone or not a regular file. */
  digestOf(path: string): Digest | null {
    const digest = this.currentDigest(path);
    for (const seen of this.observers) {
      const before = seen.get(path);
      seen.set(path, before === undefined || before === digest ? digest : CHANGED);
    }
    return digest;
  }

  private currentDigest(path: string): Digest | null {
    const abs = join(this.root, path);
    let st: BigIntStats;
    try {
      st = lstatSync(abs, { bigint: true });
    } catch {
      this.cache.delete(path);
      return null;
    }
    if (!st.isFile() || st.size > BigInt(EVIDENCE_STORE.maxValidatedFileBytes)) {
      this.cache.delete(path);
      return null;
    }
    const hit = this.cache.get(path);
    if (hit && vouches(hit, signatureOf(st), hit.hashedAtMs)) return hit.digest;
    // Real wall-clock time: it is compared with file mtimes, not with the engine's clock.
    const hashedAtMs = Date.now();
    let bytes: Buffer;
    try {
      bytes = readFileSync(abs);
    } catch {
      this.cache.delete(path);
      return null;
    }
    this.hashes++;
    const digest = blake3(bytes);
    this.cache.set(path, { ...signatureOf(st), digest, hashedAtMs });
    return digest;
  }

  /** Paths whose current bytes differ from the recorded digest (deleted files included). */
  changed(deps: readonly Dependency[]): string[] {
    return deps.filter((d) => this.digestOf(d.path) !== d.digest).map((d) => d.path);
  }

  isFresh(deps: readonly Dependency[]): boolean {
    return deps.every((d) => this.digestOf(d.path) === d.digest);
  }
}
