// Rows of certified negative outcomes (SPEC §16a): what a deterministic
// worker could not satisfy on exact bytes, with the files it read and the
// source snapshot it saw. As with certificates, the certification row is
// written last in one transaction; readers only see certified rows.
import type { Digest } from '../../core/digest.js';
import type { Predicate, SubjectKind } from '../../core/semantic.js';
import type { Db } from '../db.js';
import { statement } from '../statements.js';
import type { DependencyRow } from './certificates.js';

/** What the worker said, kept so a repeat can give the same answer. */
export interface NegativeOutcomeBody {
  /** Candidate definitions when the worker found the subject ambiguous. */
  readonly ambiguous: readonly string[] | null;
  /** Validator rejections of this worker's proposals, as reported. */
  readonly rejections: readonly string[];
  /** The worker's own reasons for what it could not resolve. */
  readonly unresolved: readonly string[];
}

export type NegativeVerdict = 'ambiguous' | 'unsatisfied';

export interface NewNegative {
  readonly id: Digest;
  readonly worker: string;
  readonly workerDefinition: Digest;
  readonly validatorDefinition: Digest;
  readonly subject: { readonly id: Digest; readonly kind: SubjectKind; readonly name: string };
  readonly worldId: Digest;
  /** Digest of the certified evidence the worker's step left covered (see resolve/negative.ts). */
  readonly basis: Digest;
  /** Obligation ids it could not satisfy, sorted. */
  readonly obligations: readonly Digest[];
  readonly predicates: readonly Predicate[];
  readonly verdict: NegativeVerdict;
  readonly outcome: NegativeOutcomeBody;
  readonly snapshotDigest: Digest;
  readonly manifestDigest: Digest;
  readonly dependencies: readonly DependencyRow[];
}

export interface NegativeRow extends NewNegative {
  readonly originNeedId: Digest;
  readonly workerRunId: number | null;
  readonly issuedUnixMs: number;
}

export interface NegativeKey {
  readonly workerDefinition: Digest;
  readonly validatorDefinition: Digest;
  readonly subjectId: Digest;
  readonly worldId: Digest;
  readonly basis: Digest;
}

/** Stores one negative outcome; its certification row goes last. Call inside the ladder's certification transaction. */
export function storeNegative(db: Db, n: NewNegative, origin: { needId: Digest; workerRunId: number | null }, nowMs: number): void {
  db.transaction(() => {
    statement(
      db,
      `INSERT OR IGNORE INTO evidence_negative_outcomes
         (id, worker, worker_definition, validator_definition, subject_id, subject_kind, subject_name, world_id, basis,
          obligations, predicates, verdict, outcome, snapshot_digest, manifest_digest, origin_need_id, worker_run_id, issued_unix_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      n.id,
      n.worker,
      n.workerDefinition,
      n.validatorDefinition,
      n.subject.id,
      n.subject.kind,
      n.subject.name,
      n.worldId,
      n.basis,
      JSON.stringify(n.obligations),
      JSON.stringify(n.predicates),
      n.verdict,
      JSON.stringify(n.outcome),
      n.snapshotDigest,
      n.manifestDigest,
      origin.needId,
      origin.workerRunId,
      nowMs,
    );
    const dep = statement(db, 'INSERT OR IGNORE INTO evidence_negative_dependencies (negative_id, path, digest) VALUES (?, ?, ?)');
    for (const d of n.dependencies) dep.run(n.id, d.path, d.digest);
    statement(db, 'INSERT OR IGNORE INTO evidence_negative_certifications (negative_id, certified_unix_ms) VALUES (?, ?)').run(n.id, nowMs);
  })();
}

interface RawNegative {
  id: string;
  worker: string;
  worker_definition: string;
  validator_definition: string;
  subject_id: string;
  subject_kind: string;
  subject_name: string;
  world_id: string;
  basis: string;
  obligations: string;
  predicates: string;
  verdict: string;
  outcome: string;
  snapshot_digest: string;
  manifest_digest: string;
  origin_need_id: string;
  worker_run_id: number | null;
  issued_unix_ms: number;
}

function toRow(db: Db, r: RawNegative): NegativeRow {
  const dependencies = statement(db, 'SELECT path, digest FROM evidence_negative_dependencies WHERE negative_id = ? ORDER BY path').all(
    r.id,
  ) as DependencyRow[];
  return {
    id: r.id as Digest,
    worker: r.worker,
    workerDefinition: r.worker_definition as Digest,
    validatorDefinition: r.validator_definition as Digest,
    subject: { id: r.subject_id as Digest, kind: r.subject_kind as SubjectKind, name: r.subject_name },
    worldId: r.world_id as Digest,
    basis: r.basis as Digest,
    obligations: JSON.parse(r.obligations) as Digest[],
    predicates: JSON.parse(r.predicates) as Predicate[],
    verdict: r.verdict as NegativeVerdict,
    outcome: JSON.parse(r.outcome) as NegativeOutcomeBody,
    snapshotDigest: r.snapshot_digest as Digest,
    manifestDigest: r.manifest_digest as Digest,
    dependencies,
    originNeedId: r.origin_need_id as Digest,
    workerRunId: r.worker_run_id,
    issuedUnixMs: r.issued_unix_ms,
  };
}

/** Certified, not invalidated negative outcomes for one key, newest first, bounded. */
export function loadNegatives(db: Db, key: NegativeKey, limit: number): NegativeRow[] {
  const rows = statement(
    db,
    `SELECT n.* FROM evidence_negative_outcomes n
       JOIN evidence_negative_certifications k ON k.negative_id = n.id
      WHERE n.worker_definition = ? AND n.validator_definition = ? AND n.subject_id = ? AND n.world_id = ? AND n.basis = ?
        AND n.invalidated_unix_ms IS NULL
      ORDER BY n.issued_unix_ms DESC, n.id LIMIT ?`,
  ).all(key.workerDefinition, key.validatorDefinition, key.subjectId, key.worldId, key.basis, limit) as RawNegative[];
  return rows.map((r) => toRow(db, r));
}
