// One MCP connection (SPEC §4): lifecycle and version negotiation, duplicate
// ids, one active tools/call with a bounded FIFO queue, cancellation and
// progress. Every outgoing message goes through the single `send` function,
// so stdout has exactly one writer.
import { MCP } from '../core/limits.js';
import type { ResolveProgress } from '../core/resolution.js';
import { classify, ErrorCode, errorResponse, notification, resultResponse, idKey, type RequestId } from './jsonrpc.js';
import { NEEDLE_VERSION } from './version.js';

export type ProtocolVersion = (typeof MCP.supportedProtocolVersions)[number];

export interface CallContext {
  readonly protocolVersion: ProtocolVersion;
  /** Aborted when the call is cancelled or the client is gone; created when first read. */
  readonly signal: AbortSignal;
  /** Whether the call was cancelled, without creating its signal. */
  readonly aborted: boolean;
  /** Present only when the client asked for progress with `_meta.progressToken`. */
  readonly progress?: (p: ResolveProgress) => void;
}

export type CallOutcome =
  | { readonly kind: 'result'; readonly result: object; readonly delivered?: () => void }
  | { readonly kind: 'error'; readonly code: number; readonly message: string };

/** What the connection needs from the tool side (implemented by McpSession). */
export interface ToolHost {
  initialized(version: ProtocolVersion): void;
  listTools(version: ProtocolVersion): object[];
  callTool(params: unknown, ctx: CallContext): Promise<CallOutcome>;
  /**
   * Where the host, when it rehearses its answers off any request, has the
   * transport run request lines through a throwaway connection to `host` (a
   * host that admits and records nothing), so that the first real request
   * finds the transport's code warm too.
   */
  onTransportRehearsal?(rehearse: (lines: readonly string[], host: ToolHost) => void): void;
}

export const SERVER_INSTRUCTIONS =
  'Needle serves proof-checked repository evidence. Call need_context first — before grep, find or opening files — ' +
  'whenever you need where a symbol, CLI option, configuration key, test, file, module or behavior is implemented, ' +
  'how its value flows at runtime, or which focused test covers it (routes locate.implementation, trace.state-flow, ' +
  'tests.relevant). If your client defers MCP tools, load it first (Claude Code: ToolSearch ' +
  '"select:mcp__needle__need_context"). Use the returned path:line pointers directly and do not repeat the discovery ' +
  'they cover; open a range only to edit it. A bypass result means continue with your own tools.';

interface Pending {
  readonly id: RequestId;
  readonly key: string;
  readonly method: string;
  readonly params: unknown;
}

/**
 * A call's cancellation, its AbortSignal made only when something reads it:
 * a certified hit never does, and making one costs a few microseconds of the
 * hit's path (an EventTarget), measured ~4 µs warm.
 */
class LazyAbort {
  private controller: AbortController | null = null;
  /** Whether abort() was called (the signal, if made, says the same). */
  aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

export function negotiateVersion(requested: string): ProtocolVersion {
  const supported: readonly string[] = MCP.supportedProtocolVersions;
  return supported.includes(requested) ? (requested as ProtocolVersion) : MCP.latestProtocolVersion;
}

function progressToken(params: unknown): string | number | null {
  if (typeof params !== 'object' || params === null) return null;
  const meta = (params as Record<string, unknown>)._meta;
  if (typeof meta !== 'object' || meta === null) return null;
  const token = (meta as Record<string, unknown>).progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isFinite(token)) ? token : null;
}

export class Connection {
  private version: ProtocolVersion | null = null;
  private readonly seenIds = new Set<string>();
  private readonly queue: Pending[] = [];
  private active: { readonly key: string; readonly abort: LazyAbort } | null = null;
  private ending = false;
  private onIdle: (() => void) | null = null;

  constructor(
    private readonly host: ToolHost,
    private readonly send: (message: object) => void,
    private readonly log: (line: string) => void = () => {},
  ) {}

  receiveLine(text: string): void {
    const msg = classify(text);
    switch (msg.kind) {
      case 'invalid':
        this.send(errorResponse(msg.id, msg.code, msg.message));
        return;
      case 'response':
        this.log('ignored a response message: this server sends no requests');
        return;
      case 'notification':
        this.notify(msg.method, msg.params);
        return;
      case 'request':
        this.admit({ id: msg.id, key: msg.key, method: msg.method, params: msg.params });
    }
  }

  receiveOversize(): void {
    this.send(errorResponse(null, ErrorCode.parse, `request line exceeds ${MCP.maxLineBytes} bytes`));
  }

  receiveInvalidUtf8(): void {
    this.send(errorResponse(null, ErrorCode.parse, 'parse error: line is not valid UTF-8'));
  }

  /**
   * End of input: the client is gone, so everything in flight is cancelled —
   * the active call is aborted (its workers interrupted and their process
   * groups killed), queued tools/call requests are answered as cancelled and
   * other queued requests (cheap) still answered. Resolves once the active
   * call has settled.
   */
  end(): Promise<void> {
    this.ending = true;
    for (const req of this.queue.splice(0)) {
      if (req.method === 'tools/call') this.cancelQueued(req);
      else this.dispatch(req);
    }
    this.active?.abort.abort();
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => (this.onIdle = resolve));
  }

  private cancelQueued(req: Pending): void {
    if (req.method === 'tools/call')
      this.send(resultResponse(req.id, { content: [{ type: 'text', text: 'request cancelled before it started' }], isError: true }));
    else this.send(errorResponse(req.id, ErrorCode.cancelled, 'request cancelled before it started'));
  }

  private admit(req: Pending): void {
    if (this.seenIds.has(req.key)) {
      this.send(errorResponse(req.id, ErrorCode.invalidRequest, 'duplicate request id'));
      return;
    }
    if (this.active) {
      if (this.queue.length >= MCP.maxQueuedLines) {
        this.send(errorResponse(req.id, ErrorCode.queueFull, `request queue is full (${MCP.maxQueuedLines} waiting)`));
        return;
      }
      this.seenIds.add(req.key);
      this.queue.push(req);
      return;
    }
    this.seenIds.add(req.key);
    this.dispatch(req);
  }

  private notify(method: string, params: unknown): void {
    if (method !== 'notifications/cancelled') return;
    const requestId = (params as { requestId?: unknown } | null)?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const key = idKey(requestId);
    if (this.active?.key === key) {
      this.active.abort.abort();
      return;
    }
    const at = this.queue.findIndex((p) => p.key === key);
    if (at === -1) return;
    this.cancelQueued(this.queue.splice(at, 1)[0]!);
  }

  private dispatch(req: Pending): void {
    if (req.method === 'initialize') return this.initialize(req);
    if (!this.version) {
      this.send(errorResponse(req.id, ErrorCode.notInitialized, 'server is not initialized; send initialize first'));
      return;
    }
    switch (req.method) {
      case 'ping':
        this.send(resultResponse(req.id, {}));
        return;
      case 'tools/list':
        this.send(resultResponse(req.id, { tools: this.host.listTools(this.version) }));
        return;
      case 'tools/call':
        this.startCall(req, this.version);
        return;
      default:
        this.send(errorResponse(req.id, ErrorCode.methodNotFound, `method not found: ${req.method.slice(0, 64)}`));
    }
  }

  private initialize(req: Pending): void {
    if (this.version) {
      this.send(errorResponse(req.id, ErrorCode.invalidRequest, 'initialize may be called only once'));
      return;
    }
    const requested = (req.params as { protocolVersion?: unknown } | null | undefined)?.protocolVersion;
    if (typeof req.params !== 'object' || req.params === null || typeof requested !== 'string') {
      this.send(errorResponse(req.id, ErrorCode.invalidParams, 'initialize requires params.protocolVersion (a string)'));
      return;
    }
    const version = negotiateVersion(requested);
    this.version = version;
    this.host.initialized(version);
    this.send(
      resultResponse(req.id, {
        protocolVersion: version,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: 'needle', version: NEEDLE_VERSION },
        instructions: SERVER_INSTRUCTIONS,
      }),
    );
  }

  private startCall(req: Pending, protocolVersion: ProtocolVersion): void {
    const abort = new LazyAbort();
    const call = { key: req.key, abort };
    this.active = call;
    const token = progressToken(req.params);
    let open = true;
    const progress = token !== null ? this.progressSender(token, () => open) : undefined;
    const ctx: CallContext = {
      protocolVersion,
      get signal() {
        return abort.signal;
      },
      get aborted() {
        return abort.aborted;
      },
      ...(progress ? { progress } : {}),
    };
    let outcome: Promise<CallOutcome>;
    try {
      outcome = this.host.callTool(req.params, ctx);
    } catch (e) {
      outcome = Promise.reject(e);
    }
    outcome
      .then(
        (o) => {
          open = false;
          if (o.kind === 'error') this.send(errorResponse(req.id, o.code, o.message));
          else {
            this.send(resultResponse(req.id, o.result));
            o.delivered?.();
          }
        },
        (e: unknown) => {
          open = false;
          this.log(`internal error in tools/call: ${(e as Error)?.stack ?? String(e)}`);
          this.send(errorResponse(req.id, ErrorCode.internal, 'internal error'));
        },
      )
      .finally(() => {
        this.active = null;
        this.drain();
      });
  }

  private progressSender(token: string | number, open: () => boolean): (p: ResolveProgress) => void {
    let lastAt = -Infinity;
    let lastProgress = -Infinity;
    return (p) => {
      const now = Date.now();
      if (!open() || p.progress <= lastProgress || now - lastAt < MCP.progressMinIntervalMs) return;
      lastAt = now;
      lastProgress = p.progress;
      this.send(
        notification('notifications/progress', {
          progressToken: token,
          progress: p.progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          message: p.message.slice(0, 200),
        }),
      );
    };
  }

  private drain(): void {
    while (!this.active && this.queue.length > 0) this.dispatch(this.queue.shift()!);
    if (!this.active && this.ending && this.onIdle) {
      const resolve = this.onIdle;
      this.onIdle = null;
      resolve();
    }
  }
}
