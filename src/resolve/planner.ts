// Bitmask set cover (SPEC §10.4): ≤16 obligations (bit i = obligation i),
// ≤64 candidates, ≤8 chosen. A dynamic program keeps, per reachable covered
// mask, the best selection; ties break deterministically by fewest units,
// smallest projection, then lowest ids.
import { RESOLVER } from '../core/limits.js';

export interface PlanCandidate {
  readonly id: string;
  readonly mask: number;
  readonly projectionBytes: number;
}

export interface CoverPlan {
  readonly mask: number;
  /** Indexes into the candidate list, ascending by id. */
  readonly chosen: readonly number[];
}

interface State {
  readonly count: number;
  readonly bytes: number;
  readonly ids: readonly string[];
  readonly chosen: readonly number[];
}

export function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

function compareIds(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

function better(a: State, b: State): boolean {
  if (a.count !== b.count) return a.count < b.count;
  if (a.bytes !== b.bytes) return a.bytes < b.bytes;
  return compareIds(a.ids, b.ids) < 0;
}

/** The selection covering the most of `universe`, then fewest units, smallest projection, lowest ids. */
export function planCover(universe: number, candidates: readonly PlanCandidate[]): CoverPlan {
  if (candidates.length > RESOLVER.maxCandidates) throw new Error(`planner: ${candidates.length} candidates exceed ${RESOLVER.maxCandidates}`);
  const order = candidates.map((_, i) => i).sort((a, b) => (candidates[a]!.id < candidates[b]!.id ? -1 : 1));
  const best = new Map<number, State>([[0, { count: 0, bytes: 0, ids: [], chosen: [] }]]);
  for (const i of order) {
    const c = candidates[i]!;
    const bits = c.mask & universe;
    if (bits === 0) continue;
    for (const [mask, state] of [...best.entries()]) {
      const next = mask | bits;
      if (next === mask || state.count >= RESOLVER.maxArtifactsPerPlan) continue;
      const ids = [...state.ids, c.id].sort();
      const candidate: State = { count: state.count + 1, bytes: state.bytes + c.projectionBytes, ids, chosen: [...state.chosen, i] };
      const current = best.get(next);
      if (!current || better(candidate, current)) best.set(next, candidate);
    }
  }
  let target = 0;
  for (const [mask, state] of best) {
    const have = best.get(target)!;
    const more = popcount(mask) - popcount(target);
    if (more > 0 || (more === 0 && (better(state, have) || (!better(have, state) && mask < target)))) target = mask;
  }
  const chosen = [...best.get(target)!.chosen].sort((a, b) => (candidates[a]!.id < candidates[b]!.id ? -1 : 1));
  return { mask: target, chosen };
}
