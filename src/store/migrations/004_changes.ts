import type { Migration } from './index.js';

// Verified changes (SPEC §14). The only binary columns are the before/after
// blobs of patched files and the apply journal's before-bytes. Transitions the
// product relies on for safety are enforced here, not only in code: revision
// bounds, the single repair, one live apply per change, append-only events.
export const changes: Migration = {
  id: 4,
  name: 'changes',
  sql: `
CREATE TABLE change_requests (
  change_id TEXT PRIMARY KEY CHECK (change_id GLOB 'chg_[0-9a-f]*' AND length(change_id) = 28),
  request_digest TEXT NOT NULL CHECK (length(request_digest) = 67),
  repository_root TEXT NOT NULL,
  lineage TEXT NOT NULL,
  base_source_digest TEXT NOT NULL CHECK (length(base_source_digest) = 67),
  base_head TEXT NOT NULL,
  request_json TEXT NOT NULL,
  context_json TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('requested', 'prepared', 'failed', 'verified', 'rejected',
    'repairable', 'inconclusive', 'repairing', 'applying', 'applied')),
  latest_revision INTEGER NOT NULL DEFAULT 0 CHECK (latest_revision BETWEEN 0 AND 2),
  repair_attempted INTEGER NOT NULL DEFAULT 0 CHECK (repair_attempted IN (0, 1)),
  failure_rule TEXT,
  failure_message TEXT,
  created_unix_ms INTEGER NOT NULL,
  updated_unix_ms INTEGER NOT NULL,
  CHECK (latest_revision < 2 OR repair_attempted = 1)
) STRICT;
CREATE INDEX change_requests_by_time ON change_requests (created_unix_ms);

CREATE TABLE change_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  change_id TEXT NOT NULL REFERENCES change_requests (change_id),
  event_type TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX change_events_by_change ON change_events (change_id, id);
CREATE TRIGGER change_events_no_update BEFORE UPDATE ON change_events
  BEGIN SELECT RAISE(ABORT, 'change_events is append-only'); END;
CREATE TRIGGER change_events_no_delete BEFORE DELETE ON change_events
  BEGIN SELECT RAISE(ABORT, 'change_events is append-only'); END;

CREATE TABLE patch_artifacts (
  change_id TEXT NOT NULL REFERENCES change_requests (change_id),
  revision INTEGER NOT NULL CHECK (revision IN (1, 2)),
  patch_id TEXT NOT NULL CHECK (length(patch_id) = 67),
  base_source_digest TEXT NOT NULL,
  summary TEXT NOT NULL,
  coverage_json TEXT NOT NULL,
  residual_risks_json TEXT NOT NULL,
  discrepancies_json TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (change_id, revision)
) STRICT;

CREATE TABLE patch_files (
  change_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  ordinal INTEGER NOT NULL,
  path TEXT NOT NULL,
  operation TEXT NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
  before_digest TEXT,
  after_digest TEXT,
  before_blob BLOB,
  after_blob BLOB,
  PRIMARY KEY (change_id, revision, path),
  FOREIGN KEY (change_id, revision) REFERENCES patch_artifacts (change_id, revision),
  CHECK ((operation = 'create') = (before_blob IS NULL)),
  CHECK ((operation = 'delete') = (after_blob IS NULL))
) STRICT;

CREATE TABLE change_verifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  verification_id TEXT NOT NULL CHECK (length(verification_id) = 67),
  change_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  patch_id TEXT NOT NULL,
  verifier_definition TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('verified', 'rejected', 'repairable', 'inconclusive')),
  verifier_started INTEGER NOT NULL CHECK (verifier_started IN (0, 1)),
  artifact_json TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  FOREIGN KEY (change_id, revision) REFERENCES patch_artifacts (change_id, revision)
) STRICT;
CREATE INDEX change_verifications_by_change ON change_verifications (change_id, revision, id);

CREATE TABLE change_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  change_id TEXT NOT NULL REFERENCES change_requests (change_id),
  revision INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('implementer', 'verifier', 'test')),
  adapter TEXT NOT NULL,
  outcome TEXT NOT NULL,
  exit_code INTEGER,
  duration_ms INTEGER NOT NULL,
  usage_json TEXT,
  cost_microusd INTEGER,
  output_digest TEXT,
  cleanup_removed INTEGER NOT NULL CHECK (cleanup_removed IN (0, 1)),
  cleanup_error TEXT,
  created_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE change_applies (
  apply_id TEXT PRIMARY KEY CHECK (length(apply_id) = 67),
  change_id TEXT NOT NULL REFERENCES change_requests (change_id),
  revision INTEGER NOT NULL,
  patch_id TEXT NOT NULL,
  repository_root TEXT NOT NULL,
  pre_source_digest TEXT NOT NULL,
  post_source_digest TEXT,
  status TEXT NOT NULL CHECK (status IN ('applying', 'applied', 'rolled_back', 'rollback_failed')),
  created_dirs_json TEXT NOT NULL,
  error TEXT,
  created_unix_ms INTEGER NOT NULL,
  completed_unix_ms INTEGER
) STRICT;
CREATE UNIQUE INDEX change_applies_one_live ON change_applies (change_id) WHERE status IN ('applying', 'applied');

CREATE TABLE change_apply_journal (
  apply_id TEXT NOT NULL REFERENCES change_applies (apply_id),
  ordinal INTEGER NOT NULL,
  path TEXT NOT NULL,
  operation TEXT NOT NULL CHECK (operation IN ('create', 'update', 'delete')),
  before_blob BLOB,
  before_mode INTEGER,
  after_digest TEXT,
  PRIMARY KEY (apply_id, ordinal)
) STRICT;
`,
};
