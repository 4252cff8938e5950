/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
// The explorer ladder end to end with the Codex App Server simulator: the
// static worker certifies what it can, the Codex worker is asked only for the
// rest, its answer is validated, certified, cached and reused with zero
// workers; limits, cancellation and timeouts leave nothing uncertified.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER } from '../../src/core/limits.js';
import type { ResolveProgress } from '../../src/core/resolution.js';
import { stats } from '../../src/store/evidence/accounting.js';
import { runsRootOf } from '../../src/workers/explorers.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import { makeRepo, need, options, RF_DRY_RUN, type Repo } from '../resolve/fixture.js';
import { fingerprint, readLog, simulator, waitForEvent, type SimEvent } from './fixtures.js';
import { certifiedPredicates, evidenceRuns, ladderEngine, ladderProfile } from './ladder-fixture.js';
import { gone } from './procs.js';

const DRY = { kind: 'cli_option' as const, name: '--dry-run' };
// Free text names nothing the static analyzer can search for.
const BEHAVIOR = { kind: 'behavior' as const, name: 'the upload is skipped' };
const FLOW_ANSWER = { runtime_flow: RF_DRY_RUN.payload };

let repo: Repo;
let before: Map<string, string>;
beforeEach(() => {
  repo = makeRepo();
  before = fingerprint(repo.root);
});
afterEach(() => {
  // Whatever happened, the user's worktree and .git are byte-identical and no run directory is left.
  expect(fingerprint(repo.root)).toEqual(before);
  const runs = runsRootOf(repo.dataDir);
  expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  repo.cleanup();
});

const turnStarts = (log: string) => readLog(log).filter((e) => e.event === 'request' && e.method === 'turn/start');
const starts = (log: string) => readLog(log).filter((e) => e.event === 'start');
const promptOf = (e: SimEvent) => ((e.params as any).input[0].text as string);

/** Processes the simulator started (itself and its grandchildren) are all gone. */
async function treeGone(log: string): Promise<boolean> {
  const pids = readLog(log).flatMap((e) => (e.event === 'start' || e.event === 'grandchild' ? [e.pid as number] : []));
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) if (!(await gone(pid))) return false;
  return true;
}

describe('ladder [static, codex] with the simulator', () => {
  it('finishes what static left missing, with only that obligation and the certified evidence as bounded input, then reuses it with zero workers', async () => {
    const sim = simulator(join(repo.dataDir, 'sims'), 'flow', {
      turns: [{ steps: [{ usage: { input: 3000, cached: 1000, output: 200 } }, { message: FLOW_ANSWER }] }],
    });
    const { db, engine } = ladderEngine(repo, ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 20_000 }));
    const progress: ResolveProgress[] = [];
    const first = await engine.resolve(need(repo, 'trace.state-flow', DRY), options({ onProgress: (p) => progress.push(p) }));

    expect(first.satisfied).toEqual(['implementation_location', 'runtime_flow', 'focused_tests']);
    expect(first.missing).toEqual([]);
    expect(first.workerSpawned).toBe(true);
    expect(first.modelWorkersStarted).toBe(1);
    expect(first.context).toMatch(/flow \(default\):\n {2}1 producer +src\/config.ts:6/);
    expect(first.context).toContain('5 consumer');
    expect(first.context).toContain("focused test: npx vitest run test/deploy.test.ts -t 'deploy skips upload in dry run'");
    expect(progress.map((p) => p.message)).toEqual(expect.arrayContaining(['codex: resolving runtime_flow', 'model turn started']));

    // The model was asked for runtime_flow only, under a contract of runtime_flow only.
    const [turn] = turnStarts(sim.log);
    expect(Object.keys((turn!.params as any).outputSchema.properties)).toEqual(['runtime_flow']);
    const prompt = promptOf(turn!);
    const missingSection = prompt.slice(prompt.indexOf('Missing obligations'), prompt.indexOf('Already certified evidence'));
    expect(missingSection).toContain('- runtime_flow scenario=default completeness=contract_complete granularity=stepwise');
    expect(missingSection).not.toMatch(/- (implementation_location|focused_tests)/);
    // The static worker's certified evidence came along as bounded data, with the instruction not to redo it.
    const covered = prompt.slice(prompt.indexOf('Already certified evidence'));
    expect(covered).toContain('Do not repeat covered discovery');
    expect(covered).toMatch(/- implementation_location: \{.*"path":"src\/config.ts"/);
    expect(covered).toMatch(/- focused_tests: \{.*"identifier":"skips upload in dry run"/);
    expect(Buffer.byteLength(covered)).toBeLessThan(WORKER.maxCoveredTotalBytes + 1_024);
    // Its focused test is the only command the model may run.
    expect(prompt).toContain('["npx","vitest","run","test/deploy.test.ts","-t","deploy skips upload in dry run"]');

    // Validated and certified: the store now holds all three predicates.
    expect(certifiedPredicates(db, '--dry-run')).toEqual(['focused_tests', 'implementation_location', 'runtime_flow']);

    const again = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(again.resolution.kind).toBe('composite_hit');
    expect(again.cacheHit).toBe(true);
    expect(again.workerSpawned).toBe(false);
    expect(again.modelWorkersStarted).toBe(0);
    expect(again.context).toContain('5 consumer');
    expect(starts(sim.log)).toHaveLength(1);

    // Accounting: the codex attempt with its model, tokens, duration and price; the hit avoided both runs.
    const runs = evidenceRuns(db);
    expect(runs.map((r) => [r.worker, r.model, r.outcome])).toEqual([
      ['static', null, 'proposed'],
      ['codex', 'gpt-sim-mini', 'proposed'],
    ]);
    // 2000 uncached × $1 + 1000 cached × $0.1 + 200 output × $4 per Mtok
    expect(runs[1]).toMatchObject({ input_tokens: 3000, cached_input_tokens: 1000, output_tokens: 200, price_microusd: 2900 });
    const record = new RunsStore(db).recent(1)[0]!;
    // One table: the Codex run is the ladder's row itself (with its turns), not a second row elsewhere.
    expect(db.prepare('SELECT run_id FROM worker_runs ORDER BY id').all()).toEqual([{ run_id: null }, { run_id: record.runId }]);
    expect(record).toMatchObject({ worker: 'codex', model: 'gpt-sim-mini', route: 'trace.state-flow', inputTokens: 3000, cachedInputTokens: 1000, outputTokens: 200, priceMicroUsd: 2900, outcome: 'proposed', cleanupRemoved: true });
    expect(record.durationMs).toBeGreaterThan(0);
    const rows = stats(db).filter((r) => r.route === 'trace.state-flow');
    expect(rows.find((r) => r.model === '*')).toMatchObject({ resolutions: 2, hits: 1 });
    expect(rows.find((r) => r.model === 'gpt-sim-mini')).toMatchObject({ workerRuns: 1, costSpentUsd: 0.0029, tokensSpent: 3200, workersAvoided: 1, tokensAvoided: 3200, costAvoidedUsd: 0.0029 });
    expect(rows.find((r) => r.model === 'static')).toMatchObject({ workerRuns: 1, costSpentUsd: 0, workersAvoided: 1, costAvoidedUsd: 0 });
  });

  it('keeps a price the profile does not know unknown, in the run records and in what a hit avoided', async () => {
    const sim = simulator(join(repo.dataDir, 'sims'), 'unpriced', { turns: [{ steps: [{ usage: { input: 3000, cached: 1000, output: 200 } }, { message: FLOW_ANSWER }] }] });
    // The cached-input rate is unknown, and this run read cached input.
    const pricing = [{ model: 'gpt-sim-mini', input_usd_per_mtok: 1, cached_input_usd_per_mtok: null, output_usd_per_mtok: 4 }];
    const { db, engine } = ladderEngine(repo, ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 20_000 }, { pricing }));
    await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    const hit = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(hit.workerSpawned).toBe(false);

    expect(evidenceRuns(db).at(-1)).toMatchObject({ model: 'gpt-sim-mini', input_tokens: 3000, price_microusd: null });
    expect(new RunsStore(db).recent(1)[0]).toMatchObject({ priceMicroUsd: null });
    expect(stats(db).find((r) => r.route === 'trace.state-flow' && r.model === 'gpt-sim-mini')).toMatchObject({
      workerRuns: 1,
      tokensSpent: 3200,
      costSpentUsd: null,
      workersAvoided: 1,
      tokensAvoided: 3200,
      costAvoidedUsd: null,
    });
  });

  it('stops the Codex worker at the per-connection limit while static still runs, and runs it later for the missing part only', async () => {
    const sim = simulator(join(repo.dataDir, 'sims'), 'limited', { turns: [{ steps: [{ usage: { input: 500, cached: 0, output: 50 } }, { message: FLOW_ANSWER }] }] });
    const { db, engine } = ladderEngine(repo, ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 20_000 }));

    const limited = await engine.resolve(need(repo, 'trace.state-flow', DRY), options({ modelWorkersLeft: 0 }));
    expect(limited.workerSpawned).toBe(true);
    expect(limited.modelWorkersStarted).toBe(0);
    expect(limited.satisfied).toEqual(['implementation_location', 'focused_tests']);
    expect(limited.missing).toEqual(['runtime_flow']);
    expect(limited.context).not.toContain('flow (default)');
    expect(starts(sim.log)).toEqual([]);
    expect(evidenceRuns(db).map((r) => r.worker)).toEqual(['static']);

    // With a worker left, the ladder runs again for runtime_flow only: static does not run again (its
    // certified negative outcome says it cannot trace this flow on these bytes), codex does; the static
    // part certified before is reused, not recomputed.
    const later = await engine.resolve(need(repo, 'trace.state-flow', DRY), options({ modelWorkersLeft: 1 }));
    expect(later.resolution.kind).toBe('partial_hit');
    expect(later.modelWorkersStarted).toBe(1);
    expect(later.missing).toEqual([]);
    expect(evidenceRuns(db).map((r) => r.worker)).toEqual(['static', 'codex']);
    expect(certifiedPredicates(db, '--dry-run')).toEqual(['focused_tests', 'implementation_location', 'runtime_flow']);
    expect(Object.keys((turnStarts(sim.log)[0]!.params as any).outputSchema.properties)).toEqual(['runtime_flow']);
  });

  it('cancellation mid-turn kills the whole process tree and certifies nothing of what the model had already said', async () => {
    const valid = { implementation_location: { locations: [{ role: 'primary', path: 'src/deploy.ts', symbol: 'deploy', start_line: 3, end_line: 7 }], gaps: [] } };
    const sim = simulator(join(repo.dataDir, 'sims'), 'cancel', {
      turns: [{ steps: [{ usage: { input: 800, cached: 0, output: 40 } }, { message: valid }, { spawnSleep: 300 }, { hang: true }] }],
    });
    const { db, engine } = ladderEngine(repo, ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 20_000 }));
    const ac = new AbortController();
    const running = engine.resolve(need(repo, 'locate.implementation', BEHAVIOR), options({ signal: ac.signal }));
    await waitForEvent(sim.log, (e) => e.event === 'grandchild', 30_000);
    ac.abort(new Error('cancelled by the client'));
    await expect(running).rejects.toMatchObject({ code: 'cancelled' });

    expect(readLog(sim.log).some((e) => e.event === 'request' && e.method === 'turn/interrupt')).toBe(true);
    expect(await treeGone(sim.log)).toBe(true);
    expect(certifiedPredicates(db, BEHAVIOR.name)).toEqual([]);
    const afterwards = await engine.resolve(need(repo, 'locate.implementation', BEHAVIOR), options({ cacheOnly: true }));
    expect(afterwards.resolution.kind).toBe('bypass');
    expect(afterwards.satisfied).toEqual([]);
    expect(afterwards.context).not.toContain('src/deploy.ts');
    // What the cancelled run spent is still accounted: 800 input × $1 + 40 output × $4 per Mtok.
    expect(new RunsStore(db).recent(1)[0]).toMatchObject({ outcome: 'cancelled', cleanupRemoved: true, inputTokens: 800, priceMicroUsd: 960 });
    expect(evidenceRuns(db).at(-1)).toMatchObject({ worker: 'codex', model: 'gpt-sim-mini', outcome: 'cancelled', input_tokens: 800, output_tokens: 40, price_microusd: 960 });
    expect(stats(db).find((r) => r.route === 'locate.implementation' && r.model === 'gpt-sim-mini')).toMatchObject({ workerRuns: 1, tokensSpent: 840, costSpentUsd: 0.00096 });
  });

  it('a timeout likewise leaves no process and serves only what static certified', async () => {
    const sim = simulator(join(repo.dataDir, 'sims'), 'timeout', {
      turns: [{ ignoreInterrupt: true, steps: [{ message: FLOW_ANSWER }, { spawnSleep: 300 }, { hang: true }] }],
    });
    // Long enough for the app server to start on a loaded machine, so the deadline hits mid-turn.
    const { db, engine } = ladderEngine(repo, ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 12_000 }));
    const started = Date.now();
    const result = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(Date.now() - started).toBeLessThan(35_000);

    expect(result.modelWorkersStarted).toBe(1);
    expect(result.satisfied).toEqual(['implementation_location', 'focused_tests']);
    expect(result.missing).toEqual(['runtime_flow']);
    expect(result.context).not.toContain('flow (default)');
    expect(await treeGone(sim.log)).toBe(true);
    expect(certifiedPredicates(db, '--dry-run')).toEqual(['focused_tests', 'implementation_location']);
    expect(evidenceRuns(db).at(-1)).toMatchObject({ worker: 'codex', model: 'gpt-sim-mini', outcome: 'timeout' });
    expect(new RunsStore(db).recent(1)[0]).toMatchObject({ outcome: 'timeout', reason: 'codex turn timeout: turn deadline passed' });
  });
});
