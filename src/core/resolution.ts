// What a resolution decided (SPEC §4, §10). The resolver produces it; the
// transport and CLI only project it.
import type { Digest } from './digest.js';
import type { Predicate } from './semantic.js';

export const RESOLUTION_KINDS = [
  'exact_hit',
  'coverage_hit',
  'composite_hit',
  'claim_hit',
  'claim_composite_hit',
  'partial_hit',
  'miss',
  'stale',
  'rejected',
  'ambiguous',
  'contradicted',
  'bypass',
] as const;
export type ResolutionKind = (typeof RESOLUTION_KINDS)[number];

export type Resolution =
  | {
      readonly kind: 'exact_hit' | 'coverage_hit' | 'composite_hit';
      readonly artifact_ids: readonly Digest[];
      readonly certificate_id: Digest | null;
      readonly plan_id: Digest | null;
    }
  | {
      readonly kind: 'claim_hit' | 'claim_composite_hit';
      readonly artifact_ids: readonly Digest[];
      readonly claim_ids: readonly Digest[];
      readonly certificate_id: Digest | null;
      readonly plan_id: Digest | null;
    }
  | {
      readonly kind: 'partial_hit';
      readonly artifact_ids: readonly Digest[];
      readonly claim_ids: readonly Digest[];
      readonly plan_id: Digest | null;
      /** Why what is missing is missing (worker timed out, proposals rejected, limit reached); bounded, no worker output. */
      readonly reason?: string;
    }
  | { readonly kind: 'miss'; readonly reason?: string }
  | { readonly kind: 'stale'; readonly artifact_ids: readonly Digest[]; readonly reason: string }
  | { readonly kind: 'rejected' | 'ambiguous' | 'contradicted' | 'bypass'; readonly reason: string };

/** Resolutions whose context must be empty: nothing reusable may be shown. */
export const UNSAFE_KINDS: ReadonlySet<ResolutionKind> = new Set(['stale', 'rejected', 'ambiguous', 'contradicted']);

export const REUSE_UNITS = ['artifact', 'claim', 'mixed', 'none'] as const;
export type ReuseUnit = (typeof REUSE_UNITS)[number];

export interface EngineResult {
  readonly resolution: Resolution;
  /** Predicates really covered by what is served (per obligation, not all-or-nothing). */
  readonly satisfied: readonly Predicate[];
  readonly missing: readonly Predicate[];
  /** The FrontierView text; empty for unsafe kinds. */
  readonly context: string;
  readonly cacheHit: boolean;
  readonly workerSpawned: boolean;
  /** Model-worker runs this resolution started (the static worker does not count). */
  readonly modelWorkersStarted: number;
  readonly reuseUnit: ReuseUnit;
  readonly claimIds: readonly Digest[];
  readonly resultDigest: Digest;
  /**
   * The unsafe resolution (`ambiguous`, or `rejected` because every proposal
   * failed validation) is the workers' answer on these bytes — produced now,
   * or served from a certified negative outcome with zero workers — rather
   * than a failure to answer. The status then says where it came from.
   */
  readonly verdict?: boolean;
}

export interface ResolveProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message: string;
}

/**
 * Stages of one resolution, for `ResolveOptions.onStage`: the lease is taken
 * (`lead`), the static worker locates, traces and finds tests, the ladder
 * validates. Each begins after a cancellation checkpoint, and the next
 * checkpoint follows it.
 */
export const RESOLUTION_STAGES = ['lead', 'locate', 'flow', 'tests', 'validate'] as const;
export type ResolutionStage = (typeof RESOLUTION_STAGES)[number];

export interface ResolveOptions {
  /** No worker may run; a miss becomes an honest bypass. */
  readonly cacheOnly: boolean;
  /** Model-worker runs this connection may still start (the static worker is free). */
  readonly modelWorkersLeft: number;
  readonly signal: AbortSignal;
  readonly onProgress?: (p: ResolveProgress) => void;
  /** Called as each stage begins (tests hold a stage here to cancel during it). */
  readonly onStage?: (stage: ResolutionStage) => void;
}

/** The resolver as seen by the transport and the CLI (SPEC §10). */
export interface Engine {
  resolve(need: import('./need.js').CompiledNeed, opts: ResolveOptions): Promise<EngineResult>;
  /**
   * The zero-worker answer `resolve` would serve from memory right now, or
   * null; records nothing, runs nothing. Engines without a memory omit it.
   */
  remembered?(need: import('./need.js').CompiledNeed, opts: Pick<ResolveOptions, 'cacheOnly' | 'modelWorkersLeft'>): EngineResult | null;
  /** Calls `listener` each time the engine has re-decided its first hits off any request (the watch came to know the worktree). */
  onRehearsed?(listener: () => void): void;
}

export const ANSWER_STATUSES = ['hit', 'generated', 'bypass'] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

/**
 * Where an answer came from, for every transport: `hit` from the certified
 * store with zero workers, `generated` when a worker ran for it, `bypass` when
 * Needle has no answer of its own (nothing satisfied and no verdict).
 */
export function answerStatus(r: EngineResult): AnswerStatus {
  const satisfied = UNSAFE_KINDS.has(r.resolution.kind) ? 0 : r.satisfied.length;
  if (satisfied === 0 && r.verdict !== true) return 'bypass';
  return r.workerSpawned ? 'generated' : 'hit';
}
