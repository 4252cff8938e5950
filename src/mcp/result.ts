// EngineResult → need_context result (SPEC §4, reference §3). Status follows
// where the answer came from: `hit` from the certified store with no worker,
// `generated` when a worker produced part of it, `bypass` when Needle has no
// answer of its own. An answer is served evidence, or a verdict — `ambiguous`
// or `rejected` decided by the workers, now or from a certified negative
// outcome — whose reason is the answer. Unsafe resolutions never carry context.
import { MCP } from '../core/limits.js';
import type { CompiledNeed } from '../core/need.js';
import type { Relation } from '../core/relation.js';
import { answerStatus, UNSAFE_KINDS, type EngineResult, type Resolution } from '../core/resolution.js';
import { stableStringify } from '../core/schema.js';
import { PREDICATES, type Predicate } from '../core/semantic.js';
import { needContextOutputSchema, type NeedContextOutput } from './tools/need-context.js';
import { clipUtf8 } from '../core/text.js';

const ordered = (list: readonly Predicate[]): Predicate[] => PREDICATES.filter((p) => list.includes(p));

function boundedResolution(r: Resolution): Resolution {
  return 'reason' in r && r.reason !== undefined ? { ...r, reason: clipUtf8(r.reason, MCP.maxReasonBytes) } : r;
}

/** Validated projections by their inputs; only the step differs between repeats. */
const projections = new Map<string, NeedContextOutput>();
const PROJECTION_MEMO_ENTRIES = 256;

export function projectNeedResult(
  need: CompiledNeed,
  step: { ordinal: number; relation: Relation },
  r: EngineResult,
): NeedContextOutput {
  // A remembered engine result (resolve/hit-memo.ts) is the same object each
  // time: its projection is found without building a key.
  const same = byResult.get(r);
  if (same && same.needId === need.id && same.route === need.route) return { ...same.output, step: { ordinal: step.ordinal, relation: step.relation } };
  const output = projectByKey(need, step, r);
  byResult.set(r, { needId: need.id, route: need.route, output });
  return output;
}

/** Projections by engine result object (weak: dropped with the result). */
const byResult = new WeakMap<EngineResult, { readonly needId: string; readonly route: string; readonly output: NeedContextOutput }>();

function projectByKey(need: CompiledNeed, step: { ordinal: number; relation: Relation }, r: EngineResult): NeedContextOutput {
  // resultDigest covers the resolution and the context; the rest is listed.
  const key = stableStringify([need.id, need.route, need.subject, r.resultDigest, r.satisfied, r.missing, r.reuseUnit, r.claimIds, r.cacheHit, r.workerSpawned, r.verdict ?? null, r.resolution]);
  const known = projections.get(key);
  if (known) return { ...known, step: { ordinal: step.ordinal, relation: step.relation } };
  const output = project(need, step, r);
  if (projections.size >= PROJECTION_MEMO_ENTRIES) projections.delete(projections.keys().next().value!);
  projections.set(key, output);
  return output;
}

function project(need: CompiledNeed, step: { ordinal: number; relation: Relation }, r: EngineResult): NeedContextOutput {
  const unsafe = UNSAFE_KINDS.has(r.resolution.kind);
  const satisfied = unsafe ? [] : ordered(r.satisfied);
  const output = {
    status: answerStatus(r),
    route: need.route,
    subject: { kind: need.subject.kind, name: need.subject.name },
    need_id: need.id,
    step: { ordinal: step.ordinal, relation: step.relation },
    satisfied,
    missing: unsafe ? ordered([...r.missing, ...r.satisfied]) : ordered(r.missing),
    resolution: boundedResolution(r.resolution),
    reuse_unit: r.reuseUnit,
    claim_ids: [...r.claimIds],
    cache_hit: r.cacheHit,
    worker_spawned: r.workerSpawned,
    result_digest: r.resultDigest,
    context: unsafe ? '' : clipUtf8(r.context, MCP.maxContextBytes),
  };
  // The published output schema is the final gate: a result that does not
  // conform is a runtime failure, never a malformed answer.
  return needContextOutputSchema.parse(output, 'result');
}

export interface ToolResultMeta {
  readonly interface_digest: string;
  readonly session_digest: string;
  readonly request_digest: string;
  readonly elapsed_ms: number;
}

/** A successful tools/call result; structuredContent only under the modern protocol. */
export function toolResult(text: string, structured: object, modern: boolean, meta: ToolResultMeta): object {
  return {
    content: [{ type: 'text', text }],
    ...(modern ? { structuredContent: structured } : {}),
    isError: false,
    _meta: meta,
  };
}

/** A runtime failure: one line of our own words, no stack, nothing secret. */
export function toolError(message: string): object {
  return { content: [{ type: 'text', text: message.split('\n', 1)[0]!.slice(0, 400) }], isError: true };
}
