// The one table of worker runs (SPEC §10.9) and its one writer: every run of
// every worker — the static analyzer, a Codex evidence run, a Codex change
// role — is one row with its usage and its price in integer micro-USD (null
// when unknown: never guessed). A model run also carries its run id, its
// turns and the cleanup of its run directory. Nothing here decides anything.
import { relaxed, type Db } from './db.js';
import { statement } from './statements.js';

export interface AttemptRecord {
  readonly kind: 'initial' | 'repair';
  readonly status: string;
  readonly outputValid: boolean;
  readonly error: string | null;
  readonly approvalsAccepted: number;
  readonly approvalsDeclined: number;
}

/** What only a model run has: its id, its turns and the cleanup of its run directory. */
export interface ModelRunDetail {
  readonly runId: string;
  readonly reason: string | null;
  readonly proposals: number;
  readonly sandboxed: boolean;
  readonly runDir: string | null;
  readonly cleanupRemoved: boolean | null;
  readonly cleanupError: string | null;
  readonly attempts: readonly AttemptRecord[];
}

/** What every run has: who ran, how it ended, what it consumed and cost. */
export interface RunUsageFields {
  readonly worker: string;
  readonly model: string | null;
  readonly outcome: string;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /** Integer micro-USD; null when the price is unknown. */
  readonly priceMicroUsd: number | null;
  readonly durationMs: number;
}

export interface NewWorkerRun extends RunUsageFields {
  /** Null for a run that served no need (a change role). */
  readonly needId: string | null;
  readonly route: string | null;
  readonly startedUnixMs: number;
  readonly detail?: ModelRunDetail;
}

/**
 * A run that consumed nothing — no model, no tokens, no price: the static
 * analyzer — is history only. Its row is committed without an fsync; the
 * certification that follows it (a FULL commit of the same WAL) makes it
 * durable, and a crash before that loses a row nothing references yet. A run
 * that spent tokens or money is durable at once: it is what budgets count.
 */
function spentNothing(run: NewWorkerRun): boolean {
  return run.model === null && run.detail === undefined && run.inputTokens + run.cachedInputTokens + run.outputTokens === 0 && !run.priceMicroUsd;
}

/** Records one run (with its turns, in one transaction) and returns its row id. */
export function recordWorkerRun(db: Db, run: NewWorkerRun, nowMs: number): number {
  if (run.priceMicroUsd !== null && !(Number.isSafeInteger(run.priceMicroUsd) && run.priceMicroUsd >= 0))
    throw new RangeError(`a worker run's price must be a non-negative integer of micro-USD, got ${run.priceMicroUsd}`);
  return spentNothing(run) ? relaxed(db, () => insertRun(db, run, nowMs)) : insertRun(db, run, nowMs);
}

function insertRun(db: Db, run: NewWorkerRun, nowMs: number): number {
  const d = run.detail;
  return db.transaction(() => {
    const r = statement(
      db,
      `INSERT INTO worker_runs (run_id, need_id, route, worker, model, outcome, reason, input_tokens, cached_input_tokens, output_tokens,
         price_microusd, started_unix_ms, duration_ms, created_unix_ms, proposals, sandboxed, run_dir, cleanup_removed, cleanup_error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      d?.runId ?? null,
      run.needId,
      run.route,
      run.worker,
      run.model,
      run.outcome,
      d?.reason ?? null,
      run.inputTokens,
      run.cachedInputTokens,
      run.outputTokens,
      run.priceMicroUsd,
      run.startedUnixMs,
      run.durationMs,
      nowMs,
      d?.proposals ?? null,
      d === undefined ? null : d.sandboxed ? 1 : 0,
      d?.runDir ?? null,
      d === undefined || d.cleanupRemoved === null ? null : d.cleanupRemoved ? 1 : 0,
      d?.cleanupError ?? null,
    );
    const attempt = statement(
      db,
      `INSERT INTO worker_attempts (run_id, ordinal, kind, status, output_valid, error, approvals_accepted, approvals_declined)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    d?.attempts.forEach((a, i) => attempt.run(d.runId, i, a.kind, a.status, a.outputValid ? 1 : 0, a.error, a.approvalsAccepted, a.approvalsDeclined));
    return Number(r.lastInsertRowid);
  })();
}

/** A row of `worker_runs` as SQLite returns it. */
export interface WorkerRunRecord {
  id: number;
  run_id: string | null;
  need_id: string | null;
  route: string | null;
  worker: string;
  model: string | null;
  outcome: string;
  reason: string | null;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  price_microusd: number | null;
  started_unix_ms: number;
  duration_ms: number;
  created_unix_ms: number;
  proposals: number | null;
  sandboxed: number | null;
  run_dir: string | null;
  cleanup_removed: number | null;
  cleanup_error: string | null;
}

/** USD of an integer micro-USD price, for display (null stays unknown). */
export const usdOf = (microUsd: number | null): number | null => (microUsd === null ? null : microUsd / 1_000_000);
