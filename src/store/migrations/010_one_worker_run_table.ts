import type { Migration } from './index.js';

// One table for every worker run, priced in integer micro-USD (issue 14 item
// 6). Until now the ladder wrote `evidence_worker_runs` (price as REAL USD)
// and the Codex lifecycle wrote `worker_runs` (integer micro-USD), so an
// evidence run of the Codex worker had a row in each. The merged table keeps
// the ladder's integer ids (certificates, negative outcomes, rejections and
// avoided runs point at them), folds each old Codex row into the ladder row of
// the same run (same need, worker, model and token counts, written after the
// run started) and adds the Codex rows with no ladder row (change roles) with
// fresh ids. Model-run details (run id, turns, cleanup) are NULL for runs that
// have none (the static worker). The table is rebuilt the documented SQLite
// way; the runner applies migrations with foreign keys off and checks them
// before committing (store/db.ts), and the renames carry the references of
// the dependent tables over to the new `worker_runs`.
export const oneWorkerRunTable: Migration = {
  id: 10,
  name: 'one_worker_run_table',
  sql: `
CREATE TABLE worker_runs_merged (
  id INTEGER PRIMARY KEY,
  run_id TEXT UNIQUE,
  need_id TEXT,
  route TEXT,
  worker TEXT NOT NULL,
  model TEXT,
  outcome TEXT NOT NULL,
  reason TEXT,
  input_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  price_microusd INTEGER CHECK (price_microusd >= 0),
  started_unix_ms INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  proposals INTEGER,
  sandboxed INTEGER CHECK (sandboxed IN (0,1)),
  run_dir TEXT,
  cleanup_removed INTEGER CHECK (cleanup_removed IN (0,1)),
  cleanup_error TEXT
) STRICT;

INSERT INTO worker_runs_merged (id, need_id, route, worker, model, outcome, input_tokens, cached_input_tokens, output_tokens,
    price_microusd, started_unix_ms, duration_ms, created_unix_ms)
  SELECT id, need_id, route, worker, model, outcome, input_tokens, cached_input_tokens, output_tokens,
    CASE WHEN cost_usd IS NULL THEN NULL ELSE CAST(ROUND(cost_usd * 1000000) AS INTEGER) END,
    created_unix_ms - duration_ms, duration_ms, created_unix_ms
  FROM evidence_worker_runs ORDER BY id;

UPDATE worker_runs_merged AS m SET run_id = o.run_id, outcome = o.outcome, reason = o.reason, price_microusd = o.price_microusd,
    started_unix_ms = o.started_unix_ms, proposals = o.proposals, sandboxed = o.sandboxed, run_dir = o.run_dir,
    cleanup_removed = o.cleanup_removed, cleanup_error = o.cleanup_error
  FROM worker_runs AS o
  WHERE m.id = (SELECT e.id FROM worker_runs_merged e
    WHERE e.run_id IS NULL AND e.need_id = o.need_id AND e.worker = o.worker AND e.model IS o.model
      AND e.input_tokens = o.input_tokens AND e.cached_input_tokens = o.cached_input_tokens AND e.output_tokens = o.output_tokens
      AND e.created_unix_ms >= o.started_unix_ms
    ORDER BY e.created_unix_ms, e.id LIMIT 1);

INSERT INTO worker_runs_merged (run_id, need_id, route, worker, model, outcome, reason, input_tokens, cached_input_tokens, output_tokens,
    price_microusd, started_unix_ms, duration_ms, created_unix_ms, proposals, sandboxed, run_dir, cleanup_removed, cleanup_error)
  SELECT run_id, need_id, route, worker, model, outcome, reason, input_tokens, cached_input_tokens, output_tokens,
    price_microusd, started_unix_ms, duration_ms, started_unix_ms + duration_ms, proposals, sandboxed, run_dir, cleanup_removed, cleanup_error
  FROM worker_runs WHERE run_id NOT IN (SELECT run_id FROM worker_runs_merged WHERE run_id IS NOT NULL)
  ORDER BY started_unix_ms, rowid;

CREATE TABLE worker_attempts_merged (
  run_id TEXT NOT NULL REFERENCES worker_runs_merged (run_id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('initial','repair')),
  status TEXT NOT NULL,
  output_valid INTEGER NOT NULL CHECK (output_valid IN (0,1)),
  error TEXT,
  approvals_accepted INTEGER NOT NULL,
  approvals_declined INTEGER NOT NULL,
  PRIMARY KEY (run_id, ordinal)
) STRICT;
INSERT INTO worker_attempts_merged SELECT run_id, ordinal, kind, status, output_valid, error, approvals_accepted, approvals_declined FROM worker_attempts;

DROP TABLE worker_attempts;
DROP TABLE worker_runs;
ALTER TABLE evidence_worker_runs RENAME TO worker_runs;
DROP TABLE worker_runs;
ALTER TABLE worker_runs_merged RENAME TO worker_runs;
ALTER TABLE worker_attempts_merged RENAME TO worker_attempts;
CREATE INDEX worker_runs_by_need ON worker_runs (need_id);
CREATE INDEX worker_runs_recent ON worker_runs (created_unix_ms);
CREATE INDEX worker_runs_by_start ON worker_runs (started_unix_ms);
`,
};
