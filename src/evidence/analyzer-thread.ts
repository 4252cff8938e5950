// The static analyzer's own thread in a server (`needle mcp serve`), started
// by workers/static-thread.ts. A cold analysis is synchronous for tens to
// hundreds of milliseconds (parsing, queries, the flow trace); here it does
// not hold up the server's event loop, so hits, pings and cancels are
// answered while it runs. The thread also readies the analyzer when the
// server starts (grammars, compiled queries: evidence/rehearsal.ts), which a
// first cold need would otherwise wait for, then extracts the facts of the
// repository's files (evidence/fact-index.ts) whenever no run is going on,
// so that a cold need parses only the files whose trees it uses, and keeps
// the trees parsed for that within the tree cache's bound (tree-cache.ts).
import { parentPort, workerData } from 'node:worker_threads';
import type { ResolutionStage } from '../core/resolution.js';
import { gitEnvironment, runGitAsyncThrough, runGitThrough } from '../repo/git.js';
import { startGitHelpers } from '../repo/git-helper.js';
import { buildFactIndex, FactIndex, indexOrder, sampleSubjects } from './fact-index.js';
import { loadLanguages } from './parse/treesitter.js';
import { languagesOf, rehearse, repositoryFiles } from './rehearsal.js';
import { createStaticWorker } from './static-worker.js';
import type { FromAnalyzer, ThreadData, ToAnalyzer } from './thread-protocol.js';
import { listSearchedFiles, WorktreeTexts } from './worktree-texts.js';
import { TreeCache } from './tree-cache.js';

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
const index = new FactIndex();
const texts = new WorktreeTexts();
const trees = new TreeCache();
const worker = createStaticWorker({ facts: index, texts, trees });
const running = new Map<number, AbortController>();
/** Runs wait for the rehearsal: both need the main thread of this isolate, and it loads what they would. */
let ready: Promise<void> = Promise.resolve();
/** Called when the last running run ends: indexing waits for it. */
let idle: (() => void) | null = null;

/** Lets a run that arrived go first (the message loop turns), then waits until none is running. */
async function betweenFiles(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  while (running.size > 0) await new Promise<void>((resolve) => (idle = resolve));
}

async function prepare(root: string): Promise<string[] | null> {
  const started = performance.now();
  // This thread's git runs (every search of a cold need, its start-up
  // listing) start from a small shell rather than from this large process
  // (repo/git-helper.ts).
  const helpers = startGitHelpers(gitEnvironment());
  if (helpers && helpers.sync.connected()) {
    runGitThrough(helpers.sync.run);
    runGitAsyncThrough(helpers.async.run);
  } else post({ kind: 'note', message: 'git helper not started; the analyzer starts git directly' });
  try {
    const files = await repositoryFiles(root);
    const languages = languagesOf(files);
    await rehearse(languages);
    // A run loads every grammar (a file of any language may appear): the rest
    // now, not on the first need (~10 ms of it).
    await loadLanguages();
    post({ kind: 'prepared', languages, ms: performance.now() - started });
    return files;
  } catch (e) {
    // A run loads what it needs itself; readying was only ahead of time.
    post({ kind: 'prepare-failed', message: (e as Error).message });
    return null;
  }
}

/** Reads the worktree's searchable text ahead of the first need (evidence/worktree-texts.ts). */
async function holdTexts(root: string): Promise<void> {
  const started = performance.now();
  try {
    await texts.fill(root, listSearchedFiles(root), betweenFiles);
    if (texts.disabled) post({ kind: 'note', message: `worktree text not held (${texts.disabled}); searches run git grep` });
    else post({ kind: 'note', message: `holds the text of ${texts.files} files (${(texts.bytes / 1024 / 1024).toFixed(1)} MB) in ${Math.round(performance.now() - started)} ms` });
  } catch (e) {
    // Each need lists and reads what it searches itself.
    post({ kind: 'note', message: `worktree text not read ahead: ${(e as Error).message}` });
  }
}

async function indexFacts(root: string, files: readonly string[]): Promise<void> {
  const started = performance.now();
  try {
    // The trees parsed for the facts fill the tree cache's bound (sources before tests).
    const built = await buildFactIndex(root, indexOrder(files), index, betweenFiles, { keep: (path, digest, file) => trees.offer(path, digest, file) });
    // No warm-up where searches walk the repository (its text is not held):
    // there a warm-up need's stages take hundreds of ms, which a client's need
    // arriving meanwhile would wait for, to save the ~10–20 ms of compiling.
    const samples = texts.disabled === null && texts.files > 0 ? sampleSubjects(index) : [];
    post({ kind: 'indexed', ...built, ms: performance.now() - started, samples });
  } catch (e) {
    // Whatever was indexed stays; a resolution parses the rest itself.
    post({ kind: 'index-failed', files: index.size, message: (e as Error).message });
  }
}

async function run(id: number, input: Extract<ToAnalyzer, { kind: 'run' }>['input'], stages: boolean): Promise<void> {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    await ready;
    const output = await worker.run({
      ...input,
      signal: controller.signal,
      ...(stages ? { onStage: (s: ResolutionStage) => stage(id, s) } : {}),
      onProgress: (message) => post({ kind: 'progress', id, message }),
    });
    post({ kind: 'done', id, output });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    post({ kind: 'failed', id, name: err.name, message: err.message, stack: err.stack ?? null });
  } finally {
    running.delete(id);
    if (running.size === 0 && idle) {
      const wake = idle;
      idle = null;
      wake();
    }
  }
}

port.on('message', (m: ToAnalyzer) => {
  switch (m.kind) {
    case 'prepare': {
      const prepared = prepare(m.root);
      ready = prepared.then(() => undefined);
      void prepared.then(async (files) => {
        await holdTexts(m.root);
        if (files) await indexFacts(m.root, files);
      });
      break;
    }
    case 'run':
      void run(m.id, m.input, m.stages);
      break;
    case 'abort':
      running.get(m.id)?.abort(new DOMException('static worker aborted', 'AbortError'));
      break;
  }
});
