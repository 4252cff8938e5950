// Rows of the change lifecycle (migration 004). Every state transition is a
// guarded UPDATE inside a transaction, so a racing caller sees zero rows
// changed instead of silently overwriting another caller's step.
import type { Db } from '../store/db.js';
import { blake3, type Digest } from '../core/digest.js';
import { changeDigest } from './identity.js';
import {
  ChangeError,
  type CertifiedContext,
  type ChangeRequest,
  type ChangeState,
  type CoverageItem,
  type Operation,
  type PatchFile,
  type TestPlanResult,
  type Verdict,
} from './model.js';

export interface ChangeRow {
  readonly changeId: string;
  readonly requestDigest: Digest;
  readonly repositoryRoot: string;
  readonly lineage: string;
  readonly base: Digest;
  readonly baseHead: string;
  readonly request: ChangeRequest;
  readonly context: CertifiedContext;
  readonly state: ChangeState;
  readonly latestRevision: number;
  readonly repairAttempted: boolean;
  readonly failureRule: string | null;
  readonly failureMessage: string | null;
  readonly createdMs: number;
  readonly updatedMs: number;
}

export interface StoredPatch {
  readonly revision: number;
  readonly patchId: Digest;
  readonly summary: string;
  readonly coverage: CoverageItem[];
  readonly residualRisks: string[];
  readonly discrepancies: string[];
  readonly files: PatchFile[];
}

export interface StoredVerification {
  readonly verificationId: Digest;
  readonly revision: number;
  readonly patchId: Digest;
  readonly definition: Digest;
  readonly verdict: Verdict;
  readonly verifierStarted: boolean;
  readonly body: VerificationBody;
  readonly createdMs: number;
}

/** The verdict and what it rests on, as returned to the caller. */
export interface VerificationBody {
  readonly acceptance_coverage: CoverageItem[];
  readonly findings: string[];
  readonly test_evidence_ids: Digest[];
  readonly test_plan_results: TestPlanResult[];
  readonly test_plans_over_cap: boolean;
}

interface RequestRecord {
  change_id: string;
  request_digest: string;
  repository_root: string;
  lineage: string;
  base_source_digest: string;
  base_head: string;
  request_json: string;
  context_json: string;
  state: string;
  latest_revision: number;
  repair_attempted: number;
  failure_rule: string | null;
  failure_message: string | null;
  created_unix_ms: number;
  updated_unix_ms: number;
}

function event(db: Db, changeId: string, type: string, payload: unknown): void {
  db.prepare('INSERT INTO change_events (change_id, event_type, payload_json, created_unix_ms) VALUES (?, ?, ?, ?)').run(
    changeId,
    type,
    JSON.stringify(payload),
    Date.now(),
  );
}

export function insertRequest(
  db: Db,
  row: Pick<ChangeRow, 'changeId' | 'requestDigest' | 'repositoryRoot' | 'lineage' | 'base' | 'baseHead' | 'request' | 'context'>,
): void {
  const now = Date.now();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO change_requests (change_id, request_digest, repository_root, lineage, base_source_digest, base_head,
         request_json, context_json, state, created_unix_ms, updated_unix_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'requested', ?, ?)`,
    ).run(
      row.changeId,
      row.requestDigest,
      row.repositoryRoot,
      row.lineage,
      row.base,
      row.baseHead,
      JSON.stringify(row.request),
      JSON.stringify(row.context),
      now,
      now,
    );
    event(db, row.changeId, 'requested', { request_digest: row.requestDigest, base: row.base });
  })();
}

/** Records a failure by rule and our own bounded message; never the worker's diagnostics. */
export function markFailed(db: Db, changeId: string, rule: string, message: string, revision: number): void {
  db.transaction(() => {
    db.prepare(
      `UPDATE change_requests SET state = 'failed', failure_rule = ?, failure_message = ?, updated_unix_ms = ? WHERE change_id = ?`,
    ).run(rule, message, Date.now(), changeId);
    event(db, changeId, 'failed', { rule, revision, message_digest: blake3(message) });
  })();
}

export function savePatch(
  db: Db,
  changeId: string,
  revision: 1 | 2,
  patch: Omit<StoredPatch, 'revision'>,
  base: Digest,
): void {
  const now = Date.now();
  db.transaction(() => {
    const guard =
      revision === 1
        ? `state = 'requested' AND latest_revision = 0`
        : `state = 'repairing' AND latest_revision = 1 AND repair_attempted = 1`;
    const moved = db
      .prepare(`UPDATE change_requests SET state = 'prepared', latest_revision = ?, updated_unix_ms = ? WHERE change_id = ? AND ${guard}`)
      .run(revision, now, changeId);
    if (moved.changes !== 1) throw new ChangeError('conflict', `change ${changeId} is no longer waiting for revision ${revision}`);
    db.prepare(
      `INSERT INTO patch_artifacts (change_id, revision, patch_id, base_source_digest, summary, coverage_json,
         residual_risks_json, discrepancies_json, created_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      changeId,
      revision,
      patch.patchId,
      base,
      patch.summary,
      JSON.stringify(patch.coverage),
      JSON.stringify(patch.residualRisks),
      JSON.stringify(patch.discrepancies),
      now,
    );
    const insertFile = db.prepare(
      `INSERT INTO patch_files (change_id, revision, ordinal, path, operation, before_digest, after_digest, before_blob, after_blob)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    patch.files.forEach((f, i) =>
      insertFile.run(changeId, revision, i, f.path, f.operation, f.beforeDigest, f.afterDigest, f.before, f.after),
    );
    event(db, changeId, 'prepared', { revision, patch_id: patch.patchId, files: patch.files.length });
  })();
}

export interface AttemptRecord {
  readonly changeId: string;
  readonly revision: number;
  readonly role: 'implementer' | 'verifier' | 'test';
  readonly adapter: string;
  readonly outcome: string;
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly usage: unknown;
  readonly outputDigest: Digest | null;
  readonly cleanup: { removed: boolean; error: string | null };
  /** A test run's evidence id and bounded output (shown on the change page); absent for workers. */
  readonly test?: { readonly evidenceId: Digest | null; readonly outputExcerpt: string };
}

export function recordAttempt(db: Db, a: AttemptRecord): void {
  db.prepare(
    `INSERT INTO change_attempts (change_id, revision, role, adapter, outcome, exit_code, duration_ms, usage_json,
       cost_microusd, output_digest, cleanup_removed, cleanup_error, created_unix_ms, evidence_id, output_excerpt)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)`,
  ).run(
    a.changeId,
    a.revision,
    a.role,
    a.adapter,
    a.outcome,
    a.exitCode,
    Math.round(a.durationMs),
    a.usage === null ? null : JSON.stringify(a.usage),
    a.outputDigest,
    a.cleanup.removed ? 1 : 0,
    a.cleanup.error,
    Date.now(),
    a.test?.evidenceId ?? null,
    a.test?.outputExcerpt ?? null,
  );
}

export interface TestRunOutput {
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly excerpt: string;
}

/** The recorded runs of certified tests for one revision, by the test evidence id each produced (latest run wins). */
export function testRunOutputs(db: Db, changeId: string, revision: number): Map<string, TestRunOutput> {
  const rows = db
    .prepare(
      `SELECT evidence_id, exit_code, duration_ms, output_excerpt FROM change_attempts
       WHERE change_id = ? AND revision = ? AND role = 'test' AND evidence_id IS NOT NULL ORDER BY id`,
    )
    .all(changeId, revision) as { evidence_id: string; exit_code: number | null; duration_ms: number; output_excerpt: string | null }[];
  return new Map(rows.map((r) => [r.evidence_id, { exitCode: r.exit_code, durationMs: r.duration_ms, excerpt: r.output_excerpt ?? '' }]));
}

function toChange(r: RequestRecord): ChangeRow {
  return {
    changeId: r.change_id,
    requestDigest: r.request_digest as Digest,
    repositoryRoot: r.repository_root,
    lineage: r.lineage,
    base: r.base_source_digest as Digest,
    baseHead: r.base_head,
    request: JSON.parse(r.request_json) as ChangeRequest,
    context: JSON.parse(r.context_json) as CertifiedContext,
    state: r.state as ChangeState,
    latestRevision: r.latest_revision,
    repairAttempted: r.repair_attempted === 1,
    failureRule: r.failure_rule,
    failureMessage: r.failure_message,
    createdMs: r.created_unix_ms,
    updatedMs: r.updated_unix_ms,
  };
}

export function loadChange(db: Db, changeId: string): ChangeRow | null {
  const r = db.prepare('SELECT * FROM change_requests WHERE change_id = ?').get(changeId) as RequestRecord | undefined;
  return r ? toChange(r) : null;
}

export function listChanges(db: Db, repositoryRoot: string | null, limit: number): ChangeRow[] {
  const rows = (
    repositoryRoot === null
      ? db.prepare('SELECT * FROM change_requests ORDER BY created_unix_ms DESC, change_id LIMIT ?').all(limit)
      : db
          .prepare('SELECT * FROM change_requests WHERE repository_root = ? ORDER BY created_unix_ms DESC, change_id LIMIT ?')
          .all(repositoryRoot, limit)
  ) as RequestRecord[];
  return rows.map(toChange);
}

export function loadPatch(db: Db, changeId: string, revision: number): StoredPatch | null {
  const p = db.prepare('SELECT * FROM patch_artifacts WHERE change_id = ? AND revision = ?').get(changeId, revision) as
    | { patch_id: string; summary: string; coverage_json: string; residual_risks_json: string; discrepancies_json: string }
    | undefined;
  if (!p) return null;
  const files = (
    db.prepare('SELECT * FROM patch_files WHERE change_id = ? AND revision = ? ORDER BY ordinal').all(changeId, revision) as {
      path: string;
      operation: string;
      before_digest: string | null;
      after_digest: string | null;
      before_blob: Buffer | null;
      after_blob: Buffer | null;
    }[]
  ).map((f) => {
    // Stored blobs are re-hashed on every load: a corrupted row must not reach a checkout or the worktree.
    if ((f.before_blob && blake3(f.before_blob) !== f.before_digest) || (f.after_blob && blake3(f.after_blob) !== f.after_digest))
      throw new ChangeError('corrupt_store', `stored blob of ${f.path} in ${changeId} does not match its digest`);
    return {
      path: f.path,
      operation: f.operation as Operation,
      before: f.before_blob,
      after: f.after_blob,
      beforeDigest: f.before_digest as Digest | null,
      afterDigest: f.after_digest as Digest | null,
    };
  });
  return {
    revision,
    patchId: p.patch_id as Digest,
    summary: p.summary,
    coverage: JSON.parse(p.coverage_json) as CoverageItem[],
    residualRisks: JSON.parse(p.residual_risks_json) as string[],
    discrepancies: JSON.parse(p.discrepancies_json) as string[],
    files,
  };
}

interface VerificationRecord {
  verification_id: string;
  revision: number;
  patch_id: string;
  verifier_definition: string;
  verdict: string;
  verifier_started: number;
  artifact_json: string;
  created_unix_ms: number;
}

function toVerification(r: VerificationRecord): StoredVerification {
  return {
    verificationId: r.verification_id as Digest,
    revision: r.revision,
    patchId: r.patch_id as Digest,
    definition: r.verifier_definition as Digest,
    verdict: r.verdict as Verdict,
    verifierStarted: r.verifier_started === 1,
    body: JSON.parse(r.artifact_json) as VerificationBody,
    createdMs: r.created_unix_ms,
  };
}

export function latestVerification(db: Db, changeId: string, revision: number): StoredVerification | null {
  const r = db
    .prepare('SELECT * FROM change_verifications WHERE change_id = ? AND revision = ? ORDER BY id DESC LIMIT 1')
    .get(changeId, revision) as VerificationRecord | undefined;
  return r ? toVerification(r) : null;
}

export function countVerifications(db: Db, changeId: string): number {
  return (db.prepare('SELECT count(*) AS n FROM change_verifications WHERE change_id = ?').get(changeId) as { n: number }).n;
}

const VERIFIABLE_STATES = `('prepared', 'verified', 'rejected', 'repairable', 'inconclusive')`;

/**
 * Stores a verdict for the latest revision and moves the change to that state.
 * Only the repair's own orchestration may settle a change that is `repairing`;
 * a concurrent verification of the old revision must not overwrite it.
 */
export function recordVerification(db: Db, changeId: string, v: Omit<StoredVerification, 'createdMs'>, settlesRepair = false): void {
  db.transaction(() => {
    const moved = db
      .prepare(
        `UPDATE change_requests SET state = ?, updated_unix_ms = ?
         WHERE change_id = ? AND latest_revision = ? AND state IN ${settlesRepair ? "('repairing')" : VERIFIABLE_STATES}`,
      )
      .run(v.verdict, Date.now(), changeId, v.revision);
    if (moved.changes !== 1) {
      const now = loadChange(db, changeId);
      if (now?.state === 'repairing' || (now?.latestRevision ?? 0) > v.revision)
        throw new ChangeError('repair_in_progress', `change ${changeId} is being repaired by another call; verify it again afterwards`, changeId);
      throw new ChangeError('conflict', `change ${changeId} moved on (state ${now?.state ?? 'unknown'}) while it was being verified`, changeId);
    }
    db.prepare(
      `INSERT INTO change_verifications (verification_id, change_id, revision, patch_id, verifier_definition, verdict,
         verifier_started, artifact_json, created_unix_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      v.verificationId,
      changeId,
      v.revision,
      v.patchId,
      v.definition,
      v.verdict,
      v.verifierStarted ? 1 : 0,
      JSON.stringify(v.body),
      Date.now(),
    );
    event(db, changeId, 'verification_completed', { revision: v.revision, verification_id: v.verificationId, verdict: v.verdict });
  })();
}

/**
 * Claims the change's single repair. The guarded UPDATE runs in an IMMEDIATE
 * transaction, so of two racing callers (in any processes) exactly one wins.
 */
export function beginRepair(db: Db, changeId: string): boolean {
  return db
    .transaction(() => {
      const moved = db
        .prepare(
          `UPDATE change_requests SET state = 'repairing', repair_attempted = 1, updated_unix_ms = ?
           WHERE change_id = ? AND state = 'repairable' AND latest_revision = 1 AND repair_attempted = 0`,
        )
        .run(Date.now(), changeId);
      if (moved.changes !== 1) return false;
      event(db, changeId, 'repair_started', { revision: 2 });
      return true;
    })
    .immediate();
}

export function appendEvent(db: Db, changeId: string, type: string, payload: unknown): void {
  event(db, changeId, type, payload);
}

export function listEvents(db: Db, changeId: string): { type: string; payload: unknown; createdMs: number }[] {
  return (
    db.prepare('SELECT event_type, payload_json, created_unix_ms FROM change_events WHERE change_id = ? ORDER BY id').all(changeId) as {
      event_type: string;
      payload_json: string;
      created_unix_ms: number;
    }[]
  ).map((e) => ({ type: e.event_type, payload: JSON.parse(e.payload_json), createdMs: e.created_unix_ms }));
}

/** The digest `needle change apply --if-match` must quote: it pins state, patch and verdict. */
export function currentChangeDigest(db: Db, change: ChangeRow): Digest {
  const patch = change.latestRevision > 0 ? loadPatchId(db, change.changeId, change.latestRevision) : null;
  const v = change.latestRevision > 0 ? latestVerification(db, change.changeId, change.latestRevision) : null;
  return changeDigest({
    changeId: change.changeId,
    request: change.requestDigest,
    base: change.base,
    patchId: patch,
    revision: change.latestRevision,
    state: change.state,
    verification: v ? { id: v.verificationId, verdict: v.verdict } : null,
  });
}

function loadPatchId(db: Db, changeId: string, revision: number): Digest | null {
  const r = db.prepare('SELECT patch_id FROM patch_artifacts WHERE change_id = ? AND revision = ?').get(changeId, revision) as
    | { patch_id: string }
    | undefined;
  return (r?.patch_id as Digest | undefined) ?? null;
}
