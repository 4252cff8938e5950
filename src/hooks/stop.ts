// The Stop hook: when the main model ends its turn with `@@need … @@end`
// blocks, each is compiled to the same NeedIR as need_context and resolved by
// the same engine, cache and limits; the answer blocks the stop and hands the
// FrontierView back as the reason, so the session continues with it. No
// marker, or a stop the client is already continuing (`stop_hook_active`),
// lets the turn end.
import { compileNeed, NeedCompileError, type CompiledNeed } from '../core/need.js';
import { answerStatus, UNSAFE_KINDS, type Engine, type EngineResult } from '../core/resolution.js';
import { stableStringify } from '../core/schema.js';
import type { Db } from '../store/db.js';
import { beginStep, finishStep, type StepOutcome } from '../store/steps.js';
import { admitHookNeed, ensureHookSession, type HookSession } from './ledger.js';
import { hasMarker, parseMarkers } from './marker.js';
import type { Client, StopPayload } from './payload.js';

export interface StopDeps {
  readonly db: Db;
  readonly engine: Engine;
  readonly session: HookSession;
  readonly client: Client;
  /** Aborts before the client's own hook timeout. */
  readonly signal: AbortSignal;
  readonly log?: (line: string) => void;
}

/** What the hook prints: a block decision, or nothing (the turn ends). */
export type StopAnswer = { readonly decision: 'block'; readonly reason: string } | null;

export const NEED_LIMIT_REASON = 'the need limit of this session is reached; continue with your own tools';

const TEMPLATE = '@@need\n@route locate.implementation\n@subject symbol:parseConfig\n\nWhere is the configuration parsed?\n@@end';

export function correction(problem: string): string {
  return (
    `Needle could not read your @@need block: ${problem}. Nothing was resolved for it. Write one block per need, ` +
    `headers first, a blank line, one line saying what the evidence is for, then @@end, e.g.\n${TEMPLATE}\n` +
    'or continue with your own tools.'
  );
}

/** The text the model receives for one resolved block: the FrontierView, or what to do instead. */
export function answerText(need: CompiledNeed, r: EngineResult): string {
  if (r.context && !UNSAFE_KINDS.has(r.resolution.kind)) return r.context;
  const reason = 'reason' in r.resolution ? r.resolution.reason : 'no evidence';
  return `[NEEDLE_CONTEXT route=${need.route} subject=${need.subject.kind}:${need.subject.name} resolution=${r.resolution.kind}]\n${reason}\n[/NEEDLE_CONTEXT]`;
}

export async function handleStop(payload: StopPayload, deps: StopDeps): Promise<StopAnswer> {
  if (payload.stop_hook_active === true) return null;
  const text = payload.last_assistant_message ?? '';
  if (!hasMarker(text)) return null;
  const parts: string[] = [];
  for (const block of parseMarkers(text)) {
    if (block.kind === 'malformed') {
      parts.push(correction(block.problem));
      continue;
    }
    let need: CompiledNeed;
    try {
      if (!deps.session.routes.includes(block.request.route)) throw new NeedCompileError('route', `route ${block.request.route} is disabled in this data directory`);
      need = compileNeed(block.request, deps.session.lineage);
    } catch (e) {
      if (!(e instanceof NeedCompileError)) throw e;
      parts.push(correction(e.message));
      continue;
    }
    parts.push(await resolveOne(need, block.request, deps));
  }
  return parts.length === 0 ? null : { decision: 'block', reason: parts.join('\n\n') };
}

function outcomeOf(r: EngineResult): StepOutcome {
  return {
    status: answerStatus(r),
    resolutionKind: r.resolution.kind,
    satisfied: UNSAFE_KINDS.has(r.resolution.kind) ? [] : [...r.satisfied],
    missing: [...r.missing],
    resultDigest: r.resultDigest,
    event: r.resolution.kind === 'bypass' ? 'native_fallback' : 'resolved',
  };
}

async function resolveOne(need: CompiledNeed, request: unknown, deps: StopDeps): Promise<string> {
  const { db, session } = deps;
  ensureHookSession(db, session, deps.client);
  const admission = admitHookNeed(db, session, need);
  const stepId = beginStep(db, {
    sessionId: session.id,
    ordinal: admission.ordinal,
    needId: need.id,
    requestDigest: need.requestDigest,
    route: need.route,
    relation: admission.relation,
    requestJson: stableStringify(request),
    needIr: stableStringify(need),
  });
  if (!admission.withinLimit) {
    finishStep(db, stepId, {
      status: 'bypass',
      resolutionKind: 'bypass',
      satisfied: [],
      missing: need.required.map((o) => o.predicate),
      resultDigest: null,
      event: 'native_fallback',
      detail: NEED_LIMIT_REASON,
    });
    return `Needle bypassed @@need ${need.route} ${need.subject.kind}:${need.subject.name}: ${NEED_LIMIT_REASON}.`;
  }
  let committed = false;
  try {
    const result = await deps.engine.resolve(need, {
      cacheOnly: false,
      modelWorkersLeft: admission.modelWorkersLeft,
      signal: deps.signal,
    });
    // The hook is one process per stop: its step is finished right after the resolution.
    finishStep(db, stepId, outcomeOf(result));
    committed = true;
    return answerText(need, result);
  } catch (e) {
    const timedOut = deps.signal.aborted;
    const detail = timedOut ? 'the hook ran out of time' : `resolution failed: ${String((e as Error)?.message ?? e).split('\n', 1)[0]!.slice(0, 200)}`;
    if (!timedOut) deps.log?.(`stop hook: ${(e as Error)?.stack ?? String(e)}`);
    if (!committed)
      finishStep(db, stepId, {
        status: timedOut ? 'cancelled' : 'failed',
        resolutionKind: null,
        satisfied: [],
        missing: [],
        resultDigest: null,
        event: timedOut ? 'cancelled' : 'failed',
        detail,
      });
    return `Needle could not answer @@need ${need.route} ${need.subject.kind}:${need.subject.name} (${detail}); continue with your own tools.`;
  }
}
