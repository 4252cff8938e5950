// Messages between a server's main thread and the static analyzer's thread
// (evidence/analyzer-thread.ts, workers/static-thread.ts). Everything crosses
// by structured clone: a run's input without its signal and callbacks, which
// become `abort`, `stage` and `progress` messages.
import type { ResolutionStage } from '../core/resolution.js';
import type { WorkerInput, WorkerOutput } from '../core/worker.js';
import type { SampleSubject } from './fact-index.js';

export type ThreadRunInput = Omit<WorkerInput, 'signal' | 'onProgress' | 'onStage'>;

/** Given at the thread's start (workerData). */
export interface ThreadData {
  /** Set to 1 by the server once it has taken note of the last `stage` message. */
  readonly stageAck: SharedArrayBuffer;
  readonly stageAckMs: number;
}

export type ToAnalyzer =
  /** Ready the analyzer for `root`'s languages (evidence/rehearsal.ts), then index its facts (evidence/fact-index.ts). */
  | { readonly kind: 'prepare'; readonly root: string }
  /**
   * `stages`: whether the caller listens to the run's stages. Only then does
   * the thread announce each and wait for the server to take note (a wait on
   * the server's event loop, which may be busy with other requests).
   */
  | { readonly kind: 'run'; readonly id: number; readonly input: ThreadRunInput; readonly stages: boolean }
  | { readonly kind: 'abort'; readonly id: number };

export type FromAnalyzer =
  | { readonly kind: 'prepared'; readonly languages: readonly string[]; readonly ms: number }
  | { readonly kind: 'prepare-failed'; readonly message: string }
  /** A line for the server's log. */
  | { readonly kind: 'note'; readonly message: string }
  /** The fact index is built (evidence/fact-index.ts IndexBuild), and subjects of the repository's own code for a warm-up. */
  | {
      readonly kind: 'indexed';
      readonly files: number;
      readonly bytes: number;
      readonly stopped: string | null;
      readonly ms: number;
      readonly samples: readonly SampleSubject[];
    }
  | { readonly kind: 'index-failed'; readonly files: number; readonly message: string }
  | { readonly kind: 'stage'; readonly id: number; readonly stage: ResolutionStage }
  | { readonly kind: 'progress'; readonly id: number; readonly message: string }
  | { readonly kind: 'done'; readonly id: number; readonly output: WorkerOutput }
  | { readonly kind: 'failed'; readonly id: number; readonly name: string; readonly message: string; readonly stack: string | null };
