// Certificates and dependency manifests (SPEC §9). A certified artifact lists
// every file it read or cites with its whole-file BLAKE3. Its scope is
// worktree_semantic (portable while those files are byte-identical) when the
// worker's observation trace is complete, else snapshot_exact (bound to one
// source snapshot digest).
import type { PayloadByPredicate } from '../core/contracts.js';
import { canonical, type Digest } from '../core/digest.js';
import type { CompiledNeed, Obligation } from '../core/need.js';
import { stableStringify } from '../core/schema.js';
import { predicateTag, type Facets, type Predicate } from '../core/semantic.js';
import type { ObservedFile } from '../core/worker.js';
import { extractClaims, type ClaimDraft } from './claims.js';
import type { Dependency } from './snapshot-reader.js';
import type { ValidatedProposal } from './validate.js';

export const SCOPES = ['worktree_semantic', 'snapshot_exact'] as const;
export type Scope = (typeof SCOPES)[number];

/** Bump when a validator rule changes: certificates issued under older rules stop being served. */
export const VALIDATOR_REVISION = 1;

// Constant per predicate, and looked up for every candidate on every cache lookup.
const validatorDefinitions = new Map<Predicate, Digest>();

export function validatorDefinition(predicate: Predicate): Digest {
  let digest = validatorDefinitions.get(predicate);
  if (!digest) {
    digest = canonical('semantic-validator-definition').text('needle.evidence/1').u32(VALIDATOR_REVISION).u8(predicateTag(predicate)).finish();
    validatorDefinitions.set(predicate, digest);
  }
  return digest;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Order-insensitive parts are sorted so equal evidence has one identity. */
export function normalizePayload<P extends Predicate>(predicate: P, payload: PayloadByPredicate[P]): PayloadByPredicate[P] {
  if (predicate === 'implementation_location') {
    const il = payload as PayloadByPredicate['implementation_location'];
    const key = (l: (typeof il.locations)[number]) =>
      `${l.role === 'primary' ? 0 : 1}\0${l.path}\0${String(l.start_line).padStart(10, '0')}\0${String(l.end_line).padStart(10, '0')}\0${l.symbol ?? ''}`;
    return { locations: [...il.locations].sort((a, b) => cmp(key(a), key(b))), gaps: [...il.gaps].sort() } as PayloadByPredicate[P];
  }
  if (predicate === 'runtime_flow') {
    const rf = payload as PayloadByPredicate['runtime_flow'];
    return { ...rf, gaps: [...rf.gaps].sort() } as PayloadByPredicate[P];
  }
  const ft = payload as PayloadByPredicate['focused_tests'];
  return { ...ft, evidence_paths: [...ft.evidence_paths].sort() } as PayloadByPredicate[P];
}

export function artifactId(predicate: Predicate, subjectId: Digest, worldId: Digest, payload: unknown): Digest {
  return canonical('semantic-artifact')
    .u8(predicateTag(predicate))
    .digest(subjectId)
    .digest(worldId)
    .text(stableStringify(payload))
    .finish();
}

export function manifestDigest(scope: Scope, snapshot: Digest | null, deps: readonly Dependency[]): Digest {
  return canonical('dependency-manifest')
    .text(scope)
    .optionalDigest(snapshot)
    .list(deps, (h, d) => h.text(d.path).digest(d.digest))
    .finish();
}

export function certificateId(artifact: Digest, predicate: Predicate, worldId: Digest, manifest: Digest, facets: Facets): Digest {
  return canonical('artifact-validation-certificate')
    .digest(artifact)
    .digest(validatorDefinition(predicate))
    .digest(worldId)
    .digest(manifest)
    .text(stableStringify(facets))
    .finish();
}

/** Where an implementation location puts the subject; two fresh artifacts that disagree contradict. */
export function primaryKey(predicate: Predicate, payload: unknown): string | null {
  if (predicate !== 'implementation_location') return null;
  return (payload as PayloadByPredicate['implementation_location']).locations
    .filter((l) => l.role === 'primary')
    .map((l) => `${l.path}:${l.start_line}-${l.end_line}`)
    .sort()
    .join(',');
}

export interface CertifiedArtifact {
  readonly artifactId: Digest;
  readonly certificateId: Digest;
  readonly predicate: Predicate;
  readonly payload: unknown;
  readonly subject: CompiledNeed['subject'];
  readonly worldId: Digest;
  readonly facets: Facets;
  readonly obligations: readonly Obligation[];
  readonly scope: Scope;
  readonly snapshotDigest: Digest | null;
  readonly dependencies: readonly Dependency[];
  readonly manifestDigest: Digest;
  readonly validatorDefinition: Digest;
  readonly primaryKey: string | null;
  readonly projectionBytes: number;
  readonly claims: readonly ClaimDraft[];
}

export interface CertifyInput {
  readonly need: CompiledNeed;
  readonly validated: ValidatedProposal;
  /** Files the validator read for this proposal (digests of the checked bytes). */
  readonly cited: readonly Dependency[];
  /** The worker's observation trace. */
  readonly observed: readonly ObservedFile[];
  readonly observationComplete: boolean;
  /** Digest of the current source snapshot; only asked for when the scope needs it. */
  readonly snapshotDigest: () => Digest;
}

export function certify(input: CertifyInput): CertifiedArtifact {
  const { need, validated } = input;
  const predicate = validated.predicate;
  const payload = normalizePayload(predicate, validated.payload);
  const deps = new Map<string, Digest>();
  for (const o of input.observed) deps.set(o.path, o.digest);
  for (const c of input.cited) deps.set(c.path, c.digest);
  const dependencies = [...deps.entries()].sort(([a], [b]) => cmp(a, b)).map(([path, digest]) => ({ path, digest }));
  const scope: Scope = input.observationComplete ? 'worktree_semantic' : 'snapshot_exact';
  const snapshot = scope === 'snapshot_exact' ? input.snapshotDigest() : null;
  const manifest = manifestDigest(scope, snapshot, dependencies);
  const id = artifactId(predicate, need.subject.id, need.world.id, payload);
  return {
    artifactId: id,
    certificateId: certificateId(id, predicate, need.world.id, manifest, validated.facets),
    predicate,
    payload,
    subject: need.subject,
    worldId: need.world.id,
    facets: validated.facets,
    obligations: validated.obligations,
    scope,
    snapshotDigest: snapshot,
    dependencies,
    manifestDigest: manifest,
    validatorDefinition: validatorDefinition(predicate),
    primaryKey: primaryKey(predicate, payload),
    projectionBytes: stableStringify(payload).length,
    claims: extractClaims(predicate, payload, need.subject.id, need.world.id, input.cited),
  };
}
