// The team cache client (issue 12): PostgreSQL through node-postgres, with
// parameterized queries only. It sits behind the store's certificate
// interface: what it imports goes through storeCertified like any worker's
// certified output (certification row last), after revalidate.ts re-checked
// it on the local bytes; what it publishes is read back from the local store.
//
// Failure never reaches the client: a consume that does not answer within the
// bounded wait (default 150 ms) is abandoned, the need resolves locally, one
// warning is printed per process, and the team cache is skipped for a short
// back-off before it is tried again. Publishing runs after the answer, off its
// path, one PostgreSQL transaction per certificate with idempotent upserts.
import { createRequire } from 'node:module';
import { hostname, userInfo } from 'node:os';
import type pg from 'pg';
import type { Digest } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import { stableStringify } from '../core/schema.js';
import { repoFileDigest } from '../repo/paths.js';
import { deferWrite } from '../store/bookkeeping.js';
import type { Db } from '../store/db.js';
import { getCertificate, loadClaims, storeCertified, type NewCertificate } from '../store/evidence/certificates.js';
import { bumpTeamCounter, importOf, recordImport, recordPublication, recordTeamRejection, wasPublished, wasRejected } from '../store/team.js';
import { manifestDigest, validatorDefinition } from '../validate/certificate.js';
import { scrub, type TeamCacheConfig } from './config.js';
import { passwordFor } from './pgpass.js';
import { MalformedRow, parseRemoteRow, REMOTE_SELECT } from './rows.js';
import { localBytesKey, revalidate } from './revalidate.js';
import { TEAM_ROW_LIMITS, TEAM_SCHEMA_VERSION, teamSchemaVersion } from './schema.js';

/** How long the team cache is skipped after it failed to answer in time. */
export const BACKOFF_MS = 1_000;
/** Upper bound on waiting for pending publications when a short-lived process exits. */
export const DRAIN_MS = 10_000;
const MAX_REMOTE_ROWS = 64;

/** Test hook: pause inside the publishing transaction, after its rows, before COMMIT (the value: milliseconds, or 1 for two minutes). */
const PUBLISH_HOOK_ENV = 'NEEDLE_TEST_HOOK_TEAM_PUBLISH_PAUSE';

let warnedThisProcess = false;

/** For tests that need to observe the once-per-process warning again. */
export function resetTeamCacheWarning(): void {
  warnedThisProcess = false;
}

export interface TeamCacheOptions {
  readonly config: TeamCacheConfig;
  readonly db: Db;
  readonly repoRoot: string;
  readonly env: NodeJS.ProcessEnv;
  /** One line on stderr. */
  readonly log: (line: string) => void;
  /** Whether certificates resting on a model worker's run are published (default yes: they cost the most). */
  readonly publishModelResults?: boolean;
  readonly now?: () => number;
}

class Timeout extends Error {}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  p.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/**
 * node-postgres, loaded on first use: most sessions have no team cache, and
 * loading it (with the fetch machinery it probes for) would be paid by every
 * server start.
 */
export function loadPg(): typeof pg {
  return createRequire(import.meta.url)('pg') as typeof pg;
}

/**
 * node-postgres options from the URL. The URL is taken apart here rather than
 * handed over as a connection string (whose parse would override an explicit
 * password with an empty one); the password is looked up when a connection is
 * made — PGPASSWORD in the session's environment, else the password file
 * (pgpass.ts) — and never kept in the options.
 */
export function poolOptions(config: TeamCacheConfig, env: NodeJS.ProcessEnv, connectMs: number): pg.PoolConfig {
  const u = new URL(config.url);
  const sslmode = u.searchParams.get('sslmode');
  const host = decodeURIComponent(u.hostname).replace(/^\[(.*)\]$/, '$1') || (u.searchParams.get('host') ?? 'localhost');
  const port = u.port ? Number(u.port) : 5432;
  const user = decodeURIComponent(u.username) || env.PGUSER || userInfo().username;
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
  return {
    host,
    port,
    user,
    database,
    password: async () => passwordFor({ host, port, database, user }, env) ?? '',
    ...(sslmode === 'require' ? { ssl: { rejectUnauthorized: false } } : sslmode === 'verify-ca' || sslmode === 'verify-full' ? { ssl: true } : {}),
    max: 4,
    connectionTimeoutMillis: connectMs,
    idleTimeoutMillis: 10_000,
    statement_timeout: 10_000,
    application_name: 'needle',
    allowExitOnIdle: true,
  };
}


export class TeamCache {
  private pool: pg.Pool | null = null;
  private downUntil = 0;
  private disabled: string | null = null;
  private schemaOk = false;
  private readonly queue: { lineage: Digest; id: Digest }[] = [];
  private draining: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: TeamCacheOptions) {
    this.now = o.now ?? Date.now;
  }

  get origin(): string {
    return this.o.config.masked;
  }

  private getPool(): pg.Pool {
    if (!this.pool) {
      this.pool = new (loadPg().Pool)(poolOptions(this.o.config, this.o.env, Math.max(1_000, this.o.config.waitMs)));
      // An idle connection dropped by a restarting server must not crash the process.
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }

  private warn(what: string, e: unknown): void {
    if (warnedThisProcess) return;
    warnedThisProcess = true;
    const message = e instanceof Error ? e.message : String(e);
    this.o.log(`team cache ${this.o.config.masked} ${what}: ${scrub(message, this.o.config.url)}; answering from the local store only (warned once)`);
  }

  private failed(what: string, e: unknown): void {
    this.downUntil = this.now() + BACKOFF_MS;
    // A counter is bookkeeping: committed after the answer, never on its path (store/bookkeeping.ts).
    deferWrite(this.o.db, () => bumpTeamCounter(this.o.db, 'unreachable'));
    // The schema is checked again after an outage (the server may have been replaced).
    this.schemaOk = false;
    this.warn(what, e);
  }

  private async ready(): Promise<void> {
    if (this.schemaOk) return;
    const version = await teamSchemaVersion(this.getPool());
    if (version !== TEAM_SCHEMA_VERSION) {
      this.disabled = version === 0 ? 'is not initialized (run needle team-cache init URL)' : `has schema version ${version}, this needle expects ${TEAM_SCHEMA_VERSION}`;
      throw new Error(this.disabled);
    }
    this.schemaOk = true;
  }

  private async fetch(need: CompiledNeed): Promise<Record<string, unknown>[]> {
    await this.ready();
    const predicates = [...new Set([...need.required, ...need.preferred].map((o) => o.predicate))];
    const result = await this.getPool().query(
      `${REMOTE_SELECT}
       WHERE c.lineage = $1 AND c.subject_id = $2 AND c.world_id = $3 AND c.predicate = ANY($4::text[]) AND c.validator_definition = ANY($5::text[])
       ORDER BY c.published_at DESC, c.certificate_id LIMIT $6`,
      [need.world.lineage, need.subject.id, need.world.id, predicates, predicates.map(validatorDefinition), MAX_REMOTE_ROWS],
    );
    return result.rows as Record<string, unknown>[];
  }

  /**
   * On a local miss: certificates from the team cache for this need that the
   * local validators accept on the local bytes, imported as locally certified
   * (origin recorded). Returns their ids; [] when the team cache has nothing,
   * is unreachable or does not answer within the bounded wait.
   */
  async consume(need: CompiledNeed, signal?: AbortSignal): Promise<Digest[]> {
    if (this.disabled !== null || this.now() < this.downUntil || signal?.aborted) return [];
    let rows: Record<string, unknown>[];
    try {
      rows = await within(this.fetch(need), this.o.config.waitMs);
    } catch (e) {
      if (this.disabled !== null) this.warn('is not usable', new Error(this.disabled));
      else this.failed(e instanceof Timeout ? 'did not answer in time' : 'is unreachable', e);
      return [];
    }
    try {
      return this.importRows(need, rows);
    } catch (e) {
      // A local failure while checking rows (git, the store) is not the rows' fault: nothing is recorded against them.
      this.warn('rows could not be checked here', e);
      return [];
    }
  }

  private importRows(need: CompiledNeed, rows: readonly Record<string, unknown>[]): Digest[] {
    const db = this.o.db;
    const known = db.prepare('SELECT 1 FROM evidence_certifications WHERE certificate_id = ?');
    const accepted: { certificate: NewCertificate; publisher: string; model: string | null; input: number; output: number; cost: number | null }[] = [];
    const nowMs = this.now();
    for (const raw of rows) {
      const idText = typeof raw.certificate_id === 'string' ? raw.certificate_id.slice(0, 67) : '?';
      if (known.get(idText) !== undefined) continue;
      let key: Digest;
      let verdict: ReturnType<typeof revalidate>;
      try {
        const row = parseRemoteRow(raw);
        key = localBytesKey(this.o.repoRoot, row.certificateId, row.dependencies);
        if (wasRejected(db, row.certificateId, key)) continue;
        verdict = revalidate(this.o.repoRoot, need, row);
        if (verdict.kind === 'accepted')
          accepted.push({ certificate: verdict.certificate, publisher: row.publisher, model: row.workerModel, input: row.inputTokens, output: row.outputTokens, cost: row.costUsd });
      } catch (e) {
        if (!(e instanceof MalformedRow)) throw e;
        key = localBytesKey(this.o.repoRoot, idText, []);
        verdict = { kind: 'rejected', reason: 'malformed', detail: e.message };
      }
      if (verdict.kind === 'rejected' && recordTeamRejection(db, idText, key, verdict.reason, verdict.detail, nowMs))
        this.o.log(`team cache: rejected remote certificate ${idText} (${verdict.reason}): ${verdict.detail.slice(0, 200)}`);
    }
    if (accepted.length === 0) return [];
    db.transaction(() => {
      storeCertified(db, accepted.map((a) => a.certificate), { needId: need.id, requestDigest: need.requestDigest, workerRunId: null }, nowMs);
      for (const a of accepted)
        recordImport(
          db,
          {
            certificateId: a.certificate.certificateId,
            origin: this.o.config.masked,
            publisher: a.publisher,
            workerModel: a.model,
            inputTokens: a.input,
            outputTokens: a.output,
            costUsd: a.cost,
          },
          nowMs,
        );
    })();
    return accepted.map((a) => a.certificate.certificateId);
  }

  /** A need was answered with zero workers from evidence this session imported. */
  noteHit(): void {
    deferWrite(this.o.db, () => bumpTeamCounter(this.o.db, 'team_hits'));
  }

  /** Queues locally certified certificates for publishing; returns at once (the work runs after the answer). */
  publish(need: CompiledNeed, certificateIds: Iterable<Digest>): void {
    if (this.disabled !== null) return;
    for (const id of certificateIds) this.queue.push({ lineage: need.world.lineage, id });
    if (this.queue.length === 0 || this.draining) return;
    this.draining = new Promise<void>((r) => setImmediate(r))
      .then(() => this.drainQueue())
      .finally(() => {
        this.draining = null;
      });
  }

  private async drainQueue(): Promise<void> {
    while (this.queue.length > 0) {
      const next = this.queue.shift()!;
      if (this.now() < this.downUntil) continue;
      try {
        await this.publishOne(next.lineage, next.id);
      } catch (e) {
        this.failed('could not take a publication', e);
      }
    }
  }

  /**
   * Publishes one certificate if it may be: certified here (not imported),
   * not invalidated, portable (worktree_semantic), every dependency still
   * byte-identical to what it was certified on, and within the row bounds.
   * Returns whether a row was written now (false when it already existed).
   */
  async publishOne(lineage: Digest, id: Digest): Promise<boolean> {
    const db = this.o.db;
    if (wasPublished(db, id) || importOf(db, id) !== null) return false;
    const cert = getCertificate(db, id);
    if (!cert || cert.certificateId !== id || cert.invalidatedUnixMs !== null || cert.scope !== 'worktree_semantic') return false;
    if (!cert.dependencies.every((d) => repoFileDigest(this.o.repoRoot, d.path) === d.digest)) return false;
    const run =
      cert.workerRunId === null
        ? undefined
        : (db.prepare('SELECT model, input_tokens AS input, output_tokens AS output, price_microusd / 1000000.0 AS cost_usd FROM worker_runs WHERE id = ?').get(cert.workerRunId) as
            | { model: string | null; input: number; output: number; cost_usd: number | null }
            | undefined);
    if (run?.model && this.o.publishModelResults === false) return false;
    const claims = loadClaims(db, id);
    const payload = stableStringify(cert.payload);
    const dependencies = JSON.stringify(cert.dependencies);
    if (Buffer.byteLength(payload) > TEAM_ROW_LIMITS.payloadBytes || Buffer.byteLength(dependencies) > TEAM_ROW_LIMITS.dependenciesBytes) return false;
    if (claims.length > TEAM_ROW_LIMITS.claimsPerCertificate) return false;
    await this.ready();
    const client = await this.getPool().connect();
    let written = false;
    try {
      await client.query('BEGIN');
      const inserted = await client.query(
        `INSERT INTO needle_team_certificates
           (certificate_id, lineage, artifact_id, predicate, subject_id, subject_kind, subject_name, world_id, facets, scope,
            manifest_digest, validator_definition, payload, dependencies, publisher, worker_model, input_tokens, output_tokens, cost_usd)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
         ON CONFLICT (certificate_id) DO NOTHING`,
        [
          cert.certificateId,
          lineage,
          cert.artifactId,
          cert.predicate,
          cert.subjectId,
          cert.subjectKind,
          cert.subjectName,
          cert.worldId,
          stableStringify(cert.facets),
          cert.scope,
          // The manifest digest is not a column of the local row; it is recomputed from the dependencies.
          manifestDigest('worktree_semantic', null, cert.dependencies),
          cert.validatorDefinition,
          payload,
          dependencies,
          hostname().slice(0, 200),
          run?.model ?? null,
          run?.input ?? 0,
          run?.output ?? 0,
          run ? run.cost_usd : 0,
        ],
      );
      written = (inserted.rowCount ?? 0) > 0;
      for (const c of claims)
        await client.query(
          `INSERT INTO needle_team_claims (certificate_id, claim_id, ordinal, previous_claim_id, kind, payload, dependencies)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (certificate_id, claim_id) DO NOTHING`,
          [id, c.claimId, c.ordinal, c.previousId, c.kind, stableStringify(c.payload), JSON.stringify(c.dependencies)],
        );
      const pause = this.o.env[PUBLISH_HOOK_ENV];
      if (pause) {
        process.stderr.write('needle-test-hook: inside team publish transaction\n');
        await new Promise((r) => setTimeout(r, Number(pause) > 1 ? Number(pause) : 120_000));
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
    recordPublication(db, id, this.now());
    return written;
  }

  /** Waits (bounded) for queued publications, then closes the connections. */
  async close(): Promise<void> {
    if (this.draining) await within(this.draining, DRAIN_MS).catch(() => undefined);
    const pool = this.pool;
    this.pool = null;
    if (pool) await pool.end().catch(() => undefined);
  }
}
