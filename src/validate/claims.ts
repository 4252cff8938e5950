// Claims (SPEC §10.5): a certified artifact split into the smallest reusable
// statements — one per location, one per flow step (linked in order), one per
// focused test — each resting only on the files it cites. An edit to a
// supporting file therefore stales the artifact but not its primary claim.
import type { FlowStep, Location, PayloadByPredicate } from '../core/contracts.js';
import { canonical, type Digest } from '../core/digest.js';
import { RESOLVER } from '../core/limits.js';
import { stableStringify } from '../core/schema.js';
import type { Predicate } from '../core/semantic.js';
import type { Dependency } from './snapshot-reader.js';

export const CLAIM_KINDS = ['location', 'flow_step', 'focused_test'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

export type ClaimPayload =
  | { readonly kind: 'location'; readonly location: Location }
  | { readonly kind: 'flow_step'; readonly anchor: Digest; readonly ordinal: number; readonly step: FlowStep }
  | { readonly kind: 'focused_test'; readonly plan: PayloadByPredicate['focused_tests'] };

export interface ClaimDraft {
  readonly id: Digest;
  readonly predicate: Predicate;
  readonly payload: ClaimPayload;
  readonly ordinal: number;
  /** The flow step this one follows (flow claims only). */
  readonly previousId: Digest | null;
  readonly dependencies: readonly Dependency[];
}

function claimId(subjectId: Digest, worldId: Digest, predicate: Predicate, payload: ClaimPayload): Digest {
  return canonical('semantic-claim')
    .text(payload.kind)
    .text(predicate)
    .digest(subjectId)
    .digest(worldId)
    .text(stableStringify(payload))
    .finish();
}

function only(deps: ReadonlyMap<string, Digest>, paths: readonly string[]): Dependency[] {
  return [...new Set(paths)]
    .sort()
    .flatMap((path) => {
      const digest = deps.get(path);
      return digest ? [{ path, digest }] : [];
    });
}

/** Splits a validated payload into claims; `cited` are the files the validator read. */
export function extractClaims<P extends Predicate>(
  predicate: P,
  payload: PayloadByPredicate[P],
  subjectId: Digest,
  worldId: Digest,
  cited: readonly Dependency[],
): ClaimDraft[] {
  const deps = new Map(cited.map((d) => [d.path, d.digest]));
  const make = (p: ClaimPayload, ordinal: number, previousId: Digest | null, paths: readonly string[]): ClaimDraft => ({
    id: claimId(subjectId, worldId, predicate, p),
    predicate,
    payload: p,
    ordinal,
    previousId,
    dependencies: only(deps, paths),
  });
  let claims: ClaimDraft[];
  if (predicate === 'implementation_location') {
    const il = payload as PayloadByPredicate['implementation_location'];
    claims = il.locations.map((location, i) => make({ kind: 'location', location }, i, null, [location.path]));
  } else if (predicate === 'runtime_flow') {
    const rf = payload as PayloadByPredicate['runtime_flow'];
    const anchor = canonical('runtime-flow-anchor').text(rf.scenario).text(stableStringify(rf.steps)).finish();
    claims = [];
    rf.steps.forEach((step, i) => {
      claims.push(make({ kind: 'flow_step', anchor, ordinal: i, step }, i, claims[i - 1]?.id ?? null, [step.location.path]));
    });
  } else {
    const plan = payload as PayloadByPredicate['focused_tests'];
    // A test plan rests on everything the validator read: the test, its
    // evidence and the runner's project files.
    claims = [make({ kind: 'focused_test', plan }, 0, null, cited.map((d) => d.path))];
  }
  return claims.slice(0, RESOLVER.maxClaimsPerArtifact);
}
