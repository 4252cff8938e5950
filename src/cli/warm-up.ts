// A server's warm-up. The first need of each route a server answers otherwise
// pays for compiling (JIT) the code that answers it — planning, validation,
// certification and rendering on the main thread, locate, trace and tests in
// the analyzer's thread: measured on this repository, a first trace took
// ~51 ms where one asked after a trace and a tests need on other subjects took
// ~41. Once the analyzer thread has indexed the repository it names a few
// subjects of the repository's own code (evidence/fact-index.ts
// sampleSubjects); the server asks about them a throwaway engine — an
// in-memory store, the static explorer only, the same worktree watch — so
// nothing is certified or recorded in the user's data directory and no model
// worker runs. It asks only while the connection is quiet: anything arriving
// gives up the need in flight (its analysis stops at the next checkpoint),
// which is asked again once the connection is quiet again.
import { DEFAULT_WORLD, compileNeed, type CompiledNeed } from '../core/need.js';
import type { Digest } from '../core/digest.js';
import type { RoleProfile } from '../core/profile.js';
import type { RouteId } from '../core/semantic.js';
import type { Worker } from '../core/worker.js';
import type { SampleSubject } from '../evidence/fact-index.js';
import type { WorktreeState } from '../repo/worktree-watch.js';
import { createEngine } from '../resolve/engine.js';
import { flushBookkeeping } from '../store/bookkeeping.js';
import { openDb } from '../store/db.js';

/** A warm-up need given up this many times (the connection kept getting busy) is left out. */
const MAX_ATTEMPTS = 3;

export interface WarmUpSetup {
  readonly repoRoot: string;
  readonly lineage: Digest;
  readonly profile: RoleProfile;
  /** The session's static explorer (its analyzer thread). */
  readonly explorer: Worker;
  readonly worktree?: WorktreeState;
  readonly log: (line: string) => void;
  /** How long nothing must have arrived on the connection before a warm-up need is asked. */
  readonly quietMs: number;
}

export interface WarmUp {
  /** Something arrived on the connection: the warm-up need in flight is given up. */
  touch(): void;
  /** Asks the warm-up needs about `samples` (once; later calls are ignored). */
  start(samples: readonly SampleSubject[]): void;
  /** Settles when the warm-up has ended (tests). */
  readonly done: Promise<void>;
}

/** The needs asked about each sample: every route for a function, the trace (which locates and finds tests too) for an option or key. */
function warmUpNeeds(samples: readonly SampleSubject[], lineage: Digest): CompiledNeed[] {
  return samples.flatMap((subject) => {
    const routes: RouteId[] = subject.kind === 'symbol' ? ['locate.implementation', 'trace.state-flow', 'tests.relevant'] : ['trace.state-flow'];
    return routes.map((route) => compileNeed({ route, subject, required: [], preferred: [], world: DEFAULT_WORLD, task: 'warm-up' }, lineage));
  });
}

/**
 * The watch's answers without its notifications: a throwaway engine must not
 * stay registered with the session's watch (it would decide hits again on a
 * closed store whenever the watch learns a snapshot).
 */
function readOnly(w: WorktreeState): WorktreeState {
  return { current: () => w.current(), ...(w.listing ? { listing: () => w.listing!() } : {}) };
}

export function createWarmUp(o: WarmUpSetup): WarmUp {
  let lastInput = performance.now();
  let inFlight: AbortController | null = null;
  let started = false;
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => (finished = resolve));

  /** Resolves once nothing arrived for quietMs (its timers never keep the process alive). */
  const quiet = async (): Promise<void> => {
    for (let wait = o.quietMs - (performance.now() - lastInput); wait > 0; wait = o.quietMs - (performance.now() - lastInput)) {
      await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
    }
  };

  const run = async (needs: readonly CompiledNeed[]): Promise<void> => {
    const begun = performance.now();
    const db = openDb(':memory:');
    let answered = 0;
    try {
      const engine = createEngine({ db, repoRoot: o.repoRoot, explorers: [o.explorer], profile: o.profile, ...(o.worktree ? { worktree: readOnly(o.worktree) } : {}) });
      for (const need of needs) {
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          await quiet();
          const controller = new AbortController();
          inFlight = controller;
          try {
            await engine.resolve(need, { cacheOnly: false, modelWorkersLeft: 0, signal: controller.signal });
            answered++;
            break;
          } catch {
            // Given up for a request (asked again when quiet), or failed: then it is left out.
            if (!controller.signal.aborted) break;
          } finally {
            inFlight = null;
          }
        }
      }
      o.log(`warmed up on ${answered} of ${needs.length} needs about the repository's own code in ${Math.round(performance.now() - begun)} ms`);
    } finally {
      flushBookkeeping(db);
      db.close();
    }
  };

  return {
    done,
    touch: () => {
      lastInput = performance.now();
      inFlight?.abort(new DOMException('warm-up given up for a request', 'AbortError'));
    },
    start: (samples) => {
      if (started) return;
      started = true;
      run(warmUpNeeds(samples, o.lineage))
        .catch((e: unknown) => o.log(`warm-up stopped: ${(e as Error).message}`))
        .finally(finished);
    },
  };
}
