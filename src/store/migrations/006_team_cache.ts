import type { Migration } from './index.js';

// The local side of the team cache (issue 12). A certificate imported from the
// team cache is stored like any other (evidence_* tables, certification row
// last) after the local validators re-checked it; these tables only record
// where it came from, which remote rows were rejected for which local bytes
// (never retried for the same bytes), what was published, and counters for
// `needle stats`. No URL with a password and no password is ever stored.
export const teamCache: Migration = {
  id: 6,
  name: 'team_cache',
  sql: `
CREATE TABLE team_imports (
  certificate_id TEXT PRIMARY KEY CHECK (certificate_id GLOB 'b3:*' AND length(certificate_id) = 67),
  origin TEXT NOT NULL,
  publisher TEXT NOT NULL,
  worker_model TEXT,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL,
  imported_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE team_rejections (
  certificate_id TEXT NOT NULL,
  local_bytes TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (certificate_id, local_bytes)
) STRICT, WITHOUT ROWID;

CREATE TABLE team_publications (
  certificate_id TEXT PRIMARY KEY,
  published_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE team_counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;
`,
};
