// Rows of certified artifacts: the artifact, its certificate and dependency
// manifest, its claims, and — written last — the certification row that makes
// all of it servable. Readers only ever see certificates that have one.
import { openSync, readFileSync, closeSync, writeSync } from 'node:fs';
import type { Digest } from '../../core/digest.js';
import { RESOLVER } from '../../core/limits.js';
import { stableStringify } from '../../core/schema.js';
import type { Facets, Predicate, SubjectKind } from '../../core/semantic.js';
import type { Db } from '../db.js';
import { statement } from '../statements.js';

export interface DependencyRow {
  readonly path: string;
  readonly digest: Digest;
}

export interface NewClaim {
  readonly id: Digest;
  readonly predicate: Predicate;
  readonly payload: { readonly kind: string };
  readonly ordinal: number;
  readonly previousId: Digest | null;
  readonly dependencies: readonly DependencyRow[];
}

export interface NewCertificate {
  readonly artifactId: Digest;
  readonly certificateId: Digest;
  readonly predicate: Predicate;
  readonly payload: unknown;
  readonly subject: { readonly id: Digest; readonly kind: SubjectKind; readonly name: string };
  readonly worldId: Digest;
  readonly facets: Facets;
  readonly scope: 'worktree_semantic' | 'snapshot_exact';
  readonly snapshotDigest: Digest | null;
  readonly dependencies: readonly DependencyRow[];
  readonly manifestDigest: Digest;
  readonly validatorDefinition: Digest;
  readonly primaryKey: string | null;
  readonly projectionBytes: number;
  readonly claims: readonly NewClaim[];
}

export interface Origin {
  readonly needId: Digest;
  readonly requestDigest: Digest;
  readonly workerRunId: number | null;
}

/**
 * Test hook for the crash-safety tests: when set, the process announces on
 * stdout that it is inside the certification transaction and then blocks
 * reading this FIFO, so a test can kill it at exactly that point — after
 * every other row and NEEDLE_TEST_HOOK_CERTIFY_AFTER_ROWS certification rows
 * (default 0: before the first).
 */
const CRASH_HOOK_ENV = 'NEEDLE_TEST_HOOK_CERTIFY_FIFO';
const CRASH_HOOK_AFTER_ENV = 'NEEDLE_TEST_HOOK_CERTIFY_AFTER_ROWS';

function crashHook(certificationRows: number): void {
  const fifo = process.env[CRASH_HOOK_ENV];
  if (!fifo || certificationRows !== Number(process.env[CRASH_HOOK_AFTER_ENV] ?? '0')) return;
  writeSync(1, `needle-test-hook: inside certification transaction after ${certificationRows} certification row(s)\n`);
  const fd = openSync(fifo, 'r');
  try {
    readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Stores certified artifacts in one transaction; certification rows go last. */
export function storeCertified(db: Db, items: readonly NewCertificate[], origin: Origin, nowMs: number): void {
  const artifact = statement(
    db,
    `INSERT OR IGNORE INTO evidence_artifacts
       (id, predicate, subject_id, subject_kind, subject_name, world_id, payload, primary_key, projection_bytes, created_unix_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const certificate = statement(
    db,
    `INSERT OR IGNORE INTO evidence_certificates
       (id, artifact_id, predicate, subject_id, world_id, facets, scope, snapshot_digest, manifest_digest,
        validator_definition, origin_need_id, origin_request, worker_run_id, issued_unix_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const dependency = statement(db, 'INSERT OR IGNORE INTO evidence_dependencies (certificate_id, path, digest) VALUES (?, ?, ?)');
  const claim = statement(db, 'INSERT OR IGNORE INTO evidence_claims (id, predicate, kind, payload) VALUES (?, ?, ?, ?)');
  const claimOrigin = statement(
    db,
    'INSERT OR IGNORE INTO evidence_claim_origins (certificate_id, claim_id, ordinal, previous_claim_id) VALUES (?, ?, ?, ?)',
  );
  const claimDependency = statement(
    db,
    'INSERT OR IGNORE INTO evidence_claim_dependencies (certificate_id, claim_id, path, digest) VALUES (?, ?, ?, ?)',
  );
  const certification = statement(
    db,
    'INSERT OR IGNORE INTO evidence_certifications (certificate_id, certified_unix_ms) VALUES (?, ?)',
  );
  db.transaction(() => {
    for (const it of items) {
      artifact.run(
        it.artifactId,
        it.predicate,
        it.subject.id,
        it.subject.kind,
        it.subject.name,
        it.worldId,
        stableStringify(it.payload),
        it.primaryKey,
        it.projectionBytes,
        nowMs,
      );
      certificate.run(
        it.certificateId,
        it.artifactId,
        it.predicate,
        it.subject.id,
        it.worldId,
        stableStringify(it.facets),
        it.scope,
        it.snapshotDigest,
        it.manifestDigest,
        it.validatorDefinition,
        origin.needId,
        origin.requestDigest,
        origin.workerRunId,
        nowMs,
      );
      for (const d of it.dependencies) dependency.run(it.certificateId, d.path, d.digest);
      for (const c of it.claims) {
        claim.run(c.id, c.predicate, c.payload.kind, stableStringify(c.payload));
        claimOrigin.run(it.certificateId, c.id, c.ordinal, c.previousId);
        for (const d of c.dependencies) claimDependency.run(it.certificateId, c.id, d.path, d.digest);
      }
    }
    crashHook(0);
    items.forEach((it, i) => {
      certification.run(it.certificateId, nowMs);
      crashHook(i + 1);
    });
  })();
}

export interface CertificateRow {
  readonly certificateId: Digest;
  readonly artifactId: Digest;
  readonly predicate: Predicate;
  readonly subjectId: Digest;
  readonly subjectKind: SubjectKind;
  readonly subjectName: string;
  readonly worldId: Digest;
  readonly facets: Facets;
  readonly scope: 'worktree_semantic' | 'snapshot_exact';
  readonly snapshotDigest: Digest | null;
  readonly validatorDefinition: Digest;
  readonly originNeedId: Digest;
  readonly originRequest: Digest;
  readonly workerRunId: number | null;
  readonly issuedUnixMs: number;
  readonly invalidatedUnixMs: number | null;
  readonly invalidatedReason: string | null;
  readonly payload: unknown;
  readonly primaryKey: string | null;
  readonly projectionBytes: number;
  readonly dependencies: readonly DependencyRow[];
}

interface RawRow {
  id: string;
  artifact_id: string;
  predicate: string;
  subject_id: string;
  subject_kind: string;
  subject_name: string;
  world_id: string;
  facets: string;
  scope: string;
  snapshot_digest: string | null;
  validator_definition: string;
  origin_need_id: string;
  origin_request: string;
  worker_run_id: number | null;
  issued_unix_ms: number;
  invalidated_unix_ms: number | null;
  invalidated_reason: string | null;
  payload: string;
  primary_key: string | null;
  projection_bytes: number;
}

const SELECT = `SELECT c.id, c.artifact_id, c.predicate, c.subject_id, a.subject_kind, a.subject_name, c.world_id, c.facets,
    c.scope, c.snapshot_digest, c.validator_definition, c.origin_need_id, c.origin_request, c.worker_run_id,
    c.issued_unix_ms, c.invalidated_unix_ms, c.invalidated_reason, a.payload, a.primary_key, a.projection_bytes
  FROM evidence_certificates c
  JOIN evidence_certifications k ON k.certificate_id = c.id
  JOIN evidence_artifacts a ON a.id = c.artifact_id`;

function toRow(db: Db, r: RawRow): CertificateRow {
  const dependencies = statement(db, 'SELECT path, digest FROM evidence_dependencies WHERE certificate_id = ? ORDER BY path').all(
    r.id,
  ) as DependencyRow[];
  return {
    certificateId: r.id as Digest,
    artifactId: r.artifact_id as Digest,
    predicate: r.predicate as Predicate,
    subjectId: r.subject_id as Digest,
    subjectKind: r.subject_kind as SubjectKind,
    subjectName: r.subject_name,
    worldId: r.world_id as Digest,
    facets: JSON.parse(r.facets) as Facets,
    scope: r.scope as CertificateRow['scope'],
    snapshotDigest: r.snapshot_digest as Digest | null,
    validatorDefinition: r.validator_definition as Digest,
    originNeedId: r.origin_need_id as Digest,
    originRequest: r.origin_request as Digest,
    workerRunId: r.worker_run_id,
    issuedUnixMs: r.issued_unix_ms,
    invalidatedUnixMs: r.invalidated_unix_ms,
    invalidatedReason: r.invalidated_reason,
    payload: parseStored(r.payload),
    primaryKey: r.primary_key,
    projectionBytes: r.projection_bytes,
    dependencies,
  };
}

/**
 * Servable certificates for (predicate, subject, world): certified, not
 * invalidated, issued under the current validator. The newest 64 are kept
 * (older ones are almost always stale), then ordered by id for determinism.
 */
export function loadCandidates(
  db: Db,
  predicate: Predicate,
  subjectId: Digest,
  worldId: Digest,
  validatorDefinition: Digest,
  limit: number = RESOLVER.maxCandidates,
): CertificateRow[] {
  const rows = statement(
    db,
    `${SELECT} WHERE c.predicate = ? AND c.subject_id = ? AND c.world_id = ? AND c.invalidated_unix_ms IS NULL
         AND c.validator_definition = ? ORDER BY c.issued_unix_ms DESC, c.id LIMIT ?`,
  ).all(predicate, subjectId, worldId, validatorDefinition, Math.min(limit, RESOLVER.maxCandidates)) as RawRow[];
  return rows.map((r) => toRow(db, r)).sort((a, b) => (a.certificateId < b.certificateId ? -1 : 1));
}

export function getCertificate(db: Db, id: string): CertificateRow | null {
  const row = db.prepare(`${SELECT} WHERE c.id = ? OR c.artifact_id = ? ORDER BY c.issued_unix_ms DESC LIMIT 1`).get(id, id) as
    | RawRow
    | undefined;
  return row ? toRow(db, row) : null;
}

export function listCertificates(db: Db, limit: number): CertificateRow[] {
  const rows = db.prepare(`${SELECT} ORDER BY c.issued_unix_ms DESC, c.id LIMIT ?`).all(limit) as RawRow[];
  return rows.map((r) => toRow(db, r));
}

/** Invalidates every certificate of the artifact (or the one certificate) `id` names; returns how many. */
export function invalidate(db: Db, id: string, reason: string, nowMs: number): number {
  return db
    .prepare(
      `UPDATE evidence_certificates SET invalidated_unix_ms = ?, invalidated_reason = ?
       WHERE (id = ? OR artifact_id = ?) AND invalidated_unix_ms IS NULL`,
    )
    .run(nowMs, reason, id, id).changes;
}

/** A stored JSON payload; text that is not JSON reads as undefined, which no payload schema accepts. */
function parseStored(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export interface ClaimRow {
  readonly certificateId: Digest;
  readonly claimId: Digest;
  readonly kind: 'location' | 'flow_step' | 'focused_test';
  readonly payload: unknown;
  readonly ordinal: number;
  readonly previousId: Digest | null;
  readonly dependencies: readonly DependencyRow[];
}

export function loadClaims(db: Db, certificateId: Digest): ClaimRow[] {
  const rows = statement(
    db,
    `SELECT o.claim_id, o.ordinal, o.previous_claim_id, c.kind, c.payload
       FROM evidence_claim_origins o JOIN evidence_claims c ON c.id = o.claim_id
       WHERE o.certificate_id = ? ORDER BY o.ordinal, o.claim_id`,
  ).all(certificateId) as { claim_id: string; ordinal: number; previous_claim_id: string | null; kind: string; payload: string }[];
  const deps = statement(
    db,
    'SELECT path, digest FROM evidence_claim_dependencies WHERE certificate_id = ? AND claim_id = ? ORDER BY path',
  );
  return rows.map((r) => ({
    certificateId,
    claimId: r.claim_id as Digest,
    kind: r.kind as ClaimRow['kind'],
    payload: parseStored(r.payload),
    ordinal: r.ordinal,
    previousId: r.previous_claim_id as Digest | null,
    dependencies: deps.all(certificateId, r.claim_id) as DependencyRow[],
  }));
}

/**
 * Certificates that may vouch for an artifact or a claim, newest first:
 * certified (the certification row committed) and bounded like resolver candidates.
 */
export function certificatesVouchingFor(db: Db, kind: 'artifact' | 'claim', id: string): Digest[] {
  const sql =
    kind === 'artifact'
      ? `SELECT c.id FROM evidence_certificates c JOIN evidence_certifications k ON k.certificate_id = c.id
         WHERE c.artifact_id = ? ORDER BY c.issued_unix_ms DESC, c.id LIMIT ?`
      : `SELECT c.id FROM evidence_claim_origins o
         JOIN evidence_certificates c ON c.id = o.certificate_id
         JOIN evidence_certifications k ON k.certificate_id = c.id
         WHERE o.claim_id = ? ORDER BY c.issued_unix_ms DESC, c.id LIMIT ?`;
  return (db.prepare(sql).all(id, RESOLVER.maxCandidates) as { id: Digest }[]).map((r) => r.id);
}

/** Whether the store has ever seen the id, so "unknown" and "not certified" read differently. */
export function isKnownEvidence(db: Db, kind: 'artifact' | 'claim', id: string): boolean {
  const table = kind === 'artifact' ? 'evidence_artifacts' : 'evidence_claims';
  return db.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).get(id) !== undefined;
}

/**
 * The counter every write to servable evidence moves (migration 008), by any
 * process: equal readings mean no certificate, claim, dependency or negative
 * outcome was added, changed or removed in between.
 */
export function evidenceGeneration(db: Db): number {
  return (statement(db, 'SELECT n FROM evidence_generation WHERE id = 1').get() as { n: number }).n;
}
