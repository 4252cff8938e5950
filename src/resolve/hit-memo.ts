// Decided hits, remembered by their inputs (issue "warm hits"). A hit is a
// pure function of: the request (need and task), the evidence rows a plan
// reads (one counter, store/evidence/certificates.ts evidenceGeneration, moves
// on every write to them by any process), the source snapshot — a
// certificate may be snapshot-scoped, or a negative outcome says a candidate does
// not exist (any visible edit moves it: the worktree watch knows it without
// git), and the digest of every file the decision
// looked at — served and stale candidates' dependencies and negative outcomes'
// alike. While all of these read the same, re-planning would decide the same
// answer from the same bytes, so the remembered one is served after one row
// read and one stat per file (the FreshnessChecker hashes only what its stat
// rule finds suspect). A hit's cost therefore follows the size of its own
// evidence, not of the repository.
import type { Digest } from '../core/digest.js';
import type { EngineResult } from '../core/resolution.js';
import type { WorktreeState } from '../repo/worktree-watch.js';
import type { Db } from '../store/db.js';
import { evidenceGeneration } from '../store/evidence/certificates.js';
import { CHANGED, type FreshnessChecker, type Observed } from './freshness.js';

/** Remembered decisions per engine (each holds one result and its file list). */
const HIT_MEMO_ENTRIES = 128;

/** What a decision rested on besides the request. */
export interface HitInputs {
  readonly generation: number;
  /**
   * The worktree's snapshot digest when the decision was made, or — when the
   * watch was still taking it — the watch's token for that moment, resolved
   * to the digest once the watch knows it (and dropped if anything changed).
   */
  readonly snapshot: Digest | { readonly pending: number };
  readonly files: Observed;
}

interface Entry {
  readonly inputs: HitInputs;
  readonly result: EngineResult;
  /** Queues the bookkeeping rows of one more serving of this result. */
  readonly book: (nowMs: number, durationMs: number) => void;
}

/** Whether two readings of the worktree (digest or pending token) stand for the same moment's state. */
export function sameSnapshot(a: HitInputs['snapshot'] | null, b: HitInputs['snapshot'] | null): boolean {
  if (a === null || b === null) return false;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.pending === b.pending;
}

export class HitMemo {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Db,
    private readonly freshness: FreshnessChecker,
    private readonly worktree: WorktreeState,
  ) {}

  /** The current evidence generation: read before a decision is planned. */
  generation(): number {
    return evidenceGeneration(this.db);
  }

  /** The worktree's snapshot digest when known without running anything, else the watch's token for now, else null. */
  snapshot(): HitInputs['snapshot'] | null {
    const digest = this.worktree.current();
    if (digest !== null) return digest;
    const token = this.worktree.pending?.() ?? null;
    return token === null ? null : { pending: token };
  }

  remember(key: string, inputs: HitInputs, result: EngineResult, book: Entry['book']): void {
    // A file that moved while the decision looked at it, or a snapshot taken
    // with git (unknown to the watch), cannot be re-checked cheaply: not kept.
    if ([...inputs.files.values()].includes(CHANGED)) return;
    this.entries.delete(key);
    if (this.entries.size >= HIT_MEMO_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { inputs, result, book });
  }

  /** Whether an answer is kept under `key` (not whether it still holds). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /**
   * The remembered result when every input still reads the same, recording
   * nothing (the session rehearses its answer path with it); the stale entry
   * is dropped otherwise.
   */
  peek(key: string): EngineResult | null {
    return this.holding(key)?.result ?? null;
  }

  /** The remembered result when every input still reads the same, its bookkeeping queued again; the stale entry is dropped otherwise. */
  reuse(key: string, nowMs: number, durationMs: () => number): EngineResult | null {
    const entry = this.holding(key);
    entry?.book(nowMs, durationMs());
    return entry?.result ?? null;
  }

  /** The entry under `key` when it still holds; a stale one is dropped. */
  private holding(key: string): Entry | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    // Read again: holds() may have stored the entry with its pending snapshot resolved.
    if (this.holds(key, entry)) return this.entries.get(key) ?? null;
    this.entries.delete(key);
    return null;
  }

  private holds(key: string, entry: Entry): boolean {
    const inputs = entry.inputs;
    if (this.generation() !== inputs.generation) return false;
    let snapshot = inputs.snapshot;
    if (typeof snapshot !== 'string') {
      const known = this.worktree.digestAt?.(snapshot.pending) ?? null;
      if (known === null) return false;
      snapshot = known;
      this.entries.set(key, { ...entry, inputs: { ...inputs, snapshot } });
    }
    if (this.worktree.current() !== snapshot) return false;
    for (const [path, digest] of inputs.files) if (this.freshness.digestOf(path) !== digest) return false;
    return true;
  }
}
