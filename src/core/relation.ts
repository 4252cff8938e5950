// Relation of a need to the earlier needs of the same connection (SPEC §12).
// Reported and stored; resolution itself is decided by the proof planner.
import type { CompiledNeed, Obligation } from './need.js';

export const RELATIONS = ['repeat', 'residual', 'extension', 'overlap', 'independent', 'incompatible'] as const;
export type Relation = (typeof RELATIONS)[number];

const RANK: Record<Relation, number> = { repeat: 5, residual: 4, extension: 3, overlap: 2, incompatible: 1, independent: 0 };

export interface PriorNeed {
  readonly need: CompiledNeed;
  /** Obligation ids that step actually satisfied. */
  readonly satisfied: ReadonlySet<string>;
}

function compatible(a: Obligation, b: Obligation): boolean {
  if (a.predicate !== b.predicate || a.subjectId !== b.subjectId) return false;
  return Object.entries(a.facets).every(([k, v]) => b.facets[k] === undefined || b.facets[k] === v);
}

export function classifyAgainst(prior: PriorNeed, current: CompiledNeed): Relation {
  const p = prior.need;
  if (p.id === current.id) return 'repeat';
  if (p.world.id !== current.world.id) return 'incompatible';
  if (p.subject.id !== current.subject.id) return 'independent';
  const pObl = [...p.required, ...p.preferred];
  const cObl = [...current.required, ...current.preferred];
  for (const c of cObl)
    for (const o of pObl)
      if (c.predicate === o.predicate && c.facets.polarity && o.facets.polarity && c.facets.polarity !== o.facets.polarity)
        return 'incompatible';
  const everyCurrentKnown = current.required.every((c) => pObl.some((o) => compatible(c, o)));
  const someUnsatisfied = cObl.some((c) => !pObl.some((o) => compatible(c, o) && prior.satisfied.has(o.id)));
  if (everyCurrentKnown && someUnsatisfied) return 'residual';
  if (p.required.every((o) => cObl.some((c) => compatible(c, o)))) return 'extension';
  if (cObl.some((c) => pObl.some((o) => compatible(c, o)))) return 'overlap';
  return 'independent';
}

/** The strongest relation against every earlier step; an empty ledger is independent. */
export function classifyNeed(priors: readonly PriorNeed[], current: CompiledNeed): Relation {
  let best: Relation = 'independent';
  for (const prior of priors) {
    const r = classifyAgainst(prior, current);
    if (RANK[r] > RANK[best]) best = r;
  }
  return best;
}
