import type { Migration } from './index.js';

// The proof-gated evidence cache (SPEC §8–§10). A certificate is servable only
// once its evidence_certifications row exists; that row is written last in
// the transaction that stores the artifact, its manifest and its claims, so a
// crash at any point leaves nothing servable that was not fully certified.
export const evidence: Migration = {
  id: 2,
  name: 'evidence',
  sql: `
CREATE TABLE evidence_worker_runs (
  id INTEGER PRIMARY KEY,
  need_id TEXT NOT NULL,
  route TEXT NOT NULL,
  worker TEXT NOT NULL,
  model TEXT,
  outcome TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL,
  duration_ms INTEGER NOT NULL,
  created_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE evidence_artifacts (
  id TEXT PRIMARY KEY CHECK (id GLOB 'b3:*' AND length(id) = 67),
  predicate TEXT NOT NULL CHECK (predicate IN ('implementation_location', 'runtime_flow', 'focused_tests')),
  subject_id TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject_name TEXT NOT NULL,
  world_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  primary_key TEXT,
  projection_bytes INTEGER NOT NULL,
  created_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE evidence_certificates (
  id TEXT PRIMARY KEY CHECK (id GLOB 'b3:*' AND length(id) = 67),
  artifact_id TEXT NOT NULL REFERENCES evidence_artifacts (id),
  predicate TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  world_id TEXT NOT NULL,
  facets TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('worktree_semantic', 'snapshot_exact')),
  snapshot_digest TEXT,
  manifest_digest TEXT NOT NULL,
  validator_definition TEXT NOT NULL,
  origin_need_id TEXT NOT NULL,
  origin_request TEXT NOT NULL,
  worker_run_id INTEGER REFERENCES evidence_worker_runs (id),
  issued_unix_ms INTEGER NOT NULL,
  invalidated_unix_ms INTEGER,
  invalidated_reason TEXT,
  CHECK ((scope = 'snapshot_exact') = (snapshot_digest IS NOT NULL))
) STRICT;
CREATE INDEX evidence_certificates_by_coverage ON evidence_certificates (predicate, subject_id, world_id);
CREATE INDEX evidence_certificates_by_artifact ON evidence_certificates (artifact_id);

CREATE TABLE evidence_dependencies (
  certificate_id TEXT NOT NULL REFERENCES evidence_certificates (id),
  path TEXT NOT NULL,
  digest TEXT NOT NULL,
  PRIMARY KEY (certificate_id, path)
) STRICT, WITHOUT ROWID;

CREATE TABLE evidence_claims (
  id TEXT PRIMARY KEY,
  predicate TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('location', 'flow_step', 'focused_test')),
  payload TEXT NOT NULL
) STRICT;

CREATE TABLE evidence_claim_origins (
  certificate_id TEXT NOT NULL REFERENCES evidence_certificates (id),
  claim_id TEXT NOT NULL REFERENCES evidence_claims (id),
  ordinal INTEGER NOT NULL,
  previous_claim_id TEXT,
  PRIMARY KEY (certificate_id, claim_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE evidence_claim_dependencies (
  certificate_id TEXT NOT NULL,
  claim_id TEXT NOT NULL,
  path TEXT NOT NULL,
  digest TEXT NOT NULL,
  PRIMARY KEY (certificate_id, claim_id, path),
  FOREIGN KEY (certificate_id, claim_id) REFERENCES evidence_claim_origins (certificate_id, claim_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE evidence_certifications (
  certificate_id TEXT PRIMARY KEY REFERENCES evidence_certificates (id),
  certified_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE evidence_rejections (
  id INTEGER PRIMARY KEY,
  need_id TEXT NOT NULL,
  worker_run_id INTEGER REFERENCES evidence_worker_runs (id),
  predicate TEXT,
  reasons TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE evidence_sufficiency (
  id TEXT PRIMARY KEY,
  need_id TEXT NOT NULL,
  world_id TEXT NOT NULL,
  resolution_kind TEXT NOT NULL,
  obligations TEXT NOT NULL,
  units TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE evidence_resolutions (
  id INTEGER PRIMARY KEY,
  need_id TEXT NOT NULL,
  request_digest TEXT NOT NULL,
  route TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject_name TEXT NOT NULL,
  resolution_kind TEXT NOT NULL,
  satisfied TEXT NOT NULL,
  missing TEXT NOT NULL,
  cache_hit INTEGER NOT NULL CHECK (cache_hit IN (0, 1)),
  workers_run INTEGER NOT NULL,
  sufficiency_id TEXT REFERENCES evidence_sufficiency (id),
  context_bytes INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  created_unix_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX evidence_resolutions_recent ON evidence_resolutions (created_unix_ms);

CREATE TABLE evidence_avoided_runs (
  resolution_id INTEGER NOT NULL REFERENCES evidence_resolutions (id),
  worker_run_id INTEGER NOT NULL REFERENCES evidence_worker_runs (id),
  PRIMARY KEY (resolution_id, worker_run_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE evidence_flights (
  key TEXT PRIMARY KEY,
  owner_pid INTEGER NOT NULL,
  owner_token TEXT NOT NULL,
  expires_unix_ms INTEGER NOT NULL
) STRICT;
`,
};
