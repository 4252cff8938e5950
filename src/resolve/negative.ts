// Certified negative outcomes (SPEC §16a). When a deterministic worker (the
// static analyzer) has run for some obligations and could not satisfy them —
// nothing found, every proposal rejected, or the subject ambiguous — running
// it again on the same bytes with the same evidence gives the same answer.
// That outcome is certified like evidence and a repeat reuses it with zero
// workers, for exactly as long as nothing that could change it changed:
//
// - every file the worker read (its observation trace) and every file the
//   validators read for its proposals, byte for byte;
// - the source snapshot (HEAD, the index listing, every tracked change and
//   every untracked, non-ignored file with its current bytes): a new or edited
//   file anywhere can add a candidate the worker's search would have found;
// - the worker's own definition (its code) and the validators' revision;
// - the basis: the certified evidence the worker's step left covered for
//   this need, which is what a repeat hands it as input.
import { canonical, type Digest } from '../core/digest.js';
import { EVIDENCE_STORE } from '../core/limits.js';
import type { CompiledNeed, Obligation } from '../core/need.js';
import { stableStringify } from '../core/schema.js';
import { PREDICATES } from '../core/semantic.js';
import { captureSnapshot } from '../repo/snapshot.js';
import type { DependencyRow } from '../store/evidence/certificates.js';
import { loadNegatives, type NegativeOutcomeBody, type NegativeRow, type NegativeVerdict, type NewNegative } from '../store/evidence/negatives.js';
import { validatorDefinition } from '../validate/certificate.js';
import type { CacheContext, CachePlan } from './cache-plan.js';
import { clipUtf8 } from '../core/text.js';

/** The certified evidence a plan serves, as a worker would receive it (artifacts and claims, not certificates). */
export function basisOf(plan: CachePlan): Digest {
  const units = plan.units
    .map((u) => [u.predicate, u.unit, u.certificate.artifactId, u.claims.map((c) => c.claimId).join(',')].join('\0'))
    .sort();
  return canonical('negative-outcome-basis').list(units, (h, u) => h.text(u)).finish();
}

let validators: Digest | null = null;

/** The validators' revision for every predicate: a rejection under other rules is not reused. */
export function validatorsDefinition(): Digest {
  return (validators ??= canonical('negative-outcome-validators')
    .list(PREDICATES, (h, p) => h.digest(validatorDefinition(p)))
    .finish());
}

/**
 * The source snapshot digest of the worktree now (see repo/snapshot.ts), or
 * null when it cannot be taken. The need's lineage spares the history walk.
 */
export function worktreeSnapshot(root: string, need: CompiledNeed): Digest | null {
  try {
    return captureSnapshot(root, need.world.lineage).sourceDigest;
  } catch {
    return null;
  }
}

/**
 * A certified negative outcome of the worker `definition` names that covers
 * every obligation in `missing` and still holds: same basis, every
 * dependency byte-identical, same source snapshot. The snapshot is taken
 * only when some outcome's dependencies hold, so an edit to a file the
 * worker read is noticed without running git.
 */
export function findNegative(
  ctx: CacheContext,
  need: CompiledNeed,
  definition: Digest,
  basis: Digest,
  missing: readonly Obligation[],
): NegativeRow | null {
  if (missing.length === 0) return null;
  const rows = loadNegatives(
    ctx.db,
    { workerDefinition: definition, validatorDefinition: validatorsDefinition(), subjectId: need.subject.id, worldId: need.world.id, basis },
    EVIDENCE_STORE.maxNegativeCandidates,
  );
  let snapshot: Digest | null | undefined;
  for (const n of rows) {
    if (!missing.every((o) => n.obligations.includes(o.id))) continue;
    if (!ctx.freshness.isFresh(n.dependencies)) continue;
    snapshot ??= ctx.worktree?.current() ?? worktreeSnapshot(ctx.freshness.root, need);
    if (snapshot === null) return null;
    if (n.snapshotDigest !== snapshot) continue;
    return n;
  }
  return null;
}

const clip = (s: string): string => clipUtf8(s, EVIDENCE_STORE.maxReasonBytes, '…');

export interface NegativeDraft {
  readonly worker: string;
  readonly definition: Digest;
  readonly need: CompiledNeed;
  readonly basis: Digest;
  readonly unsatisfied: readonly Obligation[];
  readonly verdict: NegativeVerdict;
  readonly outcome: NegativeOutcomeBody;
  readonly snapshotDigest: Digest;
  readonly dependencies: readonly DependencyRow[];
}

export function draftNegative(d: NegativeDraft): NewNegative {
  const obligations = [...new Set(d.unsatisfied.map((o) => o.id))].sort();
  const predicates = PREDICATES.filter((p) => d.unsatisfied.some((o) => o.predicate === p));
  const byPath = new Map<string, Digest>();
  for (const dep of d.dependencies) byPath.set(dep.path, dep.digest);
  const dependencies = [...byPath.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, digest]) => ({ path, digest }));
  const outcome: NegativeOutcomeBody = {
    ambiguous: d.outcome.ambiguous ? d.outcome.ambiguous.slice(0, EVIDENCE_STORE.maxAmbiguousCandidates).map(clip) : null,
    rejections: d.outcome.rejections.slice(0, EVIDENCE_STORE.maxNegativeReasons).map(clip),
    unresolved: d.outcome.unresolved.slice(0, EVIDENCE_STORE.maxNegativeReasons).map(clip),
  };
  const manifest = canonical('negative-outcome-manifest')
    .digest(d.snapshotDigest)
    .list(dependencies, (h, x) => h.text(x.path).digest(x.digest))
    .finish();
  const id = canonical('negative-outcome')
    .text(d.worker)
    .digest(d.definition)
    .digest(validatorsDefinition())
    .digest(d.need.subject.id)
    .digest(d.need.world.id)
    .digest(d.basis)
    .list(obligations, (h, o) => h.digest(o))
    .text(d.verdict)
    .text(stableStringify(outcome))
    .digest(manifest)
    .finish();
  return {
    id,
    worker: d.worker,
    workerDefinition: d.definition,
    validatorDefinition: validatorsDefinition(),
    subject: { id: d.need.subject.id, kind: d.need.subject.kind, name: d.need.subject.name },
    worldId: d.need.world.id,
    basis: d.basis,
    obligations,
    predicates,
    verdict: d.verdict,
    outcome,
    snapshotDigest: d.snapshotDigest,
    manifestDigest: manifest,
    dependencies,
  };
}
