// The static worker of a server, run in its own thread
// (evidence/analyzer-thread.ts): same analysis, same identity, same output as
// in process, but its synchronous work (parsing, queries, the flow trace)
// no longer holds up the server's event loop, and the thread readies the
// analyzer (grammars, compiled queries) before the first need that misses,
// then holds the worktree's searchable text (evidence/worktree-texts.ts) and
// indexes the repository's facts (evidence/fact-index.ts) while no run is
// going on, and keeps syntax trees between runs (evidence/tree-cache.ts).
//
// The thread starts when the server says so (`startWhen`: once it has been
// quiet, mcp/quiet.ts) and no run is going on in process: until it is there,
// runs go to the in-process worker, so neither `initialize`, the worktree
// watch's first snapshot nor a client's first needs compete with its start.
// Runs sent to it wait for its rehearsal (which loads what they need anyway).
// If it dies, the runs it held fail with a one-line error and later runs go
// in process again: it is not restarted.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker as Thread } from 'node:worker_threads';
import { abortError } from '../core/abort.js';
import { ANALYZER_THREAD } from '../core/limits.js';
import type { Worker, WorkerInput, WorkerOutput } from '../core/worker.js';
import type { FromAnalyzer, ThreadData, ToAnalyzer } from '../evidence/thread-protocol.js';
import type { SampleSubject } from '../evidence/fact-index.js';

/**
 * The thread's entry module next to this code: in the bundle every part sits
 * in one directory (rolldown.config.mjs emits the entry); compiled, it is in
 * evidence/. Null where neither exists (the TypeScript sources under vitest,
 * which a thread cannot load): the caller runs the analyzer in process.
 */
export function analyzerThreadEntry(): string | null {
  for (const rel of ['./analyzer-thread.js', '../evidence/analyzer-thread.js']) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return path;
  }
  return null;
}

interface Pending {
  readonly input: WorkerInput;
  readonly resolve: (o: WorkerOutput) => void;
  readonly reject: (e: Error) => void;
}

/** What a server gives its analyzer thread. */
export interface AnalyzerThreadSetup {
  /** The repository whose languages the thread readies and whose files' facts it indexes. */
  readonly root: string;
  /** Where the thread's notes go (ready, not readied, indexed, stopped, no git helper). */
  readonly log: (line: string) => void;
  /** Calls its argument when the thread may start (at most once). */
  readonly startWhen: (start: () => void) => void;
  /** Told once the fact index is built, with subjects of the repository's own code (cli/warm-up.ts asks about them). */
  readonly onIndexed?: (samples: readonly SampleSubject[]) => void;
}

export interface ThreadedStaticOptions extends AnalyzerThreadSetup {
  /** The thread's module (analyzerThreadEntry()). */
  readonly entry: string;
  /** The same analyzer in process, for the runs before the thread is there. */
  readonly inProcess: Worker;
}

export function createThreadedStaticWorker(o: ThreadedStaticOptions): Worker {
  const log = o.log;
  let thread: Thread | null = null;
  /** The server said the thread may start: it does once no in-process run is going on. */
  let due = false;
  /** The thread died once: everything runs in process from then on. */
  let broken = false;
  let inProcessRuns = 0;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  // The thread waits on this after announcing a stage, until the server has
  // taken note (Atomics.notify below): a stage means what it means in
  // process, e.g. a server held at a stage holds the analysis too.
  const stageAck = new Int32Array(new SharedArrayBuffer(4));

  const stopped = (t: Thread, why: string): void => {
    if (thread !== t) return;
    thread = null;
    broken = true;
    log(`static analyzer thread stopped (${why}); the analyzer runs in process from now on`);
    const held = [...pending.values()];
    pending.clear();
    for (const p of held) p.reject(new Error(`static analyzer thread stopped: ${why}`));
  };

  const receive = (m: FromAnalyzer): void => {
    switch (m.kind) {
      case 'prepared':
        log(`static analyzer ready (${m.languages.join(', ') || 'no analyzed language'}) in ${Math.round(m.ms)} ms`);
        return;
      case 'prepare-failed':
        log(`static analyzer not readied ahead of time: ${m.message}`);
        return;
      case 'indexed': {
        const limit = m.stopped ? `; stopped at its bound of ${m.stopped}, the rest is parsed when asked` : '';
        log(`static analyzer indexed ${m.files} files (${(m.bytes / 1024 / 1024).toFixed(1)} MB) in ${Math.round(m.ms)} ms${limit}`);
        o.onIndexed?.(m.samples);
        return;
      }
      case 'note':
        log(`static analyzer: ${m.message}`);
        return;
      case 'index-failed':
        log(`static analyzer index stopped after ${m.files} files: ${m.message}`);
        o.onIndexed?.([]);
        return;
      case 'stage':
        try {
          pending.get(m.id)?.input.onStage?.(m.stage);
        } finally {
          Atomics.store(stageAck, 0, 1);
          Atomics.notify(stageAck, 0);
        }
        return;
    }
    const p = pending.get(m.id);
    if (!p) return; // a run given up on (cancelled) that finished anyway
    if (m.kind === 'progress') return p.input.onProgress?.(m.message);
    pending.delete(m.id);
    if (m.kind === 'done') p.resolve(m.output);
    else {
      // The thread's own stack, for the server's log of a failed need.
      const e = Object.assign(new Error(m.message), { name: m.name });
      if (m.stack) e.stack = `${m.stack}\n    (in the static analyzer thread)`;
      p.reject(e);
    }
  };

  const start = (): void => {
    if (thread || broken || !due || inProcessRuns > 0) return;
    const data: ThreadData = { stageAck: stageAck.buffer as SharedArrayBuffer, stageAckMs: ANALYZER_THREAD.stageAckMs };
    const t = new Thread(o.entry, { workerData: data });
    t.on('message', receive);
    t.on('error', (e) => stopped(t, e.message));
    t.on('exit', (code) => stopped(t, `exited with code ${code}`));
    // A server that is done does not wait for its analyzer.
    t.unref();
    thread = t;
    t.postMessage({ kind: 'prepare', root: o.root } satisfies ToAnalyzer);
  };
  o.startWhen(() => {
    due = true;
    start();
  });

  const inProcess = async (input: WorkerInput): Promise<WorkerOutput> => {
    inProcessRuns++;
    try {
      return await o.inProcess.run(input);
    } finally {
      inProcessRuns--;
      start();
    }
  };

  const inThread = (t: Thread, input: WorkerInput): Promise<WorkerOutput> => {
    if (input.signal.aborted) return Promise.reject(abortError(input.signal, 'static worker aborted'));
    const id = nextId++;
    const { need, missing, root, covered, deadline, snapshot } = input;
    return new Promise<WorkerOutput>((resolve, reject) => {
      // A cancel answers at once; the thread stops at its next checkpoint.
      const onAbort = (): void => {
        if (!pending.delete(id)) return;
        t.postMessage({ kind: 'abort', id } satisfies ToAnalyzer);
        reject(abortError(input.signal, 'static worker aborted'));
      };
      const settled = (): void => input.signal.removeEventListener('abort', onAbort);
      pending.set(id, {
        input,
        resolve: (out) => (settled(), resolve(out)),
        reject: (e) => (settled(), reject(e)),
      });
      input.signal.addEventListener('abort', onAbort, { once: true });
      t.postMessage({ kind: 'run', id, input: { need, missing, root, covered, deadline, snapshot }, stages: input.onStage !== undefined } satisfies ToAnalyzer);
    });
  };

  return {
    name: o.inProcess.name,
    countsAgainstLimit: o.inProcess.countsAgainstLimit,
    ...(o.inProcess.definition ? { definition: o.inProcess.definition } : {}),
    run: (input) => (thread ? inThread(thread, input) : inProcess(input)),
  };
}
