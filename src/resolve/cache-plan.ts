// The cache side of resolution (SPEC §10.2–§10.6): certified candidates for
// each obligation, stale ones dropped and counted, contradictions detected,
// artifacts planned by bitmask set cover, and fresh claims for what artifacts
// leave uncovered. Pure decision over the store and the current bytes.
import type { Digest } from '../core/digest.js';
import { RESOLVER } from '../core/limits.js';
import type { CompiledNeed, Obligation } from '../core/need.js';
import { facetsSatisfy, type Facets, type Predicate } from '../core/semantic.js';
import type { WorktreeState } from '../repo/worktree-watch.js';
import type { Db } from '../store/db.js';
import { loadCandidates, loadClaims, type CertificateRow, type ClaimRow } from '../store/evidence/certificates.js';
import { validatorDefinition } from '../validate/certificate.js';
import type { FreshnessChecker } from './freshness.js';
import { artifactPayload, claimPayloads, claimUnitPayload, type ServedPayload } from './payloads.js';
import { planCover, type PlanCandidate } from './planner.js';

export type AuthorityMode = 'authoritative' | 'advisory' | 'shadow';

export interface ServedUnit {
  readonly unit: 'artifact' | 'claim';
  readonly predicate: Predicate;
  readonly certificate: CertificateRow;
  /** Bits of the obligations this unit satisfies. */
  readonly mask: number;
  /** For claim units: the claims served, in order. */
  readonly claims: readonly ClaimRow[];
  /** What the unit shows, parsed from the stored rows. */
  readonly payload: ServedPayload;
}

export interface CachePlan {
  /** Required obligations first (bits 0..r-1), then preferred. */
  readonly obligations: readonly Obligation[];
  readonly requiredMask: number;
  readonly coveredMask: number;
  readonly units: readonly ServedUnit[];
  readonly staleArtifactIds: readonly Digest[];
  /** Predicates with certified evidence that is no longer servable (its files changed). */
  readonly stalePredicates: readonly Predicate[];
  /** Predicates whose cached evidence the profile does not let us serve. */
  readonly withheld: readonly Predicate[];
  readonly contradiction: string | null;
}

export interface CacheContext {
  readonly db: Db;
  readonly freshness: FreshnessChecker;
  /** Current source snapshot digest (computed at most once per resolution). */
  readonly snapshotDigest: () => Digest;
  /** A watched worktree: the current snapshot digest without running git, when known. */
  readonly worktree?: WorktreeState;
  readonly authority: (p: Predicate) => AuthorityMode;
  /** Certificates issued during this resolution: served even under advisory authority. */
  readonly issuedNow: ReadonlySet<string>;
}

function snapshotHolds(ctx: CacheContext, c: { scope: string; snapshotDigest: Digest | null }): boolean {
  return c.scope === 'worktree_semantic' || c.snapshotDigest === ctx.snapshotDigest();
}

function maskOf(obligations: readonly Obligation[], predicate: Predicate, facets: Facets): number {
  let mask = 0;
  obligations.forEach((o, i) => {
    if (o.predicate === predicate && facetsSatisfy(facets, o.facets)) mask |= 1 << i;
  });
  return mask;
}

export function describeContradiction(fresh: readonly CertificateRow[]): string | null {
  const byPrimary = new Map<string, CertificateRow>();
  for (const c of fresh) if (c.predicate === 'implementation_location' && c.primaryKey) byPrimary.set(c.primaryKey, byPrimary.get(c.primaryKey) ?? c);
  if (byPrimary.size < 2) return null;
  const list = [...byPrimary.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([primary, c]) => `${c.artifactId} at ${primary}`)
    .join('; ');
  return `certified artifacts disagree on the primary location: ${list}. Invalidate the wrong one (needle cache invalidate ID) or ask with a qualified name`;
}

/** Claims of `cert` that still rest on unchanged bytes, as one unit, or null. */
function claimUnit(ctx: CacheContext, cert: CertificateRow, obligations: readonly Obligation[]): ServedUnit | null {
  if (!snapshotHolds(ctx, cert)) return null;
  const claims = loadClaims(ctx.db, cert.certificateId);
  // A claim row of an older or damaged shape makes the whole unit unusable.
  const parsed = claimPayloads(claims);
  if (!parsed) return null;
  const fresh = (c: ClaimRow) => ctx.freshness.isFresh(c.dependencies);
  const unit = (served: readonly ClaimRow[], payloads: typeof parsed, facets: Facets): ServedUnit | null => {
    const payload = claimUnitPayload(cert.predicate, payloads);
    return payload && { unit: 'claim', predicate: cert.predicate, certificate: cert, mask: maskOf(obligations, cert.predicate, facets), claims: served, payload };
  };
  if (cert.predicate === 'implementation_location') {
    const primary = claims.flatMap((c, i) => (parsed[i]!.kind === 'location' && (parsed[i] as { location: { role: string } }).location.role === 'primary' ? [i] : []));
    if (primary.length === 0 || !primary.every((i) => fresh(claims[i]!))) return null;
    return unit(primary.map((i) => claims[i]!), primary.map((i) => parsed[i]!), cert.facets);
  }
  if (cert.predicate === 'focused_tests') {
    if (claims.length !== 1 || !fresh(claims[0]!)) return null;
    return unit(claims, parsed, cert.facets);
  }
  // A flow's steps stand together: the chain must be whole and every step fresh.
  // Completeness rested on everything the worker observed, which claims do not
  // carry, so a chain served from claims never claims contract_complete.
  const chained = claims.every((c, i) => c.previousId === (i === 0 ? null : claims[i - 1]!.claimId));
  if (claims.length === 0 || !chained || !claims.every(fresh)) return null;
  const facets = Object.fromEntries(Object.entries(cert.facets).filter(([k]) => k !== 'completeness'));
  return unit(claims, parsed, facets);
}

export function planFromCache(ctx: CacheContext, need: CompiledNeed): CachePlan {
  const obligations = [...need.required, ...need.preferred];
  const requiredMask = (1 << need.required.length) - 1;
  const universe = (1 << obligations.length) - 1;
  const predicates = [...new Set(obligations.map((o) => o.predicate))];
  const fresh: CertificateRow[] = [];
  const stale: CertificateRow[] = [];
  const payloads = new Map<string, ServedPayload>();
  const withheld: Predicate[] = [];
  // The 64-candidate bound is shared fairly between the predicates asked for.
  const perPredicate = Math.floor(RESOLVER.maxCandidates / Math.max(1, predicates.length));
  for (const p of predicates) {
    const servable = ctx.authority(p) === 'authoritative';
    for (const c of loadCandidates(ctx.db, p, need.subject.id, need.world.id, validatorDefinition(p), perPredicate)) {
      if (!servable && !ctx.issuedNow.has(c.certificateId)) {
        if (!withheld.includes(p)) withheld.push(p);
        continue;
      }
      // A payload that does not parse as its contract is unusable: stale, never served.
      const payload = artifactPayload(c);
      if (payload && snapshotHolds(ctx, c) && ctx.freshness.isFresh(c.dependencies)) {
        fresh.push(c);
        payloads.set(c.certificateId, payload);
      } else stale.push(c);
    }
  }
  const staleArtifactIds = [...new Set(stale.map((c) => c.artifactId))].sort();
  const stalePredicates = [...new Set(stale.map((c) => c.predicate))];
  const contradiction = describeContradiction(fresh);
  const empty = { obligations, requiredMask, withheld, staleArtifactIds, stalePredicates };
  if (contradiction) return { ...empty, coveredMask: 0, units: [], contradiction };

  const artifactCandidates: PlanCandidate[] = fresh.map((c) => ({
    id: c.certificateId,
    mask: maskOf(obligations, c.predicate, c.facets),
    projectionBytes: c.projectionBytes,
  }));
  const artifactPlan = planCover(universe, artifactCandidates);
  const units: ServedUnit[] = artifactPlan.chosen.map((i) => ({
    unit: 'artifact',
    predicate: fresh[i]!.predicate,
    certificate: fresh[i]!,
    mask: artifactCandidates[i]!.mask,
    claims: [],
    payload: payloads.get(fresh[i]!.certificateId)!,
  }));
  let covered = artifactPlan.mask;
  const rest = universe & ~covered;
  if (rest !== 0) {
    // Claims of stale artifacts too: only their own files need to be unchanged.
    const claimUnits = [...fresh, ...stale]
      .filter((c) => obligations.some((o, i) => ((rest >> i) & 1) === 1 && o.predicate === c.predicate))
      .map((c) => claimUnit(ctx, c, obligations))
      .filter((u): u is ServedUnit => u !== null && (u.mask & rest) !== 0)
      .slice(0, RESOLVER.maxCandidates);
    const claimPlan = planCover(
      rest,
      claimUnits.map((u) => ({ id: u.certificate.certificateId, mask: u.mask, projectionBytes: u.certificate.projectionBytes })),
    );
    for (const i of claimPlan.chosen) units.push({ ...claimUnits[i]!, mask: claimUnits[i]!.mask & rest });
    covered |= claimPlan.mask;
  }
  return { ...empty, coveredMask: covered, units, contradiction: null };
}
