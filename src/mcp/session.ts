// The tool side of one MCP connection: validates every tools/call before any
// side effect, runs need_context through the ledger and the engine, persists
// each admitted step with its events, and routes change tools to their
// handlers. Invalid input is -32602; runtime failures are one-line tool errors.
import { ChangeError } from '../changes/model.js';
import { prepareText, verifyText } from '../changes/tools.js';
import { blake3 } from '../core/digest.js';
import { jsonBounds } from './bounds.js';
import { MCP } from '../core/limits.js';
import { compileNeed, NeedCompileError, type CompiledNeed } from '../core/need.js';
import type { Relation } from '../core/relation.js';
import type { Engine, EngineResult } from '../core/resolution.js';
import { SchemaError, stableStringify, type Schema } from '../core/schema.js';
import { deferWrite, holdBookkeeping, onBookkeepingError } from '../store/bookkeeping.js';
import { relaxed, type Db } from '../store/db.js';
import { insertSession, setSessionProtocol } from '../store/sessions.js';
import { addStepEvent, beginStep, finishStep, type StepOutcome } from '../store/steps.js';
import { answerTemplate, type AnswerTemplate } from './answer-template.js';
import { bypassResult } from './bypass-engine.js';
import type { CallContext, CallOutcome, ProtocolVersion, ToolHost } from './connection.js';
import type { FrozenSession } from './freeze.js';
import { ErrorCode, RawJson } from './jsonrpc.js';
import { Ledger, NEED_LIMIT_REASON } from './ledger.js';
import { projectNeedResult, toolError, toolResult } from './result.js';
import { buildCatalog, CHANGE_TOOL_NAMES, TOOL_NAMES, type Catalog, type ToolName } from './tools/catalog.js';
import {
  parsePrepareChange,
  parseVerifyChange,
  prepareChangeResultSchema,
  verifyChangeResultSchema,
  type ChangeTools,
} from './tools/change.js';
import { parseNeedContext, type NeedContextOutput } from './tools/need-context.js';

export const CANCELLED_MESSAGE = 'request cancelled; nothing was delivered for this need';

/** -32602: thrown only before any side effect. */
class InvalidParams extends Error {}

/** How a step ends: the stored outcome, and for a delivered answer its projection. */
type StepEnding =
  | { readonly kind: 'delivered'; readonly outcome: StepOutcome; readonly output: NeedContextOutput }
  | { readonly kind: 'cancelled'; readonly outcome: StepOutcome }
  | { readonly kind: 'failed'; readonly outcome: StepOutcome; readonly error: unknown };

function cancelledEnding(): StepEnding {
  return {
    kind: 'cancelled',
    outcome: { status: 'cancelled', resolutionKind: null, satisfied: [], missing: [], resultDigest: null, event: 'cancelled', detail: CANCELLED_MESSAGE },
  };
}

function failedEnding(error: unknown): StepEnding {
  const detail = `need_context failed: ${firstLine(error)}`;
  return {
    kind: 'failed',
    error,
    outcome: { status: 'failed', resolutionKind: null, satisfied: [], missing: [], resultDigest: null, event: 'failed', detail },
  };
}

/** Compiled needs kept per session, by the exact arguments' JSON. */
const COMPILED_MEMO_ENTRIES = 64;
/** Times the answer path is rehearsed when the engine has re-decided its first hits (see rehearseAnswers). */
const ANSWER_REHEARSALS = 10;

const CALL_KEYS = new Set(['name', 'arguments', '_meta']);

/** Milliseconds since `started` (hrtime), to the microsecond. */
function elapsedMs(started: bigint): number {
  return Number((process.hrtime.bigint() - started) / 1_000n) / 1000;
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n', 1)[0]!.slice(0, 300);
}

export interface SessionDeps {
  readonly frozen: FrozenSession;
  readonly db: Db;
  readonly engine: Engine;
  readonly changeTools?: ChangeTools;
  readonly log?: (line: string) => void;
}

export class McpSession implements ToolHost {
  readonly frozen: FrozenSession;
  readonly ledger: Ledger;
  private readonly catalog: Catalog;
  private readonly db: Db;
  private readonly engine: Engine;
  private readonly changeTools: ChangeTools | undefined;
  private readonly log: (line: string) => void;
  private readonly compiled = new Map<string, CompiledNeed>();
  /** Serialized answers of hits, by the engine result object a repeat is served again (mcp/answer-template.ts). */
  private readonly answers = new WeakMap<EngineResult, { readonly needId: string; readonly requestDigest: string; readonly modern: boolean; readonly template: AnswerTemplate | null }>();
  /** The protocol the client negotiated; set at initialize. */
  private protocol: ProtocolVersion = MCP.latestProtocolVersion;
  /** Set by a transport that rehearses its own path too (mcp/stdio.ts); otherwise the answer path alone is rehearsed. */
  private transportRehearsal: ((lines: readonly string[], host: ToolHost) => void) | null = null;

  /** Records the frozen session row; the connection starts only after this succeeded. */
  constructor(deps: SessionDeps) {
    this.frozen = deps.frozen;
    this.db = deps.db;
    this.engine = deps.engine;
    this.changeTools = deps.frozen.changesEnabled ? deps.changeTools : undefined;
    this.log = deps.log ?? (() => {});
    this.ledger = new Ledger(deps.frozen.limits);
    this.engine.onRehearsed?.(() => this.rehearseAnswers());
    this.catalog = buildCatalog(deps.frozen.routes, this.changeTools !== undefined);
    onBookkeepingError(this.db, (e) => this.log(`bookkeeping rows lost (the answers were delivered): ${firstLine(e)}`));
    const f = deps.frozen;
    // The session row is bookkeeping too, but every later row of this session
    // references it, so it is committed now — without an fsync: what survives
    // a crash is a prefix of the commits (store/bookkeeping.ts), so no row can
    // outlive the session row it references.
    relaxed(this.db, () => insertSession(this.db, {
      id: f.sessionId,
      startedUnixMs: f.startedUnixMs,
      repositoryRoot: f.repositoryRoot,
      lineage: f.lineage,
      dataDir: f.dataDir,
      profileId: f.profileId,
      profileDigest: f.profileDigest,
      routes: f.routes,
      semanticDigest: f.semanticDigest,
      interfaceDigest: f.interfaceDigest,
      mainModel: f.mainModel,
      cacheOnly: f.cacheOnly,
      maxNeeds: f.limits.maxNeeds,
      maxWorkers: f.limits.maxWorkers,
    }));
  }

  initialized(version: ProtocolVersion): void {
    this.protocol = version;
    // Bookkeeping: committed with the session's next group, not before the initialize answer.
    deferWrite(this.db, () => setSessionProtocol(this.db, this.frozen.sessionId, version));
  }

  listTools(version: ProtocolVersion): object[] {
    return this.catalog.list(version);
  }

  async callTool(params: unknown, ctx: CallContext): Promise<CallOutcome> {
    let call: { name: ToolName; args: unknown };
    try {
      call = this.envelope(params);
      if (call.name === 'need_context') {
        const need = this.parseNeed(call.args);
        // The group commit of this call's rows waits until its answer is written.
        const release = holdBookkeeping(this.db);
        let outcome: CallOutcome;
        try {
          outcome = await this.needContext(call.args, need, ctx);
        } catch (e) {
          release();
          throw e;
        }
        if (outcome.kind !== 'result') {
          release();
          return outcome;
        }
        const delivered = outcome.delivered;
        return {
          ...outcome,
          delivered: () => {
            delivered?.();
            release();
          },
        };
      }
      return await this.changeCall(call.name, call.args, ctx);
    } catch (e) {
      if (e instanceof InvalidParams) return { kind: 'error', code: ErrorCode.invalidParams, message: e.message };
      throw e;
    }
  }

  private envelope(params: unknown): { name: ToolName; args: unknown } {
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      throw new InvalidParams('tools/call params must be an object');
    const p = params as Record<string, unknown>;
    for (const key of Object.keys(p))
      if (!CALL_KEYS.has(key)) throw new InvalidParams(`unknown tools/call parameter \`${key.slice(0, 64)}\``);
    if ('_meta' in p && (typeof p._meta !== 'object' || p._meta === null || Array.isArray(p._meta)))
      throw new InvalidParams('tools/call _meta must be an object');
    const name = p.name;
    if (typeof name !== 'string' || !(TOOL_NAMES as readonly string[]).includes(name))
      throw new InvalidParams(`unknown tool ${JSON.stringify(String(name).slice(0, 64))}`);
    const tool = name as ToolName;
    if (CHANGE_TOOL_NAMES.includes(tool) && !this.changeTools) throw new InvalidParams(`${tool} is disabled in this session`);
    if (!('arguments' in p)) throw new InvalidParams(`${tool}: missing arguments`);
    // Without recursion: thousands of levels in a few KB must not overflow the stack.
    const meta = jsonBounds(p._meta ?? null, MCP.maxParamsDepth, MCP.maxArgumentsBytes);
    if (!meta.ok) throw new InvalidParams(`_meta: ${meta.reason === 'depth' ? `nested deeper than ${MCP.maxParamsDepth} levels` : `exceeds ${MCP.maxArgumentsBytes} bytes as compact JSON`}`);
    const bounds = jsonBounds(p.arguments, MCP.maxParamsDepth, MCP.maxArgumentsBytes);
    if (!bounds.ok && bounds.reason === 'depth') throw new InvalidParams(`arguments: nested deeper than ${MCP.maxParamsDepth} levels`);
    if (!bounds.ok) throw new InvalidParams(`arguments: exceed ${MCP.maxArgumentsBytes} bytes as compact JSON`);
    return { name: tool, args: p.arguments };
  }

  private parseNeed(args: unknown): CompiledNeed {
    // Compiling is a pure function of the arguments (the session's lineage and
    // routes are frozen): a repeated request reuses its compiled need.
    const text = JSON.stringify(args);
    const known = this.compiled.get(text);
    if (known) return known;
    const need = this.compileArguments(args);
    if (this.compiled.size >= COMPILED_MEMO_ENTRIES) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(text, need);
    return need;
  }

  private compileArguments(args: unknown): CompiledNeed {
    try {
      return compileNeed(parseNeedContext(this.catalog.needContextInput, args), this.frozen.lineage);
    } catch (e) {
      if (e instanceof SchemaError || e instanceof NeedCompileError)
        throw new InvalidParams(`invalid need_context arguments: ${e.message}`);
      throw e;
    }
  }

  /**
   * Runs the answer path of every need this session was asked against the
   * engine's remembered answers, recording nothing and admitting nothing.
   * Called off any request, when the engine has re-decided its first hits: the
   * projection of a re-decided answer is then memoized (mcp/result.ts) and the
   * repeat path compiled by V8, so the session's first repeat pays for neither.
   * It runs ANSWER_REHEARSALS times: in a fresh server the hit path's hottest
   * functions (Node's argument validators around each freshness stat) reach
   * V8's optimizing tier at about the fifth repeat and compile on a
   * background thread (~0.7 ms, seen with --trace-opt) while that repeat
   * runs; measured on 1 000 files, that repeat took 0.9–1.3 ms p50 against
   * 0.4 for its neighbours, and with the rehearsals 0.4. Under a transport
   * that rehearses too (mcp/stdio.ts), each round is whole request lines
   * through a throwaway connection to dryHost, so the framing, lifecycle,
   * validation and serialization are warm as well.
   */
  private rehearseAnswers(): void {
    for (let round = 0; round < ANSWER_REHEARSALS; round++) {
      if (this.transportRehearsal) this.transportRehearsal(this.rehearsalLines(), this.dryHost);
      else
        for (const need of this.compiled.values()) {
          // Serialized as the transport would (it does so itself when it rehearses).
          const answer = this.rehearsedAnswer(need);
          if (answer && !(answer instanceof RawJson)) JSON.stringify(answer);
        }
    }
  }

  /** The tools/call result of `need` from what the engine remembers, admitting and recording nothing; null when it remembers nothing. */
  private rehearsedAnswer(need: CompiledNeed): object | null {
    const result = this.engine.remembered?.(need, { cacheOnly: this.frozen.cacheOnly, modelWorkersLeft: this.ledger.modelWorkersLeft });
    if (!result) return null;
    const step = { ordinal: this.ledger.nextOrdinal, relation: this.ledger.relationOf(need) };
    const output = projectNeedResult(need, step, result);
    return this.answerOf(need, result, output, this.protocol === MCP.latestProtocolVersion, step, 0);
  }

  /**
   * The host a transport rehearsal talks to: the session's own validation and
   * answer path, with rehearsedAnswer in place of the ledger, the engine's
   * resolution and the bookkeeping — nothing is admitted or recorded.
   */
  private readonly dryHost: ToolHost = {
    initialized: () => {},
    listTools: () => [],
    callTool: (params) => {
      const call = this.envelope(params);
      const answer = call.name === 'need_context' ? this.rehearsedAnswer(this.parseNeed(call.args)) : null;
      return Promise.resolve(answer ? { kind: 'result', result: answer } : { kind: 'error', code: ErrorCode.internal, message: 'nothing remembered' });
    },
  };

  /** The request lines of every need this session was asked, after an initialize (their arguments as the client sent them). */
  private rehearsalLines(): string[] {
    const lines = [JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: this.protocol } })];
    let id = 1;
    for (const args of this.compiled.keys())
      lines.push(`{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":{"name":"need_context","arguments":${args}}}`);
    return lines;
  }

  onTransportRehearsal(rehearse: (lines: readonly string[], host: ToolHost) => void): void {
    this.transportRehearsal = rehearse;
  }

  private async needContext(args: unknown, need: CompiledNeed, ctx: CallContext): Promise<CallOutcome> {
    const started = process.hrtime.bigint();
    const admission = this.ledger.admit(need);
    const step = { ordinal: admission.ordinal, relation: admission.relation };
    // Ledger rows are bookkeeping: queued now, committed in the group commit
    // that follows the reply (store/bookkeeping.ts). A resolution that waits
    // for a worker yields first, so its unfinished step is committed while it
    // runs and a crash still leaves it visible.
    const row = { id: 0 };
    const db = this.db;
    deferWrite(db, () => {
      row.id = beginStep(db, {
        sessionId: this.frozen.sessionId,
        ordinal: step.ordinal,
        needId: need.id,
        requestDigest: need.requestDigest,
        route: need.route,
        relation: step.relation,
        requestJson: stableStringify(args),
        needIr: stableStringify(need),
      });
    });

    let result: EngineResult;
    try {
      result = admission.withinLimit
        ? await this.engine.resolve(need, {
            cacheOnly: this.frozen.cacheOnly,
            modelWorkersLeft: admission.modelWorkersLeft,
            // Read only by a resolution that runs a worker: a hit never makes the signal.
            get signal() {
              return ctx.signal;
            },
            ...(ctx.progress ? { onProgress: ctx.progress } : {}),
          })
        : bypassResult(need, NEED_LIMIT_REASON);
    } catch (e) {
      return this.failStep(row, ctx.aborted ? null : e);
    }
    // A cancel that arrived while the engine was finishing (or right behind a
    // request answered without yielding) still wins: the client stopped waiting.
    if (ctx.aborted) return this.failStep(row, null);
    const ending = this.project(need, step, result);
    this.finishLater(row, ending.outcome);
    if (ending.kind !== 'delivered') {
      if (ending.kind === 'failed') this.log(`need_context failed: ${(ending.error as Error)?.stack ?? String(ending.error)}`);
      return { kind: 'result', result: toolError(ending.outcome.detail!) };
    }
    if (admission.withinLimit) this.ledger.record(need, ending.output.satisfied, result.modelWorkersStarted);
    const modern = ctx.protocolVersion === MCP.latestProtocolVersion;
    return {
      kind: 'result',
      result: this.answerOf(need, result, ending.output, modern, step, elapsedMs(started)),
      delivered: () => this.recordDelivered(row),
    };
  }

  /**
   * The tools/call result of a delivered answer. A hit's is rendered from the
   * template kept for its engine result (made the first time, reused by every
   * repeat served the same result); anything else is built whole.
   */
  private answerOf(
    need: CompiledNeed,
    result: EngineResult,
    output: NeedContextOutput,
    modern: boolean,
    step: { ordinal: number; relation: Relation },
    elapsed: number,
  ): object {
    const build = (s: unknown, ms: unknown): object =>
      toolResult(output.context, { ...output, step: s }, modern, this.meta(need.requestDigest, ms as number));
    if (!result.cacheHit || result.workerSpawned) return build(output.step, elapsed);
    let known = this.answers.get(result);
    if (!known || known.needId !== need.id || known.requestDigest !== need.requestDigest || known.modern !== modern) {
      known = { needId: need.id, requestDigest: need.requestDigest, modern, template: answerTemplate(build) };
      this.answers.set(result, known);
    }
    return known.template ? known.template.render(step, elapsed) : build(output.step, elapsed);
  }

  private finishLater(row: { id: number }, outcome: StepOutcome): void {
    deferWrite(this.db, () => {
      if (row.id !== 0) finishStep(this.db, row.id, outcome);
    });
  }

  private project(need: CompiledNeed, step: { ordinal: number; relation: Relation }, result: EngineResult): StepEnding {
    let output: NeedContextOutput;
    try {
      output = projectNeedResult(need, step, result);
    } catch (e) {
      return failedEnding(e);
    }
    return {
      kind: 'delivered',
      output,
      outcome: {
        status: output.status,
        resolutionKind: output.resolution.kind,
        satisfied: output.satisfied,
        missing: output.missing,
        resultDigest: output.result_digest,
        event: output.resolution.kind === 'bypass' ? 'native_fallback' : 'resolved',
      },
    };
  }

  /** Stores a cancelled (error null) or failed step and answers with a one-line tool error. */
  private failStep(row: { id: number }, error: unknown): CallOutcome {
    const end = error === null ? cancelledEnding() : failedEnding(error);
    if (end.kind === 'failed') this.log(`need_context failed: ${(error as Error)?.stack ?? String(error)}`);
    this.finishLater(row, end.outcome);
    return { kind: 'result', result: toolError(end.outcome.detail!) };
  }

  private recordDelivered(row: { id: number }): void {
    deferWrite(this.db, () => {
      if (row.id !== 0) addStepEvent(this.db, row.id, 'delivered');
    });
  }

  private meta(requestDigest: string, elapsedMs: number) {
    return {
      interface_digest: this.frozen.interfaceDigest,
      session_digest: this.frozen.sessionDigest,
      request_digest: requestDigest,
      elapsed_ms: elapsedMs,
    };
  }

  private async changeCall(name: ToolName, args: unknown, ctx: CallContext): Promise<CallOutcome> {
    const tools = this.changeTools!;
    const started = process.hrtime.bigint();
    const toolCtx = { signal: ctx.signal };
    let run: () => Promise<{ structured: object; text: string }>;
    let schema: Schema<object>;
    try {
      if (name === 'prepare_change') {
        const parsed = parsePrepareChange(args);
        run = async () => {
          const r = await tools.prepare(parsed, toolCtx);
          return { structured: r, text: prepareText(r) };
        };
        schema = prepareChangeResultSchema;
      } else {
        const parsed = parseVerifyChange(args);
        run = async () => {
          const r = await tools.verify(parsed, toolCtx);
          return { structured: r, text: verifyText(r) };
        };
        schema = verifyChangeResultSchema;
      }
    } catch (e) {
      if (e instanceof SchemaError) throw new InvalidParams(`invalid ${name} arguments: ${e.message}`);
      throw e;
    }
    try {
      const answer = await run();
      if (ctx.aborted) return { kind: 'result', result: toolError(`${name} cancelled`) };
      const structured = schema.parse(answer.structured, 'result');
      const modern = ctx.protocolVersion === MCP.latestProtocolVersion;
      return {
        kind: 'result',
        result: toolResult(answer.text, structured, modern, this.meta(blake3(stableStringify(args)), elapsedMs(started))),
      };
    } catch (e) {
      if (e instanceof ChangeError && e.rule === 'invalid_request')
        return { kind: 'error', code: ErrorCode.invalidParams, message: `invalid ${name} arguments: ${e.message}` };
      if (ctx.aborted) return { kind: 'result', result: toolError(`${name} cancelled`) };
      this.log(`${name} failed: ${(e as Error)?.stack ?? String(e)}`);
      return { kind: 'result', result: toolError(`${name} failed: ${firstLine(e)}`) };
    }
  }
}
