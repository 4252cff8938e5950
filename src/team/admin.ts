// Administration of the team cache: `needle team-cache init` (create or
// migrate the schema), `needle team-cache status` (size, newest certificates
// per repository lineage) and the probe `needle doctor` reports (reachability,
// schema version, round-trip latency). One short-lived connection each.
import type pg from 'pg';
import { scrub, type TeamCacheConfig } from './config.js';
import { loadPg, poolOptions } from './client.js';
import { migrateTeamSchema, TEAM_SCHEMA_VERSION, teamSchemaVersion } from './schema.js';

async function withClient<T>(config: TeamCacheConfig, env: NodeJS.ProcessEnv, f: (c: pg.Client) => Promise<T>, connectMs = 5_000): Promise<T> {
  const client = new (loadPg().Client)(poolOptions(config, env, connectMs));
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await f(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class TeamCacheError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TeamCacheError';
  }
}

function wrap(config: TeamCacheConfig, e: unknown): TeamCacheError {
  return new TeamCacheError(`team cache ${config.masked}: ${scrub(e instanceof Error ? e.message : String(e), config.url)}`);
}

export async function initTeamCache(config: TeamCacheConfig, env: NodeJS.ProcessEnv): Promise<{ applied: number[]; version: number }> {
  try {
    return await withClient(config, env, async (c) => {
      const applied = await migrateTeamSchema(c);
      return { applied, version: await teamSchemaVersion(c) };
    });
  } catch (e) {
    throw wrap(config, e);
  }
}

export interface Probe {
  readonly reachable: boolean;
  readonly latencyMs: number | null;
  readonly version: number | null;
  readonly expected: number;
  readonly problem: string | null;
}

/** Reachability, schema version and the median of three `SELECT 1` round trips. */
export async function probeTeamCache(config: TeamCacheConfig, env: NodeJS.ProcessEnv): Promise<Probe> {
  try {
    return await withClient(
      config,
      env,
      async (c) => {
        const times: number[] = [];
        for (let i = 0; i < 3; i++) {
          const t = process.hrtime.bigint();
          await c.query('SELECT 1');
          times.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
        let version: number | null = null;
        let problem: string | null = null;
        try {
          version = await teamSchemaVersion(c);
          if (version === 0) problem = 'not initialized: run needle team-cache init URL';
          else if (version !== TEAM_SCHEMA_VERSION) problem = `schema version ${version}, this needle expects ${TEAM_SCHEMA_VERSION}`;
        } catch (e) {
          problem = scrub((e as Error).message, config.url);
        }
        return { reachable: true, latencyMs: times.sort((a, b) => a - b)[1]!, version, expected: TEAM_SCHEMA_VERSION, problem };
      },
      2_000,
    );
  } catch (e) {
    return { reachable: false, latencyMs: null, version: null, expected: TEAM_SCHEMA_VERSION, problem: wrap(config, e).message };
  }
}

export interface TeamStatus {
  readonly version: number;
  readonly certificates: number;
  readonly claims: number;
  readonly bytes: number;
  readonly lineages: readonly {
    readonly lineage: string;
    readonly certificates: number;
    readonly newest: readonly { certificate_id: string; predicate: string; subject: string; publisher: string; published_at: string }[];
  }[];
}

export async function teamCacheStatus(config: TeamCacheConfig, env: NodeJS.ProcessEnv, perLineage = 5): Promise<TeamStatus> {
  try {
    return await withClient(config, env, async (c) => {
      const version = await teamSchemaVersion(c);
      if (version === 0) throw new Error('not initialized: run needle team-cache init URL');
      const size = (
        await c.query<{ certificates: string; claims: string; bytes: string }>(
          `SELECT (SELECT count(*) FROM needle_team_certificates)::text AS certificates,
                  (SELECT count(*) FROM needle_team_claims)::text AS claims,
                  (pg_total_relation_size('needle_team_certificates') + pg_total_relation_size('needle_team_claims'))::text AS bytes`,
        )
      ).rows[0]!;
      const counts = (
        await c.query<{ lineage: string; n: string }>('SELECT lineage, count(*)::text AS n FROM needle_team_certificates GROUP BY lineage ORDER BY lineage LIMIT 100')
      ).rows;
      const newest = (
        await c.query<{ lineage: string; certificate_id: string; predicate: string; subject_kind: string; subject_name: string; publisher: string; published_at: Date }>(
          `SELECT lineage, certificate_id, predicate, subject_kind, subject_name, publisher, published_at FROM (
             SELECT *, row_number() OVER (PARTITION BY lineage ORDER BY published_at DESC, certificate_id) AS r FROM needle_team_certificates
           ) t WHERE r <= $1 ORDER BY lineage, published_at DESC, certificate_id`,
          [perLineage],
        )
      ).rows;
      return {
        version,
        certificates: Number(size.certificates),
        claims: Number(size.claims),
        bytes: Number(size.bytes),
        lineages: counts.map((l) => ({
          lineage: l.lineage,
          certificates: Number(l.n),
          newest: newest
            .filter((n) => n.lineage === l.lineage)
            .map((n) => ({
              certificate_id: n.certificate_id,
              predicate: n.predicate,
              subject: `${n.subject_kind}:${n.subject_name}`.slice(0, 200),
              publisher: n.publisher.slice(0, 100),
              published_at: n.published_at.toISOString(),
            })),
        })),
      };
    });
  } catch (e) {
    throw wrap(config, e);
  }
}
