// The team cache's PostgreSQL schema: ordered, additive, checksummed
// migrations like the local store's. `needle team-cache init` applies them
// under a transaction-scoped advisory lock, so several machines initializing
// at once apply each migration exactly once; a migration whose text changed
// after it was applied is refused. Servers never migrate: they check the
// version and fall back to local-only when it does not match.
import type pg from 'pg';
import { blake3 } from '../core/digest.js';

export interface TeamMigration {
  readonly id: number;
  readonly name: string;
  readonly sql: string;
}

/** Bounds enforced by the database too, so no publisher can store an unbounded row. */
export const TEAM_ROW_LIMITS = {
  payloadBytes: 65_536,
  dependenciesBytes: 262_144,
  claimsPerCertificate: 64,
  nameBytes: 512,
} as const;

export const TEAM_MIGRATIONS: readonly TeamMigration[] = [
  {
    id: 1,
    name: 'certificates',
    sql: `
CREATE TABLE needle_team_certificates (
  certificate_id text PRIMARY KEY CHECK (certificate_id ~ '^b3:[0-9a-f]{64}$'),
  lineage text NOT NULL CHECK (lineage ~ '^b3:[0-9a-f]{64}$'),
  artifact_id text NOT NULL CHECK (artifact_id ~ '^b3:[0-9a-f]{64}$'),
  predicate text NOT NULL,
  subject_id text NOT NULL,
  subject_kind text NOT NULL,
  subject_name text NOT NULL CHECK (octet_length(subject_name) <= ${TEAM_ROW_LIMITS.nameBytes}),
  world_id text NOT NULL,
  facets text NOT NULL CHECK (octet_length(facets) <= 4096),
  scope text NOT NULL,
  manifest_digest text NOT NULL,
  validator_definition text NOT NULL,
  payload text NOT NULL CHECK (octet_length(payload) <= ${TEAM_ROW_LIMITS.payloadBytes}),
  dependencies text NOT NULL CHECK (octet_length(dependencies) <= ${TEAM_ROW_LIMITS.dependenciesBytes}),
  publisher text NOT NULL CHECK (octet_length(publisher) <= 256),
  worker_model text CHECK (octet_length(worker_model) <= 256),
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  cost_usd double precision,
  published_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX needle_team_certificates_lookup ON needle_team_certificates (lineage, subject_id, predicate, world_id);
CREATE INDEX needle_team_certificates_recent ON needle_team_certificates (lineage, published_at);

CREATE TABLE needle_team_claims (
  certificate_id text NOT NULL REFERENCES needle_team_certificates (certificate_id),
  claim_id text NOT NULL CHECK (claim_id ~ '^b3:[0-9a-f]{64}$'),
  ordinal integer NOT NULL,
  previous_claim_id text,
  kind text NOT NULL,
  payload text NOT NULL CHECK (octet_length(payload) <= ${TEAM_ROW_LIMITS.payloadBytes}),
  dependencies text NOT NULL CHECK (octet_length(dependencies) <= ${TEAM_ROW_LIMITS.dependenciesBytes}),
  PRIMARY KEY (certificate_id, claim_id)
);
`,
  },
];

export const TEAM_SCHEMA_VERSION = Math.max(...TEAM_MIGRATIONS.map((m) => m.id));

// A fixed advisory-lock key: "needle team cache migrations".
const MIGRATION_LOCK = 4_655_121_903;

export class TeamSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TeamSchemaError';
  }
}

const CREATE_MIGRATIONS = `CREATE TABLE IF NOT EXISTS needle_team_migrations (
  id integer PRIMARY KEY,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

type Queryable = Pick<pg.ClientBase, 'query'>;

/** Applied migration ids, checked against this version's text; throws on a changed or unknown migration. */
async function applied(client: Queryable, migrations: readonly TeamMigration[]): Promise<Set<number>> {
  const rows = (await client.query<{ id: number; name: string; checksum: string }>('SELECT id, name, checksum FROM needle_team_migrations')).rows;
  const known = new Map(migrations.map((m) => [m.id, m]));
  const ids = new Set<number>();
  for (const r of rows) {
    const m = known.get(r.id);
    if (!m) throw new TeamSchemaError(`the team cache has migration ${r.id} that this version of needle does not know; use a newer needle`);
    if (blake3(m.sql) !== r.checksum) throw new TeamSchemaError(`team cache migration ${r.id} (${m.name}) changed after it was applied; refusing to use it`);
    ids.add(r.id);
  }
  return ids;
}

/** Creates or migrates the schema; returns the ids applied now. */
export async function migrateTeamSchema(client: pg.ClientBase, migrations: readonly TeamMigration[] = TEAM_MIGRATIONS): Promise<number[]> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(CREATE_MIGRATIONS);
    const done = await applied(client, migrations);
    const now: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.id - b.id)) {
      if (done.has(m.id)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO needle_team_migrations (id, name, checksum) VALUES ($1, $2, $3)', [m.id, m.name, blake3(m.sql)]);
      now.push(m.id);
    }
    await client.query('COMMIT');
    return now;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** The schema version the team cache is at (0 when never initialized); throws TeamSchemaError when it cannot be used. */
export async function teamSchemaVersion(client: Queryable, migrations: readonly TeamMigration[] = TEAM_MIGRATIONS): Promise<number> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('needle_team_migrations')::text AS t");
  if (exists.rows[0]?.t == null) return 0;
  const ids = await applied(client, migrations);
  return ids.size === 0 ? 0 : Math.max(...ids);
}
