import type { Migration } from './index.js';

// Certified negative outcomes (SPEC §16a): a deterministic worker ran for some
// obligations on exact bytes and could not satisfy them (or found the subject
// ambiguous). Like certificates, a row is servable only once its
// certification row exists, written last in the transaction that stores the
// outcome and its dependencies.
export const negativeOutcomes: Migration = {
  id: 5,
  name: 'negative_outcomes',
  sql: `
CREATE TABLE evidence_negative_outcomes (
  id TEXT PRIMARY KEY CHECK (id GLOB 'b3:*' AND length(id) = 67),
  worker TEXT NOT NULL,
  worker_definition TEXT NOT NULL,
  validator_definition TEXT NOT NULL,
  subject_id TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject_name TEXT NOT NULL,
  world_id TEXT NOT NULL,
  basis TEXT NOT NULL,
  obligations TEXT NOT NULL,
  predicates TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('ambiguous', 'unsatisfied')),
  outcome TEXT NOT NULL,
  snapshot_digest TEXT NOT NULL,
  manifest_digest TEXT NOT NULL,
  origin_need_id TEXT NOT NULL,
  worker_run_id INTEGER REFERENCES evidence_worker_runs (id),
  issued_unix_ms INTEGER NOT NULL,
  invalidated_unix_ms INTEGER,
  invalidated_reason TEXT
) STRICT;
CREATE INDEX evidence_negative_outcomes_by_key
  ON evidence_negative_outcomes (worker_definition, subject_id, world_id, basis);

CREATE TABLE evidence_negative_dependencies (
  negative_id TEXT NOT NULL REFERENCES evidence_negative_outcomes (id),
  path TEXT NOT NULL,
  digest TEXT NOT NULL,
  PRIMARY KEY (negative_id, path)
) STRICT, WITHOUT ROWID;

CREATE TABLE evidence_negative_certifications (
  negative_id TEXT PRIMARY KEY REFERENCES evidence_negative_outcomes (id),
  certified_unix_ms INTEGER NOT NULL
) STRICT;
`,
};
