// Migration 008 (issue 14 item 6): a data directory written by the old schema,
// with a run in each of the two old tables (the ladder's REAL-USD rows and the
// Codex lifecycle's micro-USD rows, written with the old writers' exact SQL),
// comes up with one table of worker runs priced in integer micro-USD, every
// reference to a run intact, each Codex evidence run once, and the readers
// (`needle runs`, accounting, the control plane's reports) reading it.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { recentWorkerRuns, recordRejection, recordResolution, rejectionsForNeed, stats } from '../../src/store/evidence/accounting.js';
import { avoidedRunsOf, runsForNeed } from '../../src/store/evidence/reports.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import type { Digest } from '../../src/core/digest.js';
import { cleanupAll, tempDir } from '../mcp/fixtures.js';

afterAll(cleanupAll);

const NEED = `b3:${'a'.repeat(64)}` as Digest;
const T = 1_750_000_000_000;

// The ladder's writer before migration 010 (store/evidence/accounting.ts recordWorkerRun).
function oldLadderRun(db: Db, r: { worker: string; model: string | null; outcome: string; tokens: [number, number, number]; costUsd: number | null; durationMs: number; at: number }): number {
  const row = db
    .prepare(
      `INSERT INTO evidence_worker_runs (need_id, route, worker, model, outcome, input_tokens, cached_input_tokens,
         output_tokens, cost_usd, duration_ms, created_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(NEED, 'trace.state-flow', r.worker, r.model, r.outcome, ...r.tokens, r.costUsd, r.durationMs, r.at);
  return Number(row.lastInsertRowid);
}

// The Codex lifecycle's writer before migration 010 (workers/runs-store.ts RunsStore.record).
function oldCodexRun(db: Db, r: { runId: string; needId: string | null; route: string | null; tokens: [number, number, number]; price: number | null; started: number; durationMs: number; outcome: string; attempts: number }): void {
  db.prepare(`INSERT INTO worker_runs (run_id, worker, model, need_id, route, started_unix_ms, duration_ms,
      input_tokens, cached_input_tokens, output_tokens, price_microusd, outcome, reason, proposals, sandboxed, run_dir, cleanup_removed, cleanup_error)
      VALUES (@runId, @worker, @model, @needId, @route, @startedUnixMs, @durationMs, @inputTokens, @cachedInputTokens, @outputTokens,
      @priceMicroUsd, @outcome, @reason, @proposals, @sandboxed, @runDir, @cleanupRemoved, @cleanupError)`).run({
    runId: r.runId,
    worker: 'codex',
    model: 'gpt-sim-mini',
    needId: r.needId,
    route: r.route,
    startedUnixMs: r.started,
    durationMs: r.durationMs,
    inputTokens: r.tokens[0],
    cachedInputTokens: r.tokens[1],
    outputTokens: r.tokens[2],
    priceMicroUsd: r.price,
    outcome: r.outcome,
    reason: null,
    proposals: 1,
    sandboxed: 1,
    runDir: '/nonexistent/run',
    cleanupRemoved: 1,
    cleanupError: null,
  });
  for (let i = 0; i < r.attempts; i++)
    db.prepare(`INSERT INTO worker_attempts (run_id, ordinal, kind, status, output_valid, error, approvals_accepted, approvals_declined)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(r.runId, i, i === 0 ? 'initial' : 'repair', 'completed', i === r.attempts - 1 ? 1 : 0, null, 0, 0);
}

describe('migration 010: one table of worker runs', () => {
  it('moves the rows of both old tables into one, in integer micro-USD, keeping every reference and each run once', () => {
    const file = join(tempDir('needle-mig-'), 'needle.sqlite3');
    const before = MIGRATIONS.filter((m) => m.id < 10);
    expect(before).toHaveLength(9);
    const old = openDb(file, before);
    const staticId = oldLadderRun(old, { worker: 'static', model: null, outcome: 'proposed', tokens: [0, 0, 0], costUsd: 0, durationMs: 40, at: T });
    // A Codex evidence run: the ladder's row (REAL USD; 0.00096 is not exact in binary) and the lifecycle's row of the same run.
    oldCodexRun(old, { runId: 'run_a', needId: NEED, route: 'trace.state-flow', tokens: [800, 0, 40], price: 960, started: T + 100, durationMs: 4000, outcome: 'invalid', attempts: 2 });
    const codexId = oldLadderRun(old, { worker: 'codex', model: 'gpt-sim-mini', outcome: 'unresolved', tokens: [800, 0, 40], costUsd: 0.00096, durationMs: 4010, at: T + 4200 });
    // A run whose price was unknown, and a change role's run (no need, no ladder row).
    const unpricedId = oldLadderRun(old, { worker: 'codex', model: 'gpt-other', outcome: 'proposed', tokens: [10, 0, 1], costUsd: null, durationMs: 5, at: T + 5000 });
    oldCodexRun(old, { runId: 'run_change', needId: null, route: 'prepare.change', tokens: [1200, 0, 100], price: 2400, started: T + 6000, durationMs: 900, outcome: 'proposed', attempts: 1 });
    recordRejection(old, { needId: NEED, workerRunId: codexId, predicate: 'runtime_flow', reasons: ['step 2 is outside the file'], payload: {} }, T + 4300);
    const hit = recordResolution(
      old,
      { needId: NEED, repositoryRoot: '/repo', requestDigest: NEED, route: 'trace.state-flow', subjectKind: 'cli_option', subjectName: '--dry-run', kind: 'full_hit', satisfied: ['runtime_flow'], missing: [], cacheHit: true, workersRun: 0, sufficiencyId: null, contextBytes: 10, durationMs: 1, avoidedRuns: [staticId, codexId] },
      T + 7000,
    );
    old.close();

    const db = openDb(file);
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '%worker%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
      expect(tables).toEqual(['worker_attempts', 'worker_runs']);
      const rows = db.prepare('SELECT id, run_id, need_id, route, worker, model, outcome, price_microusd, typeof(price_microusd) AS unit FROM worker_runs ORDER BY id').all();
      expect(rows).toEqual([
        { id: staticId, run_id: null, need_id: NEED, route: 'trace.state-flow', worker: 'static', model: null, outcome: 'proposed', price_microusd: 0, unit: 'integer' },
        // The two rows of one Codex run became one, under the ladder's id, with the lifecycle's details.
        { id: codexId, run_id: 'run_a', need_id: NEED, route: 'trace.state-flow', worker: 'codex', model: 'gpt-sim-mini', outcome: 'invalid', price_microusd: 960, unit: 'integer' },
        { id: unpricedId, run_id: null, need_id: NEED, route: 'trace.state-flow', worker: 'codex', model: 'gpt-other', outcome: 'proposed', price_microusd: null, unit: 'null' },
        { id: unpricedId + 1, run_id: 'run_change', need_id: null, route: 'prepare.change', worker: 'codex', model: 'gpt-sim-mini', outcome: 'proposed', price_microusd: 2400, unit: 'integer' },
      ]);

      // Readers: the model runs with their turns, the ladder's runs with their rejections, accounting and reports.
      const runs = new RunsStore(db);
      expect(runs.recent(10).map((r) => [r.runId, r.attempts.length, r.priceMicroUsd])).toEqual([['run_change', 1, 2400], ['run_a', 2, 960]]);
      expect(recentWorkerRuns(db, 10).map((r) => [r.id, r.worker, r.costUsd, r.rejections.length])).toEqual([
        [unpricedId, 'codex', null, 0],
        [codexId, 'codex', 0.00096, 1],
        [staticId, 'static', 0, 0],
      ]);
      expect(runsForNeed(db, NEED)).toHaveLength(3);
      expect(avoidedRunsOf(db, hit).map((r) => r.id)).toEqual([staticId, codexId]);
      expect(rejectionsForNeed(db, NEED)).toHaveLength(1);
      expect(stats(db).find((r) => r.model === 'gpt-sim-mini')).toMatchObject({ workerRuns: 1, tokensSpent: 840, costSpentUsd: 0.00096, workersAvoided: 1, costAvoidedUsd: 0.00096 });

      // The references now point at the one table and are still enforced.
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(() => recordRejection(db, { needId: NEED, workerRunId: 9999, predicate: null, reasons: ['x'], payload: {} }, T)).toThrow(/FOREIGN KEY/);
      expect(db.prepare('SELECT id FROM schema_migrations WHERE id = 8').get()).toEqual({ id: 8 });
    } finally {
      db.close();
    }
    // Opening again applies nothing and changes nothing.
    const again = openDb(file);
    expect(again.prepare('SELECT count(*) AS n FROM worker_runs').get()).toEqual({ n: 4 });
    again.close();
  });
});
