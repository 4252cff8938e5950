// Certified evidence as input to a verified change (SPEC §9, §10.5, §14): the
// artifact and claim ids a main model names in prepare_change are served only
// while they would be served by need_context — certified, not invalidated,
// issued under the current validator, from this repository, and resting on
// bytes that are unchanged right now. Every focused test among them becomes a
// certified test plan that verify_change may run. Any id that fails is refused
// whole with one line naming it; nothing is served on a guess.
import { focusedTestsSchema, PAYLOAD_SCHEMAS, type Location } from '../core/contracts.js';
import type { CertifiedEvidence, CertifiedEvidenceIds, CertifiedItem, CertifiedTestPlan } from '../core/certified.js';
import type { Digest } from '../core/digest.js';
import { CHANGE_RUN } from '../core/limits.js';
import { subjectId } from '../core/need.js';
import { SchemaError, stableStringify } from '../core/schema.js';
import { captureSnapshot, repositoryLineage } from '../repo/snapshot.js';
import type { Db } from '../store/db.js';
import {
  certificatesVouchingFor,
  getCertificate,
  isKnownEvidence,
  loadClaims,
  type CertificateRow,
  type DependencyRow,
} from '../store/evidence/certificates.js';
import { validatorDefinition } from '../validate/certificate.js';
import { clip } from '../validate/snapshot-reader.js';
import { FreshnessChecker } from './freshness.js';
import { claimPayloadSchema, type StoredClaimPayload } from './payloads.js';

/** An id that cannot be served; the message is one line naming the id and why. */
export class CertifiedEvidenceError extends Error {
  constructor(
    readonly id: string,
    readonly kind: 'artifact' | 'claim',
    reason: string,
  ) {
    super(`${kind} ${id} ${reason}`);
    this.name = 'CertifiedEvidenceError';
  }
}

type ClaimPayload = StoredClaimPayload;

function span(l: Location): string {
  return l.start_line === l.end_line ? `${l.path}:${l.start_line}` : `${l.path}:${l.start_line}-${l.end_line}`;
}

function label(cert: CertificateRow, where: Location): string {
  return `${cert.predicate} ${cert.subjectKind}:${clip(cert.subjectName, 120)} ${clip(span(where), 240)}`;
}

/** Checks one certificate against the current repository; returns why it cannot vouch, or null. */
type Verdict = (cert: CertificateRow, deps: readonly DependencyRow[]) => string | null;

function verdictFor(db: Db, repoRoot: string, freshness: FreshnessChecker): Verdict {
  let lineage: Digest | null = null;
  let snapshot: Digest | null = null;
  return (cert, deps) => {
    if (cert.invalidatedUnixMs !== null) return `was invalidated: ${clip(cert.invalidatedReason ?? 'no reason recorded', 160)}`;
    if (cert.validatorDefinition !== validatorDefinition(cert.predicate)) return 'was certified under an older validator and is no longer served';
    lineage ??= repositoryLineage(repoRoot);
    if (subjectId(lineage, cert.subjectKind, cert.subjectName) !== cert.subjectId) return 'was certified for another repository';
    if (cert.scope === 'snapshot_exact') {
      snapshot ??= captureSnapshot(repoRoot).sourceDigest;
      if (cert.snapshotDigest !== snapshot) return 'is bound to an exact source snapshot and the worktree has changed since it was certified';
    }
    const changed = freshness.changed(deps);
    if (changed.length > 0) return `is stale: ${clip(changed[0]!, 240)} changed since it was certified`;
    return null;
  };
}

function bounded(kind: 'artifact' | 'claim', id: Digest, value: unknown): string {
  const json = stableStringify(value);
  const size = Buffer.byteLength(json);
  if (size > CHANGE_RUN.maxContextItemBytes) {
    const hint = kind === 'artifact' ? '; pass the claim ids it was split into instead' : '';
    throw new CertifiedEvidenceError(id, kind, `is ${size} bytes, over the ${CHANGE_RUN.maxContextItemBytes}-byte bound for one context item${hint}`);
  }
  return json;
}

/** The stored payload, parsed once; a row that no longer fits its contract is never served. */
function parsed<T>(kind: 'artifact' | 'claim', id: Digest, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof SchemaError) throw new CertifiedEvidenceError(id, kind, `has stored evidence that does not match its contract (${clip(e.message, 160)})`);
    throw e;
  }
}

/** Resolves the first certificate that vouches for the id, or throws the reason the newest one does not. */
function vouching<T>(db: Db, kind: 'artifact' | 'claim', id: Digest, check: (certificateId: Digest) => { value: T; why: string | null } | null): T {
  let firstReason: string | null = null;
  for (const certificateId of certificatesVouchingFor(db, kind, id)) {
    const r = check(certificateId);
    if (!r) continue;
    if (r.why === null) return r.value;
    firstReason ??= r.why;
  }
  if (firstReason !== null) throw new CertifiedEvidenceError(id, kind, firstReason);
  throw new CertifiedEvidenceError(id, kind, isKnownEvidence(db, kind, id) ? 'has no certified certificate' : 'is not known to this evidence store');
}

function artifactPrimary(cert: CertificateRow): Location {
  if (cert.predicate === 'implementation_location') {
    const il = PAYLOAD_SCHEMAS.implementation_location.parse(cert.payload, 'payload');
    return il.locations.find((l) => l.role === 'primary') ?? il.locations[0]!;
  }
  if (cert.predicate === 'runtime_flow') return PAYLOAD_SCHEMAS.runtime_flow.parse(cert.payload, 'payload').steps[0]!.location;
  return PAYLOAD_SCHEMAS.focused_tests.parse(cert.payload, 'payload').location;
}

function claimLocation(p: ClaimPayload): Location {
  if (p.kind === 'location') return p.location;
  if (p.kind === 'flow_step') return p.step.location;
  return p.plan.location;
}

/**
 * Loads the named artifacts and claims as certified context for a change.
 * Throws CertifiedEvidenceError for the first id that is unknown, not
 * certified, invalidated, from another repository, or stale right now.
 */
export function loadCertifiedEvidence(db: Db, repoRoot: string, ids: CertifiedEvidenceIds): CertifiedEvidence {
  const verdict = verdictFor(db, repoRoot, new FreshnessChecker(repoRoot));
  const items: CertifiedItem[] = [];
  const testPlans: CertifiedTestPlan[] = [];

  for (const raw of ids.artifactIds) {
    const id = raw as Digest;
    const cert = vouching(db, 'artifact', id, (certificateId) => {
      const c = getCertificate(db, certificateId);
      return c && { value: c, why: verdict(c, c.dependencies) };
    });
    const primary = parsed('artifact', id, () => artifactPrimary(cert));
    items.push({ id, kind: 'artifact', label: label(cert, primary), json: bounded('artifact', id, cert.payload) });
    if (cert.predicate === 'focused_tests') {
      const plan = parsed('artifact', id, () => focusedTestsSchema.parse(cert.payload, 'payload'));
      testPlans.push({ source_id: id, plan, dependencies: cert.dependencies });
    }
  }

  for (const raw of ids.claimIds) {
    const id = raw as Digest;
    const { cert, claim } = vouching(db, 'claim', id, (certificateId) => {
      const c = getCertificate(db, certificateId);
      const row = c && loadClaims(db, certificateId).find((r) => r.claimId === id);
      return c && row ? { value: { cert: c, claim: row }, why: verdict(c, row.dependencies) } : null;
    });
    const payload = parsed('claim', id, () => claimPayloadSchema.parse(claim.payload, 'payload'));
    items.push({ id, kind: 'claim', label: label(cert, claimLocation(payload)), json: bounded('claim', id, payload) });
    if (payload.kind === 'focused_test') testPlans.push({ source_id: id, plan: payload.plan, dependencies: claim.dependencies });
  }
  return { items, testPlans };
}
