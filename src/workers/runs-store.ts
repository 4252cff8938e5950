// Model-worker runs (SPEC §10.9): usage, duration, price and cleanup of every
// run, and the turns it took, kept in the one table of worker runs
// (store/worker-runs.ts writes it). Workers hand a finished record to the
// store; nothing here decides anything.
import type { Db } from '../store/db.js';
import type { RoleProfile } from '../core/profile.js';
import { recordWorkerRun, type AttemptRecord, type ModelRunDetail, type NewWorkerRun, type WorkerRunRecord } from '../store/worker-runs.js';

export type { AttemptRecord } from '../store/worker-runs.js';

export type RunOutcome = 'proposed' | 'unresolved' | 'invalid' | 'failed' | 'timeout' | 'cancelled' | 'unsupported';

/** A finished model run as a worker hands it to the store: the common run fields and the model-run details. */
export interface RunRecord extends Omit<NewWorkerRun, 'outcome' | 'detail'>, ModelRunDetail {
  readonly outcome: RunOutcome;
}

export type PricingTable = NonNullable<RoleProfile['pricing']>;

/**
 * Price of a run in micro-USD from the profile's table. Input tokens include
 * the cached ones; a rate that is needed but unknown makes the price unknown
 * (null), never a guess.
 */
export function priceMicroUsd(
  pricing: PricingTable | undefined,
  model: string | null,
  t: { inputTokens: number; cachedInputTokens: number; outputTokens: number },
): number | null {
  const row = model ? pricing?.find((p) => p.model === model) : undefined;
  if (!row) return null;
  const cached = Math.min(t.cachedInputTokens, t.inputTokens);
  const parts: [number, number | null][] = [
    [t.inputTokens - cached, row.input_usd_per_mtok],
    [cached, row.cached_input_usd_per_mtok],
    [t.outputTokens, row.output_usd_per_mtok],
  ];
  let usd = 0;
  for (const [tokens, rate] of parts) {
    if (tokens === 0) continue;
    if (rate === null) return null;
    usd += tokens * rate; // USD per million tokens × tokens = micro-USD
  }
  return Math.round(usd);
}

export interface RunTotals {
  readonly worker: string;
  readonly model: string | null;
  readonly runs: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly durationMs: number;
  /** Sum over runs with a known price; `unpricedRuns` says how many had none. */
  readonly priceMicroUsd: number;
  readonly unpricedRuns: number;
}

export class RunsStore {
  constructor(private readonly db: Db) {}

  /** Records the run in the one table of worker runs; returns its row id (what certificates and the ladder refer to). */
  record(run: RunRecord): number {
    const { runId, reason, proposals, sandboxed, runDir, cleanupRemoved, cleanupError, attempts, ...row } = run;
    return recordWorkerRun(
      this.db,
      { ...row, detail: { runId, reason, proposals, sandboxed, runDir, cleanupRemoved, cleanupError, attempts } },
      run.startedUnixMs + run.durationMs,
    );
  }

  get(runId: string): RunRecord | null {
    const row = this.db.prepare('SELECT * FROM worker_runs WHERE run_id = ?').get(runId) as WorkerRunRecord | undefined;
    if (!row) return null;
    const attempts = (this.db.prepare('SELECT * FROM worker_attempts WHERE run_id = ? ORDER BY ordinal').all(runId) as Record<string, unknown>[]).map(
      (a): AttemptRecord => ({
        kind: a.kind as AttemptRecord['kind'],
        status: a.status as string,
        outputValid: a.output_valid === 1,
        error: a.error as string | null,
        approvalsAccepted: a.approvals_accepted as number,
        approvalsDeclined: a.approvals_declined as number,
      }),
    );
    return {
      runId,
      worker: row.worker,
      model: row.model,
      needId: row.need_id,
      route: row.route,
      startedUnixMs: row.started_unix_ms,
      durationMs: row.duration_ms,
      inputTokens: row.input_tokens,
      cachedInputTokens: row.cached_input_tokens,
      outputTokens: row.output_tokens,
      priceMicroUsd: row.price_microusd,
      outcome: row.outcome as RunOutcome,
      reason: row.reason,
      proposals: row.proposals ?? 0,
      sandboxed: row.sandboxed === 1,
      runDir: row.run_dir,
      cleanupRemoved: row.cleanup_removed === null ? null : row.cleanup_removed === 1,
      cleanupError: row.cleanup_error,
      attempts,
    };
  }

  /** The latest runs, newest first. */
  recent(limit: number): RunRecord[] {
    const ids = this.db.prepare('SELECT run_id FROM worker_runs WHERE run_id IS NOT NULL ORDER BY started_unix_ms DESC, id DESC LIMIT ?').all(limit) as { run_id: string }[];
    return ids.map((r) => this.get(r.run_id)!);
  }

  /** Totals per worker and model, for `needle stats`. */
  totals(): RunTotals[] {
    return (this.db.prepare(`SELECT worker, model, COUNT(*) AS runs, SUM(input_tokens) AS input, SUM(cached_input_tokens) AS cached,
        SUM(output_tokens) AS output, SUM(duration_ms) AS duration, COALESCE(SUM(price_microusd), 0) AS price,
        SUM(price_microusd IS NULL) AS unpriced
      FROM worker_runs WHERE run_id IS NOT NULL GROUP BY worker, model ORDER BY worker, model`).all() as Record<string, number | string | null>[]).map((r) => ({
      worker: r.worker as string,
      model: r.model as string | null,
      runs: r.runs as number,
      inputTokens: r.input as number,
      cachedInputTokens: r.cached as number,
      outputTokens: r.output as number,
      durationMs: r.duration as number,
      priceMicroUsd: r.price as number,
      unpricedRuns: r.unpriced as number,
    }));
  }

  /** Runs whose run directory was not removed, for the startup sweep to retry. */
  uncleaned(): { runId: string; runDir: string }[] {
    return (this.db.prepare('SELECT run_id, run_dir FROM worker_runs WHERE cleanup_removed = 0 AND run_dir IS NOT NULL').all() as { run_id: string; run_dir: string }[]).map(
      (r) => ({ runId: r.run_id, runDir: r.run_dir }),
    );
  }
}
