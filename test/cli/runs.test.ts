// `needle runs` (issue "Hardening" 12): worker runs are visible without SQLite —
// need, worker, model, outcome, duration, tokens, rejections with their
// reasons, repair turns and the cleanup result — as text and as JSON.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataDir } from '../../src/store/datadir.js';
import { recordRejection } from '../../src/store/evidence/accounting.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import { CLI, cleanupAll, makeRepo, requireBuild, tempDir } from '../mcp/fixtures.js';

let repo: string;
beforeAll(() => {
  requireBuild();
  repo = makeRepo();
});
afterAll(cleanupAll);

function needle(args: string[], dataDir: string) {
  const r = spawnSync(process.execPath, [CLI, ...args, '--data-dir', dataDir], { cwd: repo, env: { ...process.env, NEEDLE_DATA_DIR: '' }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('needle runs', () => {
  it('lists the static worker run of a resolution, a model run with its repair turn and cleanup, and rejections with reasons', () => {
    const dataDir = tempDir('needle-data-');
    expect(needle(['init'], dataDir).code).toBe(0);
    const ctx = needle(['context', '--route', 'locate.implementation', '--subject', 'cli_option:--dry-run'], dataDir);
    expect(ctx.code, ctx.stderr).toBe(0);

    const { db } = openDataDir(dataDir);
    const runId = (db.prepare('SELECT id FROM worker_runs ORDER BY id DESC LIMIT 1').get() as { id: number }).id;
    recordRejection(db, { needId: `b3:${'1'.repeat(64)}`, workerRunId: runId, predicate: 'runtime_flow', reasons: ['step 2 is outside the file'], payload: {} }, Date.now());
    new RunsStore(db).record({
      runId: 'run_000000000000000000000001',
      worker: 'codex',
      model: 'gpt-test-mini',
      needId: `b3:${'2'.repeat(64)}`,
      route: 'trace.state-flow',
      startedUnixMs: Date.now(),
      durationMs: 1234,
      inputTokens: 900,
      cachedInputTokens: 100,
      outputTokens: 50,
      priceMicroUsd: 300,
      outcome: 'invalid',
      reason: 'output violates the contract',
      proposals: 0,
      sandboxed: true,
      runDir: '/nonexistent/run',
      cleanupRemoved: true,
      cleanupError: null,
      attempts: [
        { kind: 'initial', status: 'completed', outputValid: false, error: 'not JSON', approvalsAccepted: 0, approvalsDeclined: 0 },
        { kind: 'repair', status: 'completed', outputValid: false, error: 'not JSON', approvalsAccepted: 0, approvalsDeclined: 1 },
      ],
    });
    db.close();

    const text = needle(['runs'], dataDir);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/worker runs \(need resolutions\):\n(?:.*\n)*.*static {2}\w+ {2}\d+ ms {2}\d+ tokens {2}locate\.implementation need b3:/);
    expect(text.stdout).toContain('rejected runtime_flow: step 2 is outside the file');
    expect(text.stdout).toMatch(/codex \(gpt-test-mini\) {2}invalid {2}1234 ms {2}950 tokens {2}trace\.state-flow need b3:2222/);
    expect(text.stdout).toContain('2 turn(s), 1 repair(s); run directory removed; output violates the contract');

    const json = JSON.parse(needle(['runs', '--json'], dataDir).stdout) as { worker_runs: { worker: string; rejections: unknown[] }[]; model_runs: { attempts: { kind: string }[]; cleanupRemoved: boolean }[] };
    // One table: the Codex evidence run is a run of a need resolution and a model run, one row listed in both views.
    expect(json.worker_runs.map((r) => r.worker)).toEqual(['codex', 'static']);
    expect(json.worker_runs[1]).toMatchObject({ worker: 'static', rejections: [{ predicate: 'runtime_flow', reasons: ['step 2 is outside the file'] }] });
    expect(json.model_runs[0]!.attempts.map((a) => a.kind)).toEqual(['initial', 'repair']);
    expect(json.model_runs[0]!.cleanupRemoved).toBe(true);

    const bad = needle(['runs', '--limit', '0'], dataDir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^needle: --limit must be an integer 1\.\.500\n$/);
  }, 90_000);
});
