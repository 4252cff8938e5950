import type { Migration } from './index.js';

// Settings, routes, role profiles (immutable digest-addressed revisions with
// one active revision per profile), MCP sessions and the need ledger.
export const foundation: Migration = {
  id: 1,
  name: 'foundation',
  sql: `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE routes (
  id TEXT PRIMARY KEY,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  updated_unix_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE role_profile_revisions (
  profile_id TEXT NOT NULL,
  digest TEXT NOT NULL CHECK (digest GLOB 'b3:*' AND length(digest) = 67),
  document TEXT NOT NULL,
  created_unix_ms INTEGER NOT NULL,
  PRIMARY KEY (profile_id, digest)
) STRICT;

CREATE TRIGGER role_profile_revisions_immutable
BEFORE UPDATE ON role_profile_revisions
BEGIN
  SELECT RAISE(ABORT, 'role profile revisions are immutable');
END;

CREATE TRIGGER role_profile_revisions_kept
BEFORE DELETE ON role_profile_revisions
BEGIN
  SELECT RAISE(ABORT, 'role profile revisions are never deleted');
END;

CREATE TABLE role_profiles (
  id TEXT PRIMARY KEY,
  active_digest TEXT NOT NULL,
  updated_unix_ms INTEGER NOT NULL,
  FOREIGN KEY (id, active_digest) REFERENCES role_profile_revisions (profile_id, digest)
) STRICT;

CREATE TABLE mcp_sessions (
  id TEXT PRIMARY KEY,
  started_unix_ms INTEGER NOT NULL,
  repository_root TEXT NOT NULL,
  lineage TEXT NOT NULL,
  data_dir TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  profile_digest TEXT NOT NULL,
  routes TEXT NOT NULL,
  semantic_digest TEXT NOT NULL,
  interface_digest TEXT NOT NULL,
  main_model TEXT NOT NULL,
  cache_only INTEGER NOT NULL CHECK (cache_only IN (0, 1)),
  max_needs INTEGER NOT NULL CHECK (max_needs BETWEEN 1 AND 8),
  max_workers INTEGER NOT NULL CHECK (max_workers BETWEEN 1 AND 8),
  protocol_version TEXT,
  FOREIGN KEY (profile_id, profile_digest) REFERENCES role_profile_revisions (profile_id, digest)
) STRICT;

CREATE TABLE need_steps (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES mcp_sessions (id),
  ordinal INTEGER NOT NULL CHECK (ordinal >= 1),
  need_id TEXT NOT NULL,
  request_digest TEXT NOT NULL,
  route TEXT NOT NULL,
  relation TEXT NOT NULL
    CHECK (relation IN ('repeat', 'residual', 'extension', 'overlap', 'independent', 'incompatible')),
  status TEXT NOT NULL
    CHECK (status IN ('resolving', 'hit', 'generated', 'bypass', 'cancelled', 'failed')),
  resolution_kind TEXT,
  request_json TEXT NOT NULL CHECK (length(CAST(request_json AS BLOB)) <= 16384),
  need_ir TEXT NOT NULL,
  satisfied TEXT NOT NULL DEFAULT '[]',
  missing TEXT NOT NULL DEFAULT '[]',
  result_digest TEXT,
  created_unix_ms INTEGER NOT NULL,
  finished_unix_ms INTEGER,
  UNIQUE (session_id, ordinal)
) STRICT;

CREATE INDEX need_steps_by_need ON need_steps (need_id);

CREATE TABLE need_events (
  id INTEGER PRIMARY KEY,
  step_id INTEGER NOT NULL REFERENCES need_steps (id),
  kind TEXT NOT NULL
    CHECK (kind IN ('requested', 'resolving', 'resolved', 'native_fallback', 'cancelled', 'failed', 'delivered')),
  detail TEXT,
  at_unix_ms INTEGER NOT NULL
) STRICT;

CREATE INDEX need_events_by_step ON need_events (step_id);
`,
};
