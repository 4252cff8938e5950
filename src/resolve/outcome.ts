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

export function decideOutcome(need: CompiledNeed, plan: CachePlan, issued: ReadonlySet<string>, c: Circumstances): Outcome {
  const bitsOf = (mask: number) => plan.obligations.filter((_, i) => ((mask >> i) & 1) === 1).map((o) => o.predicate);
  const allBits = (1 << plan.obligations.length) - 1;
  const satisfied = ordered(bitsOf(plan.coveredMask));
  const missing = ordered(bitsOf(allBits & ~plan.coveredMask));
  const unsafe = (resolution: Resolution): Outcome => ({
    resolution,
    satisfied: [],
    missing: ordered([...satisfied, ...missing]),
    served: [],
    cacheHit: false,
    reuseUnit: 'none',
    claimIds: [],
    verdict: false,
  });
  if (plan.contradiction) return unsafe({ kind: 'contradicted', reason: clip(plan.contradiction) });
  const ladder = c.ladder;
  if (ladder?.ambiguous)
    return {
      ...unsafe({
        kind: 'ambiguous',
        reason: clip(`several equally good definitions; ask again with a qualified name: ${ladder.ambiguous.join('; ')}`),
      }),
      verdict: true,
    };
  if (ladder && ladder.drift.length > 0)
    return unsafe({
      kind: 'rejected',
      reason: clip(`files changed while the worker ran (${ladder.drift.join(', ')}); nothing from that run was certified — ask again`),
    });

  const cached = plan.units.filter((u) => !issued.has(u.certificate.certificateId));
  const claimUnits = cached.filter((u) => u.unit === 'claim');
  const claimIds = claimUnits.flatMap((u) => u.claims.map((x) => x.claimId));
  const artifactIds = [...new Set(plan.units.map((u) => u.certificate.artifactId))].sort() as Digest[];
  const reuseUnit: ReuseUnit =
    cached.length === 0 ? 'none' : claimUnits.length === 0 ? 'artifact' : claimUnits.length === cached.length ? 'claim' : 'mixed';
  const requiredDone = (plan.coveredMask & plan.requiredMask) === plan.requiredMask;
  const base = { satisfied, missing, served: plan.units, cacheHit: cached.length > 0, reuseUnit, claimIds, verdict: false };
  const id = planId(need, plan);

  if (plan.units.length === 0) {
    const reasons = [...(ladder?.rejections ?? [])];
    // Rejections from workers that ran now or from the certified negative outcomes standing in for them.
    if (reasons.length > 0 && ladder && (ladder.workersRun > 0 || ladder.reused.length > 0))
      return { ...unsafe({ kind: 'rejected', reason: clip(`every proposal was rejected: ${reasons.join(' | ')}`) }), verdict: true };
    if (plan.staleArtifactIds.length > 0 && (!ladder || ladder.workersRun === 0))
      return unsafe({
        kind: 'stale',
        artifact_ids: plan.staleArtifactIds,
        reason: clip(`${plan.staleArtifactIds.length} certified artifact(s) rest on files that changed and no worker could recompute them here`),
      });
    const why = c.cacheOnly
      ? 'cache-only session and no certified evidence covers this need'
      : ladder && ladder.unresolved.length > 0
        ? ladder.unresolved.join(' | ')
        : ladder && ladder.skipped.length > 0 && ladder.workersRun === 0
          ? `model-worker limit reached (${ladder.skipped.join(', ')} not run)`
          : plan.withheld.length > 0
            ? `the role profile does not let cached ${plan.withheld.join(', ')} be served and no worker produced it`
            : 'no worker could resolve this need';
    return { ...unsafe({ kind: 'bypass', reason: clip(why) }) };
  }

  let resolution: Resolution;
  if (requiredDone && cached.length === plan.units.length) {
    const single = plan.units.length === 1;
    if (claimUnits.length > 0)
      resolution = {
        kind: single ? 'claim_hit' : 'claim_composite_hit',
        artifact_ids: artifactIds,
        claim_ids: claimIds,
        certificate_id: c.sufficiencyId,
        plan_id: id,
      };
    else
      resolution = {
        kind: !single ? 'composite_hit' : plan.units[0]!.certificate.originRequest === need.requestDigest ? 'exact_hit' : 'coverage_hit',
        artifact_ids: artifactIds,
        certificate_id: c.sufficiencyId,
        plan_id: id,
      };
  } else {
    const why = missingReason(missing, c.ladder);
    const reason = why === null ? {} : { reason: why };
    resolution = cached.length > 0 ? { kind: 'partial_hit', artifact_ids: artifactIds, claim_ids: claimIds, plan_id: id, ...reason } : { kind: 'miss', ...reason };
  }
  if (need.residual)
    resolution = {
      kind: 'bypass',
      reason: clip(
        `the task names ${need.residual.anchors.join(', ')}, which the typed need does not carry; only the typed part below is evidence — resolve the rest yourself or ask a separate need`,
      ),
    };
  return { ...base, resolution };
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
