// The static analyzer in its own thread (src/workers/static-thread.ts, the
// built thread module dist/src/bundle/analyzer-thread.js): it answers exactly
// as in process, runs go in process until the thread is there, a cancel
// answers at once, and a thread that dies fails its runs with one line and
// leaves the analyzer in process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import type { ResolutionStage } from '../../src/core/resolution.js';
import type { Worker, WorkerInput } from '../../src/core/worker.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { createThreadedStaticWorker } from '../../src/workers/static-thread.js';
import { createRepo } from '../evidence/fixtures/repos.js';
import { cleanupAll, requireBuild, ROOT, SHIP, tempDir } from '../mcp/fixtures.js';

afterAll(cleanupAll);

const ENTRY = join(ROOT, 'dist/src/bundle/analyzer-thread.js');

let repo: string;
beforeAll(() => {
  requireBuild();
  repo = createRepo(SHIP);
});

const trace: CompiledNeed = compileNeed(
  { route: 'trace.state-flow', subject: { kind: 'cli_option', name: '--dry-run' }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'Trace --dry-run.' },
  lineageDigest(['0'.repeat(40)]),
);

function input(stages: ResolutionStage[], signal = new AbortController().signal): WorkerInput {
  return { need: trace, missing: [...trace.required, ...trace.preferred], root: repo, covered: [], deadline: Date.now() + 60_000, signal, onStage: (s) => stages.push(s) };
}

/** A threaded worker (its thread allowed to start at once, or never) and a promise for its first log line. */
function threaded(entry: string, startNow: boolean, inProcess: Worker = createStaticWorker()) {
  const lines: string[] = [];
  let noted: (line: string) => void = () => {};
  const logged = new Promise<string>((resolve) => (noted = resolve));
  const worker = createThreadedStaticWorker({
    entry,
    root: repo,
    inProcess,
    startWhen: (start) => {
      if (startNow) start();
    },
    log: (line) => {
      lines.push(line);
      noted(line);
    },
  });
  return { worker, lines, logged };
}

describe('the static analyzer thread', () => {
  it('readies the repository’s languages, then answers with the same output and stages as in process', async () => {
    const stagesHere: ResolutionStage[] = [];
    const here = await createStaticWorker().run(input(stagesHere));
    const { worker, logged } = threaded(ENTRY, true);
    expect(await logged).toMatch(/^static analyzer ready \(typescript\) in \d+ ms$/);
    const stagesThere: ResolutionStage[] = [];
    const there = await worker.run(input(stagesThere));
    expect(there).toEqual(here);
    expect(there.proposals.map((p) => p.predicate)).toEqual(['implementation_location', 'runtime_flow', 'focused_tests']);
    expect(stagesThere).toEqual(stagesHere);
  }, 60_000);

  it('then holds the worktree’s text and indexes its facts, says so in a line each, and answers as in process from them', async () => {
    const here = await createStaticWorker().run(input([]));
    const { worker, lines } = threaded(ENTRY, true);
    // The first run arrives while the thread indexes: indexing waits for it.
    expect(await worker.run(input([]))).toEqual(here);
    await expect.poll(() => lines.length, { timeout: 30_000 }).toBe(3);
    expect(lines[0]).toMatch(/^static analyzer ready \(typescript\) in \d+ ms$/);
    expect(lines[1]).toMatch(/^static analyzer: holds the text of [1-9]\d* files \(\d+\.\d MB\) in \d+ ms$/);
    expect(lines[2]).toMatch(/^static analyzer indexed [1-9]\d* files \(\d+\.\d MB\) in \d+ ms$/);
    expect(await worker.run(input([]))).toEqual(here);
  }, 60_000);

  it('fails a run with the error the in-process analyzer gives, and serves the next one', async () => {
    const missing = { ...input([]), root: join(tempDir('needle-thread-'), 'no-such-repository') };
    const here = await createStaticWorker().run(missing).then(
      () => null,
      (e: Error) => e,
    );
    expect(here).toBeInstanceOf(Error);
    const { worker, logged } = threaded(ENTRY, true);
    await logged;
    await expect(worker.run(missing)).rejects.toMatchObject({ name: here!.name, message: here!.message });
    expect((await worker.run(input([]))).outcome).toEqual({ kind: 'proposed' });
  }, 60_000);

  it('runs in process until the server lets the thread start', async () => {
    let runs = 0;
    const counting: Worker = { ...createStaticWorker(), run: (i) => (runs++, createStaticWorker().run(i)) };
    const { worker, lines } = threaded(ENTRY, false, counting);
    const out = await worker.run(input([]));
    expect(runs).toBe(1);
    expect(out.outcome).toEqual({ kind: 'proposed' });
    expect(lines).toEqual([]);
  }, 60_000);

  it('answers a cancel at once with an AbortError and serves the next run', async () => {
    const { worker, logged } = threaded(ENTRY, true);
    await logged;
    const controller = new AbortController();
    const cancelled = worker.run({ ...input([], controller.signal), onStage: () => controller.abort() });
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    const next = await worker.run(input([]));
    expect(next.outcome).toEqual({ kind: 'proposed' });
  }, 60_000);

  it('fails the runs of a thread that dies with one line, and runs in process from then on', async () => {
    const dying = join(tempDir('needle-thread-'), 'dying-thread.mjs');
    writeFileSync(
      dying,
      [
        "import { parentPort } from 'node:worker_threads';",
        "parentPort.on('message', (m) => {",
        "  if (m.kind === 'prepare') parentPort.postMessage({ kind: 'prepare-failed', message: 'no grammars here' });",
        '  if (m.kind === \'run\') process.exit(3);',
        '});',
      ].join('\n'),
    );
    let inProcessRuns = 0;
    const counting: Worker = { ...createStaticWorker(), run: (i) => (inProcessRuns++, createStaticWorker().run(i)) };
    const { worker, lines, logged } = threaded(dying, true, counting);
    expect(await logged).toBe('static analyzer not readied ahead of time: no grammars here');
    await expect(worker.run(input([]))).rejects.toThrow(/^static analyzer thread stopped: exited with code 3$/);
    expect(lines.slice(1)).toEqual(['static analyzer thread stopped (exited with code 3); the analyzer runs in process from now on']);
    const out = await worker.run(input([]));
    expect(out.outcome).toEqual({ kind: 'proposed' });
    expect(inProcessRuns).toBe(1);
  }, 60_000);
});
