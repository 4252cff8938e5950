// Rows from the shared database, parsed once at the edge into typed values.
// Nothing here is trusted: a row that does not parse is rejected as
// malformed; one that parses is still only a proposal until the local
// validators have re-checked it against the local bytes (revalidate.ts).
import { isDigest, type Digest } from '../core/digest.js';
import { PREDICATES, SUBJECT_KINDS, type Facets, type Predicate, type SubjectKind } from '../core/semantic.js';
import { TEAM_ROW_LIMITS } from './schema.js';

export interface RemoteDependency {
  readonly path: string;
  readonly digest: Digest;
}

export interface RemoteClaim {
  readonly claimId: Digest;
  readonly ordinal: number;
  readonly previousId: Digest | null;
}

export interface RemoteCertificate {
  readonly certificateId: Digest;
  readonly lineage: Digest;
  readonly artifactId: Digest;
  readonly predicate: Predicate;
  readonly subjectId: Digest;
  readonly subjectKind: SubjectKind;
  readonly subjectName: string;
  readonly worldId: Digest;
  /** What the publisher says the artifact proves: compared, never used. */
  readonly facets: Facets;
  readonly scope: string;
  readonly manifestDigest: Digest;
  readonly validatorDefinition: Digest;
  readonly payload: unknown;
  readonly dependencies: readonly RemoteDependency[];
  readonly claims: readonly RemoteClaim[];
  readonly publisher: string;
  readonly workerModel: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number | null;
}

/** The columns the consumer selects (claims aggregated in the same statement, so one snapshot). */
export const REMOTE_SELECT = `SELECT c.certificate_id, c.lineage, c.artifact_id, c.predicate, c.subject_id, c.subject_kind, c.subject_name,
    c.world_id, c.facets, c.scope, c.manifest_digest, c.validator_definition, c.payload, c.dependencies, c.publisher,
    c.worker_model, c.input_tokens::text AS input_tokens, c.output_tokens::text AS output_tokens, c.cost_usd,
    coalesce((SELECT json_agg(json_build_array(k.claim_id, k.ordinal, k.previous_claim_id) ORDER BY k.ordinal, k.claim_id)
              FROM needle_team_claims k WHERE k.certificate_id = c.certificate_id), '[]'::json)::text AS claims
  FROM needle_team_certificates c`;

export class MalformedRow extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRow';
  }
}

function text(row: Record<string, unknown>, key: string, maxBytes: number): string {
  const v = row[key];
  if (typeof v !== 'string') throw new MalformedRow(`${key} is not text`);
  if (Buffer.byteLength(v) > maxBytes) throw new MalformedRow(`${key} is longer than ${maxBytes} bytes`);
  return v;
}

function digest(value: unknown, key: string): Digest {
  if (!isDigest(value)) throw new MalformedRow(`${key} is not a b3: digest`);
  return value;
}

function json(row: Record<string, unknown>, key: string, maxBytes: number): unknown {
  const t = text(row, key, maxBytes);
  try {
    return JSON.parse(t) as unknown;
  } catch {
    throw new MalformedRow(`${key} is not JSON`);
  }
}

function count(value: unknown, key: string): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw new MalformedRow(`${key} is not a count`);
  return n;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], key: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw new MalformedRow(`${key} is not one of ${allowed.join(', ')}`);
  return value as T;
}

function facetsOf(value: unknown): Facets {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedRow('facets is not an object');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 16 || !entries.every(([, v]) => typeof v === 'string' && v.length <= 64)) throw new MalformedRow('facets are not short strings');
  return Object.fromEntries(entries) as Facets;
}

function dependenciesOf(value: unknown): RemoteDependency[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 512) throw new MalformedRow('dependencies is not a list of 1..512');
  return value.map((d, i) => {
    if (typeof d !== 'object' || d === null) throw new MalformedRow(`dependencies[${i}] is not an object`);
    const { path, digest: dg } = d as Record<string, unknown>;
    if (typeof path !== 'string' || path.length === 0 || Buffer.byteLength(path) > 1024) throw new MalformedRow(`dependencies[${i}].path is not a path`);
    return { path, digest: digest(dg, `dependencies[${i}].digest`) };
  });
}

function claimsOf(value: unknown): RemoteClaim[] {
  if (!Array.isArray(value) || value.length > TEAM_ROW_LIMITS.claimsPerCertificate) throw new MalformedRow('claims is not a bounded list');
  return value.map((c, i) => {
    if (!Array.isArray(c) || c.length !== 3) throw new MalformedRow(`claims[${i}] is not a triple`);
    const [id, ordinal, previous] = c as unknown[];
    if (!Number.isSafeInteger(ordinal)) throw new MalformedRow(`claims[${i}].ordinal is not an integer`);
    return { claimId: digest(id, `claims[${i}].id`), ordinal: ordinal as number, previousId: previous === null ? null : digest(previous, `claims[${i}].previous`) };
  });
}

/** Parses one selected row; throws MalformedRow naming the first bad column. */
export function parseRemoteRow(row: Record<string, unknown>): RemoteCertificate {
  const cost = row.cost_usd;
  if (cost !== null && (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0)) throw new MalformedRow('cost_usd is not a price');
  const model = row.worker_model;
  if (model !== null && (typeof model !== 'string' || model.length > 256)) throw new MalformedRow('worker_model is not a name');
  return {
    certificateId: digest(row.certificate_id, 'certificate_id'),
    lineage: digest(row.lineage, 'lineage'),
    artifactId: digest(row.artifact_id, 'artifact_id'),
    predicate: oneOf(row.predicate, PREDICATES, 'predicate'),
    subjectId: digest(row.subject_id, 'subject_id'),
    subjectKind: oneOf(row.subject_kind, SUBJECT_KINDS, 'subject_kind'),
    subjectName: text(row, 'subject_name', TEAM_ROW_LIMITS.nameBytes),
    worldId: digest(row.world_id, 'world_id'),
    facets: facetsOf(json(row, 'facets', 4096)),
    scope: text(row, 'scope', 64),
    manifestDigest: digest(row.manifest_digest, 'manifest_digest'),
    validatorDefinition: digest(row.validator_definition, 'validator_definition'),
    payload: json(row, 'payload', TEAM_ROW_LIMITS.payloadBytes),
    dependencies: dependenciesOf(json(row, 'dependencies', TEAM_ROW_LIMITS.dependenciesBytes)),
    claims: claimsOf(json(row, 'claims', TEAM_ROW_LIMITS.dependenciesBytes)),
    publisher: text(row, 'publisher', 256),
    workerModel: model as string | null,
    inputTokens: count(row.input_tokens, 'input_tokens'),
    outputTokens: count(row.output_tokens, 'output_tokens'),
    costUsd: cost as number | null,
  };
}
