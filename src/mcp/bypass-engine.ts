// The honest bypass: nothing certified is served, nothing is invented. Used
// by cache-only sessions until the resolver is wired in, and for steps past
// the need limit.
import { blake3 } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import type { Engine, EngineResult } from '../core/resolution.js';
import { PREDICATES, type Predicate } from '../core/semantic.js';

/** Every required predicate of the compiled need (route minimums included), in canonical order. */
export function requiredPredicates(need: CompiledNeed): Predicate[] {
  const wanted = new Set(need.required.map((o) => o.predicate));
  return PREDICATES.filter((p) => wanted.has(p));
}

export function bypassResult(need: CompiledNeed, reason: string): EngineResult {
  const context = `Needle bypassed this request: ${reason}.`;
  return {
    resolution: { kind: 'bypass', reason },
    satisfied: [],
    missing: requiredPredicates(need),
    context,
    cacheHit: false,
    workerSpawned: false,
    modelWorkersStarted: 0,
    reuseUnit: 'none',
    claimIds: [],
    resultDigest: blake3(context),
  };
}

export class BypassEngine implements Engine {
  constructor(private readonly reason: string) {}

  async resolve(need: CompiledNeed): Promise<EngineResult> {
    return bypassResult(need, this.reason);
  }
}
