// The per-connection need ledger (SPEC §12): every admitted need takes the
// next ordinal (cancelled and limit-bypassed ones included, so ordinals never
// repeat), is classified against the earlier resolved needs, and draws on the
// connection's need and model-worker budgets.
import type { CompiledNeed } from '../core/need.js';
import { classifyNeed, type PriorNeed, type Relation } from '../core/relation.js';
import type { Predicate } from '../core/semantic.js';

export interface LedgerLimits {
  readonly maxNeeds: number;
  readonly maxWorkers: number;
}

export interface Admission {
  readonly ordinal: number;
  readonly relation: Relation;
  /** False past the need limit: the step is answered with a normal bypass. */
  readonly withinLimit: boolean;
  readonly modelWorkersLeft: number;
}

export const NEED_LIMIT_REASON = 'multi-need limit reached; continue natively';

export class Ledger {
  private ordinals = 0;
  private workersStarted = 0;
  // Only needs within the limit are resolved, so this holds at most maxNeeds entries.
  private readonly priors: PriorNeed[] = [];

  constructor(readonly limits: LedgerLimits) {}

  get nextOrdinal(): number {
    return this.ordinals + 1;
  }

  get modelWorkersLeft(): number {
    return Math.max(0, this.limits.maxWorkers - this.workersStarted);
  }

  /** The relation `need` would have if it were admitted now; admits nothing. */
  relationOf(need: CompiledNeed): Relation {
    return classifyNeed(this.priors, need);
  }

  admit(need: CompiledNeed): Admission {
    this.ordinals += 1;
    return {
      ordinal: this.ordinals,
      relation: this.relationOf(need),
      withinLimit: this.ordinals <= this.limits.maxNeeds,
      modelWorkersLeft: this.modelWorkersLeft,
    };
  }

  /** Records what a resolved step covered, so later steps can be classified against it. */
  record(need: CompiledNeed, satisfied: readonly Predicate[], modelWorkersStarted: number): void {
    const covered = new Set<Predicate>(satisfied);
    const ids = [...need.required, ...need.preferred].filter((o) => covered.has(o.predicate)).map((o) => o.id);
    if (this.priors.length < this.limits.maxNeeds) this.priors.push({ need, satisfied: new Set(ids) });
    this.workersStarted += modelWorkersStarted;
  }
}
