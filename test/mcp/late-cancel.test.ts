// A cancel that arrives while the static worker is busy (issue "Hardening" 9):
// a stage blocks the event loop, so the cancel line is only read once it
// returns. The resolver checks the signal between stages (locate → flow →
// tests in the static worker, before validation and before certification in
// the ladder), so the client gets a cancellation, not the full answer, and
// nothing is certified for the request.
//
// Each boundary is hit deterministically: the server's stage hook
// (src/cli/stage-hook.ts) holds the process at the start of a stage, the
// cancel is written into its stdin, and only then is the stage let go.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLUTION_STAGES } from '../../src/core/resolution.js';
import { createRepo } from '../evidence/fixtures/repos.js';
import { callNeed, cleanupAll, LOCATE_ARGS, makeRepo, queryRows, requireBuild, ServerProcess, SHIP, tempDir, until } from './fixtures.js';

afterAll(cleanupAll);

// SHIP (fixtures.ts): a commander option read in one module and acted on in
// another, with a test: a trace of it runs every stage (locate, flow, tests,
// then validation).

const TRACE = { route: 'trace.state-flow', subject: { kind: 'cli_option', name: '--dry-run' }, task: 'Trace how --dry-run stops the upload.' };

let ship: string;
beforeAll(() => {
  requireBuild();
  ship = createRepo(SHIP);
});

const certified = (dbFile: string) => ({
  certifications: queryRows(dbFile, 'SELECT COUNT(*) AS n FROM evidence_certifications'),
  negatives: queryRows(dbFile, 'SELECT COUNT(*) AS n FROM evidence_negative_certifications'),
});

describe('a cancel sent while the static worker runs', () => {
  it('wins: the call is answered as cancelled and nothing is certified', async () => {
    const dataDir = tempDir('needle-data-');
    const s = new ServerProcess({ repo: makeRepo(), dataDir });
    await s.initialize();
    s.send(callNeed('busy', LOCATE_ARGS, { progressToken: 'p' }));
    // Progress is written (synchronously, to a pipe) just before the worker starts.
    await s.out.waitFor((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'p');
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'busy', reason: 'user' } });
    const reply = await s.out.reply('busy');
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/cancelled/);
    expect(await s.close()).toBe(0);
    const dbFile = join(dataDir, 'needle.sqlite3');
    expect(queryRows(dbFile, 'SELECT status FROM need_steps')).toEqual([{ status: 'cancelled' }]);
    expect(queryRows(dbFile, 'SELECT COUNT(*) AS n FROM evidence_certifications')).toEqual([{ n: 0 }]);
  }, 60_000);

  it('without a cancel, the held stages still end in the full answer (the hook itself changes nothing)', async () => {
    const dataDir = tempDir('needle-data-');
    const gate = join(tempDir('needle-gate-'), 'open');
    writeFileSync(gate, '');
    const s = new ServerProcess({ repo: ship, dataDir, env: { NEEDLE_TEST_HOOK_STAGE: 'tests', NEEDLE_TEST_HOOK_STAGE_GATE: gate } });
    await s.initialize();
    const reply = await s.request(callNeed('full', TRACE));
    expect(reply.result.isError).toBe(false);
    expect(reply.result.structuredContent).toMatchObject({ satisfied: ['implementation_location', 'runtime_flow', 'focused_tests'], worker_spawned: true });
    expect(s.stderr).toContain('needle-test-hook: stage tests');
    expect(await s.close()).toBe(0);
    expect(certified(join(dataDir, 'needle.sqlite3')).certifications).not.toEqual([{ n: 0 }]);
  }, 60_000);

  for (const stage of RESOLUTION_STAGES) {
    it(`wins when it arrives during the ${stage} stage: answered as cancelled, nothing certified`, () => cancelDuring(stage, (s) => s.initialize()), 60_000);
  }
});

/**
 * Holds the server at `stage` of a trace, writes a cancel into its stdin,
 * lets the stage go on, and checks that the call is answered as cancelled
 * and nothing is certified. `start` brings the server to where the need is sent.
 */
async function cancelDuring(stage: string, start: (s: ServerProcess) => Promise<unknown>): Promise<void> {
  const dataDir = tempDir('needle-data-');
  const gate = join(tempDir('needle-gate-'), 'open');
  const s = new ServerProcess({ repo: ship, dataDir, env: { NEEDLE_TEST_HOOK_STAGE: stage, NEEDLE_TEST_HOOK_STAGE_GATE: gate } });
  await start(s);
  s.send(callNeed('late', TRACE));
  await until(() => s.stderr.includes(`needle-test-hook: stage ${stage}`), `the server reaches the ${stage} stage`);
  // The cancel is in the pipe while the stage holds the event loop; then the stage goes on.
  await s.sent({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'late', reason: 'user' } });
  writeFileSync(gate, '');
  const reply = await s.out.reply('late');
  expect(reply.result?.isError).toBe(true);
  expect(reply.result.content[0].text).toBe('request cancelled; nothing was delivered for this need');
  expect(await s.close()).toBe(0);
  const dbFile = join(dataDir, 'needle.sqlite3');
  expect(queryRows(dbFile, 'SELECT status FROM need_steps')).toEqual([{ status: 'cancelled' }]);
  expect(certified(dbFile)).toEqual({ certifications: [{ n: 0 }], negatives: [{ n: 0 }] });
}

// A server runs the static analyzer in its own thread once it has readied it
// (src/workers/static-thread.ts; the needs above arrive before, and run in
// process). The thread waits at each stage until the server has taken note,
// so a stage held by the server holds the analysis too, as in process.
describe('once the analyzer thread is ready', () => {
  const ready = async (s: ServerProcess): Promise<void> => {
    await s.initialize();
    await until(() => /static analyzer ready \(typescript\)/.test(s.stderr), 'the server readies its analyzer thread');
  };

  it('a need that misses gets the same answer as in process', async () => {
    const answers: unknown[] = [];
    for (const threaded of [false, true]) {
      const s = new ServerProcess({ repo: ship, dataDir: tempDir('needle-data-') });
      if (threaded) await ready(s);
      else await s.initialize();
      const reply = await s.request(callNeed('full', TRACE));
      expect(reply.result.structuredContent).toMatchObject({ satisfied: ['implementation_location', 'runtime_flow', 'focused_tests'], worker_spawned: true });
      answers.push(reply.result.structuredContent.context);
      expect(await s.close()).toBe(0);
    }
    expect(answers[1]).toBe(answers[0]);
  }, 60_000);

  for (const stage of ['locate', 'flow', 'tests'] as const) {
    it(`a cancel during the ${stage} stage wins: answered as cancelled, nothing certified`, () => cancelDuring(stage, ready), 60_000);
  }
});
