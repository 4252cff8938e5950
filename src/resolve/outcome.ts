// From a cache plan (and what the ladder did) to the resolution the main
// sees (SPEC §4, §10.4–§10.6): the outcome kind, what is satisfied and
// missing per obligation, the reuse unit, and the FrontierView entries.
import { canonical, type Digest } from '../core/digest.js';
import { EVIDENCE_STORE } from '../core/limits.js';
import type { CompiledNeed } from '../core/need.js';
import type { Resolution, ReuseUnit } from '../core/resolution.js';
import { PREDICATES, type Predicate } from '../core/semantic.js';
import type { CachePlan, ServedUnit } from './cache-plan.js';
import type { ViewEntry } from './frontier-view.js';
import type { LadderOutcome } from './ladder.js';
import { clipUtf8 } from '../core/text.js';

export interface Circumstances {
  readonly ladder: LadderOutcome | null;
  readonly cacheOnly: boolean;
  readonly sufficiencyId: Digest | null;
}

export interface Outcome {
  readonly resolution: Resolution;
  readonly satisfied: Predicate[];
  readonly missing: Predicate[];
  /** Units actually served (empty for unsafe kinds). */
  readonly served: readonly ServedUnit[];
  readonly cacheHit: boolean;
  readonly reuseUnit: ReuseUnit;
  readonly claimIds: Digest[];
  /** An unsafe kind that is the workers' answer (ambiguous, every proposal rejected), not a failure to answer. */
  readonly verdict: boolean;
}

const ordered = (set: Iterable<Predicate>): Predicate[] => {
  const s = new Set(set);
  return PREDICATES.filter((p) => s.has(p));
};

function clip(reason: string): string {
  return clipUtf8(reason, EVIDENCE_STORE.maxReasonBytes, '…');
}

/** A worker's own reason cut to its first two parts ("codex: codex turn timeout"), so no worker output is quoted. */
const headOf = (unresolved: string): string => unresolved.split(': ').slice(0, 2).join(': ');

/**
 * Why obligations are still missing after the ladder: a worker timed out or
 * found nothing, its proposals were rejected (the validators' reasons), or the
 * model-worker limit was reached. Null when nothing is missing or nothing ran.
 */
export function missingReason(missing: readonly Predicate[], ladder: LadderOutcome | null): string | null {
  if (missing.length === 0 || !ladder) return null;
  const parts = [
    ...ladder.unresolved.map(headOf),
    ...ladder.rejections.map((r) => `rejected ${r}`),
    ...(ladder.skipped.length > 0 ? [`model-worker limit reached (${ladder.skipped.join(', ')} not run)`] : []),
  ];
  if (parts.length === 0) return null;
  return clip(`${missing.join(', ')} missing: ${[...new Set(parts)].join(' | ')}`);
}

export function planId(need: CompiledNeed, plan: CachePlan): Digest {
  return canonical('selected-plan')
    .digest(need.id)
    .u16(plan.coveredMask)
    .u16(((1 << plan.obligations.length) - 1) & ~plan.coveredMask)
    .list(plan.units, (h, u) => h.digest(u.certificate.certificateId).list(u.claims, (h2, c) => h2.digest(c.claimId)))
    .finish();
}

/** An unsafe resolution (nothing is served) and whether it is the workers' own answer. */
export interface UnsafeDecision {
  readonly resolution: Resolution;
  readonly verdict: boolean;
}

/**
 * What stops a resolution before anything is served: certified evidence that
 * contradicts itself, an ambiguity the workers found, or files that changed
 * while a worker ran. Null when none of these holds.
 */
export function blockingResolution(plan: Pick<CachePlan, 'contradiction'>, ladder: LadderOutcome | null): UnsafeDecision | null {
  if (plan.contradiction) return { resolution: { kind: 'contradicted', reason: clip(plan.contradiction) }, verdict: false };
  if (ladder?.ambiguous)
    return {
      resolution: { kind: 'ambiguous', reason: clip(`several equally good definitions; ask again with a qualified name: ${ladder.ambiguous.join('; ')}`) },
      verdict: true,
    };
  if (ladder && ladder.drift.length > 0)
    return {
      resolution: { kind: 'rejected', reason: clip(`files changed while the worker ran (${ladder.drift.join(', ')}); nothing from that run was certified — ask again`) },
      verdict: false,
    };
  return null;
}

/** Why Needle has nothing of its own to answer with, the first cause that applies. */
export function bypassReason(plan: Pick<CachePlan, 'withheld'>, ladder: LadderOutcome | null, cacheOnly: boolean): string {
  if (cacheOnly) return 'cache-only session and no certified evidence covers this need';
  if (ladder && ladder.unresolved.length > 0) return ladder.unresolved.join(' | ');
  if (ladder && ladder.skipped.length > 0 && ladder.workersRun === 0) return `model-worker limit reached (${ladder.skipped.join(', ')} not run)`;
  if (plan.withheld.length > 0) return `the role profile does not let cached ${plan.withheld.join(', ')} be served and no worker produced it`;
  return 'no worker could resolve this need';
}

/**
 * The resolution when the plan serves no unit: every proposal rejected (the
 * workers' verdict, now or from the negative outcomes standing in for them),
 * certified evidence gone stale with no worker to recompute it, or a bypass.
 */
export function unservedResolution(plan: Pick<CachePlan, 'staleArtifactIds' | 'withheld'>, ladder: LadderOutcome | null, cacheOnly: boolean): UnsafeDecision {
  const rejections = ladder?.rejections ?? [];
  if (rejections.length > 0 && ladder && (ladder.workersRun > 0 || ladder.reused.length > 0))
    return { resolution: { kind: 'rejected', reason: clip(`every proposal was rejected: ${rejections.join(' | ')}`) }, verdict: true };
  if (plan.staleArtifactIds.length > 0 && (!ladder || ladder.workersRun === 0))
    return {
      resolution: {
        kind: 'stale',
        artifact_ids: plan.staleArtifactIds,
        reason: clip(`${plan.staleArtifactIds.length} certified artifact(s) rest on files that changed and no worker could recompute them here`),
      },
      verdict: false,
    };
  return { resolution: { kind: 'bypass', reason: clip(bypassReason(plan, ladder, cacheOnly)) }, verdict: false };
}

export type HitKind = 'exact_hit' | 'coverage_hit' | 'composite_hit' | 'claim_hit' | 'claim_composite_hit';

/**
 * The hit a plan is when every required obligation is covered and every
 * served unit came from the cache (none issued by this resolution): claims
 * make it a claim hit, several units a composite one, and a single artifact
 * is an exact hit for the request that certified it. Null otherwise.
 */
export function hitKind(need: Pick<CompiledNeed, 'requestDigest'>, plan: Pick<CachePlan, 'units' | 'coveredMask' | 'requiredMask'>, cached: readonly ServedUnit[]): HitKind | null {
  const requiredDone = (plan.coveredMask & plan.requiredMask) === plan.requiredMask;
  if (!requiredDone || plan.units.length === 0 || cached.length !== plan.units.length) return null;
  const single = plan.units.length === 1;
  if (cached.some((u) => u.unit === 'claim')) return single ? 'claim_hit' : 'claim_composite_hit';
  if (!single) return 'composite_hit';
  return plan.units[0]!.certificate.originRequest === need.requestDigest ? 'exact_hit' : 'coverage_hit';
}

/** How the served units were reused from the cache. */
export function reuseUnitOf(cached: readonly ServedUnit[]): ReuseUnit {
  const claims = cached.filter((u) => u.unit === 'claim').length;
  if (cached.length === 0) return 'none';
  if (claims === 0) return 'artifact';
  return claims === cached.length ? 'claim' : 'mixed';
}

/**
 * A task that names anchors the typed need does not carry is answered as a
 * bypass, whatever the cache served: the typed part is still shown, but only
 * as evidence for that part. Null for a need without residual intent.
 */
export function residualBypass(need: Pick<CompiledNeed, 'residual'>): Resolution | null {
  if (!need.residual) return null;
  return {
    kind: 'bypass',
    reason: clip(
      `the task names ${need.residual.anchors.join(', ')}, which the typed need does not carry; only the typed part below is evidence — resolve the rest yourself or ask a separate need`,
    ),
  };
}

interface ServedIds {
  readonly artifactIds: Digest[];
  readonly claimIds: Digest[];
  readonly planId: Digest;
  readonly sufficiencyId: Digest | null;
}

/** The resolution of a plan that serves units: a hit of some kind, or a partial hit (or miss) saying why the rest is missing. */
export function servedResolution(kind: HitKind | null, anyCached: boolean, ids: ServedIds, missing: readonly Predicate[], ladder: LadderOutcome | null): Resolution {
  const { artifactIds, claimIds, planId: plan_id, sufficiencyId: certificate_id } = ids;
  if (kind === 'claim_hit' || kind === 'claim_composite_hit') return { kind, artifact_ids: artifactIds, claim_ids: claimIds, certificate_id, plan_id };
  if (kind !== null) return { kind, artifact_ids: artifactIds, certificate_id, plan_id };
  const why = missingReason(missing, ladder);
  const reason = why === null ? {} : { reason: why };
  return anyCached ? { kind: 'partial_hit', artifact_ids: artifactIds, claim_ids: claimIds, plan_id, ...reason } : { kind: 'miss', ...reason };
}

export function decideOutcome(need: CompiledNeed, plan: CachePlan, issued: ReadonlySet<string>, c: Circumstances): Outcome {
  const bitsOf = (mask: number) => plan.obligations.filter((_, i) => ((mask >> i) & 1) === 1).map((o) => o.predicate);
  const allBits = (1 << plan.obligations.length) - 1;
  const satisfied = ordered(bitsOf(plan.coveredMask));
  const missing = ordered(bitsOf(allBits & ~plan.coveredMask));
  const unsafe = ({ resolution, verdict }: UnsafeDecision): Outcome => ({
    resolution,
    satisfied: [],
    missing: ordered([...satisfied, ...missing]),
    served: [],
    cacheHit: false,
    reuseUnit: 'none',
    claimIds: [],
    verdict,
  });
  const blocked = blockingResolution(plan, c.ladder);
  if (blocked) return unsafe(blocked);
  if (plan.units.length === 0) return unsafe(unservedResolution(plan, c.ladder, c.cacheOnly));

  const cached = plan.units.filter((u) => !issued.has(u.certificate.certificateId));
  const claimIds = cached.filter((u) => u.unit === 'claim').flatMap((u) => u.claims.map((x) => x.claimId));
  const ids: ServedIds = {
    artifactIds: [...new Set(plan.units.map((u) => u.certificate.artifactId))].sort() as Digest[],
    claimIds,
    planId: planId(need, plan),
    sufficiencyId: c.sufficiencyId,
  };
  const resolution = residualBypass(need) ?? servedResolution(hitKind(need, plan, cached), cached.length > 0, ids, missing, c.ladder);
  return { resolution, satisfied, missing, served: plan.units, cacheHit: cached.length > 0, reuseUnit: reuseUnitOf(cached), claimIds, verdict: false };
}

/** What each served unit shows, in a stable order: locations, flow, test. */
export function viewEntries(units: readonly ServedUnit[]): ViewEntry[] {
  const entries: ViewEntry[] = [];
  for (const { payload } of units) {
    if (payload.predicate === 'implementation_location') for (const location of payload.locations) entries.push({ kind: 'location', location });
    else if (payload.predicate === 'runtime_flow') entries.push({ kind: 'flow', scenario: payload.scenario, steps: payload.steps });
    else entries.push({ kind: 'test', plan: payload.plan });
  }
  return entries;
}
