// The static analyzer's own thread in a server (`needle mcp serve`), started
// by workers/static-thread.ts. A cold analysis is synchronous for tens to
// hundreds of milliseconds (parsing, queries, the flow trace); here it does
// not hold up the server's event loop, so hits, pings and cancels are
// answered while it runs. The thread also readies the analyzer when the
// server starts (grammars, compiled queries: evidence/rehearsal.ts), which a
// first cold need would otherwise wait for.
import { parentPort, workerData } from 'node:worker_threads';
import { rehearse, repositoryLanguages } from './rehearsal.js';
import { createStaticWorker } from './static-worker.js';
import type { FromAnalyzer, ThreadData, ToAnalyzer } from './thread-protocol.js';

const port = parentPort;
if (!port) throw new Error('analyzer-thread.js runs as a worker thread of needle mcp serve');

const post = (m: FromAnalyzer): void => port.postMessage(m);
const { stageAck, stageAckMs } = workerData as ThreadData;
const ack = new Int32Array(stageAck);

/** Announces a stage and waits until the server has taken note, as an in-process stage callback returns. */
function stage(id: number, s: Extract<FromAnalyzer, { kind: 'stage' }>['stage']): void {
  Atomics.store(ack, 0, 0);
  post({ kind: 'stage', id, stage: s });
  Atomics.wait(ack, 0, 0, stageAckMs);
}
const worker = createStaticWorker();
const running = new Map<number, AbortController>();
/** Runs wait for the rehearsal: both need the main thread of this isolate, and it loads what they would. */
let ready: Promise<void> = Promise.resolve();

async function prepare(root: string): Promise<void> {
  const started = performance.now();
  try {
    const languages = await repositoryLanguages(root);
    await rehearse(languages);
    post({ kind: 'prepared', languages, ms: performance.now() - started });
  } catch (e) {
    // A run loads what it needs itself; readying was only ahead of time.
    post({ kind: 'prepare-failed', message: (e as Error).message });
  }
}

async function run(id: number, input: Extract<ToAnalyzer, { kind: 'run' }>['input']): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    await ready;
    const output = await worker.run({
      ...input,
      signal: controller.signal,
      onStage: (s) => stage(id, s),
      onProgress: (message) => post({ kind: 'progress', id, message }),
    });
    post({ kind: 'done', id, output });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    post({ kind: 'failed', id, name: err.name, message: err.message, stack: err.stack ?? null });
  } finally {
    running.delete(id);
  }
}

port.on('message', (m: ToAnalyzer) => {
  switch (m.kind) {
    case 'prepare':
      ready = prepare(m.root);
      break;
    case 'run':
      void run(m.id, m.input);
      break;
    case 'abort':
      running.get(m.id)?.abort(new DOMException('static worker aborted', 'AbortError'));
      break;
  }
});
