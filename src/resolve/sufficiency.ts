// Sufficiency certificates (SPEC §10.7): the recorded plan that justified
// serving a need — its obligations, the certificates and claims chosen, the
// world — replayable later without any model: every unit must still be
// certified, fresh and uncontradicted, and together cover every required
// obligation.
import { canonical, type Digest } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import { stableStringify } from '../core/schema.js';
import { facetsSatisfy, type Facets, type Predicate } from '../core/semantic.js';
import type { Db } from '../store/db.js';
import { getCertificate, loadCandidates, loadClaims } from '../store/evidence/certificates.js';
import type { SufficiencyRow } from '../store/evidence/accounting.js';
import { validatorDefinition } from '../validate/certificate.js';
import { describeContradiction, type CachePlan } from './cache-plan.js';
import type { FreshnessChecker } from './freshness.js';

export const ENGINE_DEFINITION = canonical('proof-engine').text('bounded-bitmask-dp').u16(16).u16(64).u16(8).finish();

export interface SufficiencyObligation {
  readonly id: Digest;
  readonly predicate: Predicate;
  readonly facets: Facets;
  readonly required: boolean;
}

export interface SufficiencyUnit {
  readonly unit: 'artifact' | 'claim';
  readonly certificate: Digest;
  readonly artifact: Digest;
  readonly claims: readonly Digest[];
  readonly obligations: readonly Digest[];
}

export interface Sufficiency {
  readonly id: Digest;
  readonly needId: Digest;
  readonly worldId: Digest;
  readonly kind: string;
  readonly obligations: readonly SufficiencyObligation[];
  readonly units: readonly SufficiencyUnit[];
}

/** The resolution kind is recorded beside the plan but not hashed: the plan is what replays. */
function sufficiencyId(s: Omit<Sufficiency, 'id' | 'kind'>): Digest {
  return canonical('reuse-sufficiency-certificate')
    .digest(s.needId)
    .digest(s.worldId)
    .text(stableStringify(s.obligations))
    .text(stableStringify(s.units))
    .digest(ENGINE_DEFINITION)
    .finish();
}

export function buildSufficiency(need: CompiledNeed, plan: CachePlan): Omit<Sufficiency, 'kind'> {
  const obligations = plan.obligations.map((o, i) => ({
    id: o.id,
    predicate: o.predicate,
    facets: o.facets,
    required: ((plan.requiredMask >> i) & 1) === 1,
  }));
  const units = plan.units.map((u) => ({
    unit: u.unit,
    certificate: u.certificate.certificateId,
    artifact: u.certificate.artifactId,
    claims: u.claims.map((c) => c.claimId),
    obligations: plan.obligations.filter((_, i) => ((u.mask >> i) & 1) === 1).map((o) => o.id),
  }));
  const body = { needId: need.id, worldId: need.world.id, obligations, units };
  return { id: sufficiencyId(body), ...body };
}

export interface ReplayContext {
  readonly db: Db;
  readonly freshness: FreshnessChecker;
  readonly snapshotDigest: () => Digest;
}

export interface Replay {
  readonly valid: boolean;
  readonly reasons: readonly string[];
}

/** Re-checks a stored sufficiency certificate against the store and the current bytes; no model runs. */
export function replaySufficiency(ctx: ReplayContext, row: SufficiencyRow): Replay {
  const s = { needId: row.needId, worldId: row.worldId, obligations: row.obligations, units: row.units } as Omit<Sufficiency, 'id' | 'kind'>;
  const reasons: string[] = [];
  if (sufficiencyId(s) !== row.id) return { valid: false, reasons: ['the stored plan does not hash to its id'] };
  const coveredBy = new Map<string, Facets[]>();
  for (const u of s.units) {
    const cert = getCertificate(ctx.db, u.certificate);
    if (!cert || cert.certificateId !== u.certificate) {
      reasons.push(`certificate ${u.certificate} is no longer certified`);
      continue;
    }
    if (cert.invalidatedUnixMs !== null) reasons.push(`certificate ${u.certificate} was invalidated: ${cert.invalidatedReason ?? ''}`);
    if (cert.validatorDefinition !== validatorDefinition(cert.predicate)) reasons.push(`certificate ${u.certificate} predates the current validator`);
    if (cert.worldId !== s.worldId) reasons.push(`certificate ${u.certificate} is for another world`);
    if (cert.scope === 'snapshot_exact' && cert.snapshotDigest !== ctx.snapshotDigest())
      reasons.push(`certificate ${u.certificate} is bound to another source snapshot`);
    const deps =
      u.unit === 'artifact'
        ? cert.dependencies
        : loadClaims(ctx.db, cert.certificateId)
            .filter((c) => u.claims.includes(c.claimId))
            .flatMap((c) => c.dependencies);
    if (u.unit === 'claim' && deps.length === 0) reasons.push(`claims of ${u.certificate} are gone`);
    const changed = ctx.freshness.changed(deps);
    if (changed.length > 0) reasons.push(`stale: ${changed.join(', ')} changed since certification`);
    const facets = u.unit === 'claim' && cert.predicate === 'runtime_flow' ? Object.fromEntries(Object.entries(cert.facets).filter(([k]) => k !== 'completeness')) : cert.facets;
    for (const o of u.obligations) coveredBy.set(o, [...(coveredBy.get(o) ?? []), facets]);
    if (cert.predicate === 'implementation_location') {
      const fresh = loadCandidates(ctx.db, cert.predicate, cert.subjectId, cert.worldId, validatorDefinition(cert.predicate)).filter(
        (c) => (c.scope === 'worktree_semantic' || c.snapshotDigest === ctx.snapshotDigest()) && ctx.freshness.isFresh(c.dependencies),
      );
      const contradiction = describeContradiction(fresh);
      if (contradiction) reasons.push(contradiction);
    }
  }
  for (const o of s.obligations.filter((x) => x.required)) {
    if (!(coveredBy.get(o.id) ?? []).some((f) => facetsSatisfy(f, o.facets))) reasons.push(`required ${o.predicate} is not covered`);
  }
  return { valid: reasons.length === 0, reasons: [...new Set(reasons)] };
}
