// From a decided outcome to what the engine answers and records (SPEC §10.7,
// §10.9): whether the plan earns a sufficiency certificate, whether the
// answer counts as a cache hit, which earlier worker runs it spared, the key
// of its rendered view, and the result and resolution row themselves. Each
// decision is one pure function; engine.ts only wires them.
import type { Digest } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import type { EngineResult } from '../core/resolution.js';
import { stableStringify } from '../core/schema.js';
import type { NewResolution } from '../store/evidence/accounting.js';
import type { CachePlan } from './cache-plan.js';
import type { LadderOutcome } from './ladder.js';
import type { Outcome } from './outcome.js';
import { buildSufficiency, type Sufficiency } from './sufficiency.js';

/**
 * The sufficiency certificate a plan earns: only when it serves something,
 * covers every required obligation, the need carries no residual intent and
 * the cache does not contradict itself. Null otherwise.
 */
export function sufficiencyFor(need: CompiledNeed, plan: CachePlan): Omit<Sufficiency, 'kind'> | null {
  const requiredDone = (plan.coveredMask & plan.requiredMask) === plan.requiredMask && plan.units.length > 0;
  return requiredDone && !need.residual && !plan.contradiction ? buildSufficiency(need, plan) : null;
}

/** Served from the cache, or a verdict served from certified negative outcomes with no worker: both are hits. */
export function isCacheHit(outcome: Pick<Outcome, 'cacheHit' | 'verdict'>, ladder: LadderOutcome | null): boolean {
  const verdictHit = outcome.verdict && (ladder?.workersRun ?? 0) === 0 && (ladder?.reused.length ?? 0) > 0;
  return outcome.cacheHit || verdictHit;
}

/**
 * The earlier worker runs a zero-worker answer spared (each once): those that
 * produced the cached units served, and those whose negative outcomes stood
 * in for a worker. None when a worker ran.
 */
export function avoidedRuns(outcome: Pick<Outcome, 'cacheHit' | 'served'>, issued: ReadonlySet<string>, ladder: LadderOutcome | null): number[] {
  if ((ladder?.workersRun ?? 0) > 0) return [];
  const fromCache = outcome.cacheHit
    ? outcome.served.filter((u) => !issued.has(u.certificate.certificateId)).flatMap((u) => (u.certificate.workerRunId === null ? [] : [u.certificate.workerRunId]))
    : [];
  const fromNegatives = (ladder?.reused ?? []).flatMap((n) => (n.workerRunId === null ? [] : [n.workerRunId]));
  return [...new Set([...fromCache, ...fromNegatives])];
}

/**
 * The rendered view is a function of these inputs: the served units (their
 * certified bytes, just proved unchanged), the outcome and the budget. A
 * repeat with the same key reuses it and reads no file.
 */
export function viewKey(need: CompiledNeed, outcome: Outcome, tokenBudget: number | null): string {
  return stableStringify([
    need.route,
    need.subject.kind,
    need.subject.name,
    outcome.resolution,
    outcome.satisfied,
    outcome.missing,
    outcome.served.map((u) => [u.unit, u.certificate.certificateId, u.claims.map((c) => c.claimId)]),
    need.residual?.anchors ?? [],
    tokenBudget,
  ]);
}

export interface Rendered {
  readonly context: string;
  readonly resultDigest: Digest;
}

/** What the engine answers. */
export function engineResult(outcome: Outcome, rendered: Rendered, ladder: LadderOutcome | null, cacheHit: boolean): EngineResult {
  const workersRun = ladder?.workersRun ?? 0;
  return {
    resolution: outcome.resolution,
    satisfied: outcome.satisfied,
    missing: outcome.missing,
    context: rendered.context,
    cacheHit,
    workerSpawned: workersRun > 0,
    modelWorkersStarted: ladder?.modelWorkersStarted ?? 0,
    reuseUnit: outcome.reuseUnit,
    claimIds: outcome.claimIds,
    resultDigest: rendered.resultDigest,
    verdict: outcome.verdict,
  };
}

export interface ResolutionFacts {
  /** The repository the need was asked in (the control plane filters by it). */
  readonly repositoryRoot: string;
  readonly context: string;
  readonly ladder: LadderOutcome | null;
  readonly cacheHit: boolean;
  readonly sufficiencyId: Digest | null;
  readonly durationMs: number;
  readonly avoided: readonly number[];
}

/** The resolution row (bookkeeping): a hit is recorded as one only when no worker ran. */
export function resolutionRow(need: CompiledNeed, outcome: Outcome, f: ResolutionFacts): NewResolution {
  const workersRun = f.ladder?.workersRun ?? 0;
  return {
    needId: need.id,
    repositoryRoot: f.repositoryRoot,
    requestDigest: need.requestDigest,
    route: need.route,
    subjectKind: need.subject.kind,
    subjectName: need.subject.name,
    kind: outcome.resolution.kind,
    satisfied: outcome.satisfied,
    missing: outcome.missing,
    cacheHit: f.cacheHit && workersRun === 0,
    workersRun,
    sufficiencyId: f.sufficiencyId,
    contextBytes: Buffer.byteLength(f.context),
    contextText: f.context,
    durationMs: f.durationMs,
    avoidedRuns: f.avoided,
  };
}
