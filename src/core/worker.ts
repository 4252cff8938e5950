// The worker contract (SPEC §7). Workers propose; only validators certify.
import type { Digest } from './digest.js';
import type { CompiledNeed, Obligation } from './need.js';
import type { Proposal } from './contracts.js';
import type { ResolutionStage } from './resolution.js';

export interface ObservedFile {
  readonly path: string;
  readonly digest: Digest;
}

export interface Usage {
  readonly model: string | null;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /**
   * The row of the one worker-run table this worker already wrote for the run
   * (a model worker records its run with its turns and cleanup); the ladder then
   * refers to it instead of recording the run a second time.
   */
  readonly recordedRunId?: number;
}

export interface CoveredEvidence {
  readonly predicate: Obligation['predicate'];
  /** Bounded JSON of the certified payload, given to later workers as input. */
  readonly summary: string;
}

export interface WorkerInput {
  readonly need: CompiledNeed;
  /** Obligations still missing; the worker must not redo the others. */
  readonly missing: readonly Obligation[];
  /** Root of the read-only view of the snapshot the worker works on. */
  readonly root: string;
  readonly covered: readonly CoveredEvidence[];
  readonly deadline: number;
  /**
   * The source snapshot digest taken just before this run (SPEC §9), when the
   * resolver took one: what a worker derived from git for an earlier run on
   * the same snapshot still holds (evidence/worktree-texts.ts).
   */
  readonly snapshot?: Digest | null;
  readonly signal: AbortSignal;
  readonly onProgress?: (message: string) => void;
  /** ResolveOptions.onStage, for the stages a worker runs itself. */
  readonly onStage?: (stage: ResolutionStage) => void;
}

export type WorkerOutcome =
  | { readonly kind: 'proposed' }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly string[] }
  | { readonly kind: 'unresolved'; readonly reason: string };

export interface WorkerOutput {
  readonly outcome: WorkerOutcome;
  readonly proposals: readonly Proposal[];
  /** Every file read, with the digest of the bytes read. */
  readonly observed: readonly ObservedFile[];
  /** False when the worker cannot vouch that `observed` is everything it relied on. */
  readonly observationComplete: boolean;
  readonly usage: Usage | null;
}

export interface Worker {
  readonly name: string;
  /** Whether this worker counts against the per-connection model-worker limit. */
  readonly countsAgainstLimit: boolean;
  /**
   * Only on a deterministic worker: the identity of its analysis (its code).
   * Such a worker's outcome is a function of the worktree bytes and its input,
   * and given its own certified results as covered input it finds nothing
   * new; so what it could not satisfy is certified as a negative outcome under
   * this identity and not recomputed on the same bytes (SPEC §16a). Null
   * when the identity cannot be established: nothing negative is certified.
   */
  readonly definition?: () => Digest | null;
  run(input: WorkerInput): Promise<WorkerOutput>;
}
