import type { Migration } from './index.js';

// One row per model-worker run and one per turn (attempt) within it. Prices
// are micro-USD integers and NULL when the profile has no price for the model.
export const workers: Migration = {
  id: 3,
  name: 'workers',
  sql: `
CREATE TABLE worker_runs (
  run_id TEXT PRIMARY KEY,
  worker TEXT NOT NULL,
  model TEXT,
  need_id TEXT,
  route TEXT,
  started_unix_ms INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  price_microusd INTEGER,
  outcome TEXT NOT NULL CHECK (outcome IN ('proposed','unresolved','invalid','failed','timeout','cancelled','unsupported')),
  reason TEXT,
  proposals INTEGER NOT NULL,
  sandboxed INTEGER NOT NULL CHECK (sandboxed IN (0,1)),
  run_dir TEXT,
  cleanup_removed INTEGER CHECK (cleanup_removed IN (0,1)),
  cleanup_error TEXT
) STRICT;
CREATE INDEX worker_runs_by_model ON worker_runs (model, started_unix_ms);
CREATE INDEX worker_runs_by_need ON worker_runs (need_id);
CREATE TABLE worker_attempts (
  run_id TEXT NOT NULL REFERENCES worker_runs (run_id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('initial','repair')),
  status TEXT NOT NULL,
  output_valid INTEGER NOT NULL CHECK (output_valid IN (0,1)),
  error TEXT,
  approvals_accepted INTEGER NOT NULL,
  approvals_declined INTEGER NOT NULL,
  PRIMARY KEY (run_id, ordinal)
) STRICT;
`,
};
