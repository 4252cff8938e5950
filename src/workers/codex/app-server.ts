// One `codex app-server` process and the turns run on it: spawn in its own
// process group, initialize, thread/start, turn/start, consume the turn's
// events, broker approvals, interrupt, shut down. Policy (what to ask, how to
// judge the answer) lives in worker.ts.
import { WORKER } from '../../core/limits.js';
import { spawnGroup, type GroupSpec, type ProcessGroup } from '../group.js';
import { decideCommandApproval, type ApprovalPolicy, type ApprovalVerdict } from './approvals.js';
import { RpcError, RpcPeer, type Notification, type ServerRequest } from './rpc.js';
import { UsageMeter } from './usage.js';
import { clipUtf8 } from '../../core/text.js';

export type TurnStatus = 'completed' | 'failed' | 'interrupted' | 'timeout' | 'cancelled' | 'crashed';

export interface TurnResult {
  readonly status: TurnStatus;
  readonly turnId: string | null;
  /** The agent's final message (last completed agentMessage item, else the streamed deltas). */
  readonly finalText: string | null;
  /** One line: the turn error, the last error notification, or why the process broke. */
  readonly error: string | null;
  readonly approvals: readonly { command: string; verdict: ApprovalVerdict }[];
}

export interface TurnRequest {
  readonly threadId: string;
  readonly text: string;
  readonly cwd: string;
  readonly outputSchema: unknown;
  readonly deadline: number;
  readonly signal: AbortSignal;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const oneLine = (s: string): string => clipUtf8(s.replace(/\s+/g, ' ').trim(), WORKER.maxDiagnosticBytes);

class TurnState {
  turnId: string | null = null;
  finalText: string | null = null;
  deltas = '';
  lastError: string | null = null;
  approvals: { command: string; verdict: ApprovalVerdict }[] = [];
  settle!: (r: { status: TurnStatus; error: string | null }) => void;
  readonly done = new Promise<{ status: TurnStatus; error: string | null }>((r) => (this.settle = r));
}

export class AppServer {
  readonly usage = new UsageMeter();
  private readonly rpc: RpcPeer;
  private turn: TurnState | null = null;
  private stderrTail = '';
  private crash: string | null = null;

  private constructor(
    private readonly group: ProcessGroup,
    private readonly policy: ApprovalPolicy,
    private readonly onProgress: (message: string) => void,
  ) {
    group.child.stderr!.on('data', (c: Buffer) => {
      this.stderrTail = (this.stderrTail + c.toString('utf8')).slice(-WORKER.maxDiagnosticBytes);
    });
    this.rpc = new RpcPeer(group.child.stdin!, group.child.stdout!, {
      onNotification: (n) => this.onNotification(n),
      onRequest: (r) => this.onRequest(r),
      onFatal: (e) => this.broken(e.message),
    }, WORKER.maxRpcLineBytes);
    void group.exited.then(({ code, signal }) => this.broken(`app server exited (${signal ?? `code ${code}`})`));
  }

  static spawn(spec: GroupSpec, policy: ApprovalPolicy, onProgress: (message: string) => void): AppServer {
    return new AppServer(spawnGroup(spec), policy, onProgress);
  }

  get pid(): number {
    return this.group.pid;
  }

  /** Why the process is unusable, with the tail of its stderr (where --strict-config reports). */
  diagnostic(): string {
    const tail = this.stderrTail.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
    return oneLine([this.crash, tail && `stderr: ${tail}`].filter(Boolean).join('; '));
  }

  async initialize(clientVersion: string): Promise<void> {
    await this.call('initialize', {
      clientInfo: { name: 'needle', title: 'Needle', version: clientVersion },
      capabilities: { experimentalApi: true },
    }, WORKER.initializeTimeoutMs);
    this.rpc.notify('initialized');
  }

  async startThread(params: Record<string, unknown>): Promise<string> {
    const res = await this.call('thread/start', params, WORKER.threadStartTimeoutMs);
    const id = isRecord(res) && isRecord(res.thread) ? res.thread.id : undefined;
    if (typeof id !== 'string') throw new RpcError('thread/start answered without thread.id');
    return id;
  }

  private async call(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    try {
      return await this.rpc.request(method, params, timeoutMs);
    } catch (e) {
      throw new RpcError(`${(e as Error).message}${this.crash ? ` — ${this.diagnostic()}` : ''}`, (e as RpcError).code ?? null);
    }
  }

  async runTurn(req: TurnRequest): Promise<TurnResult> {
    const state = new TurnState();
    this.turn = state;
    if (this.crash) state.settle({ status: 'crashed', error: this.diagnostic() });
    const timer = setTimeout(() => state.settle({ status: 'timeout', error: 'turn deadline passed' }), Math.max(0, req.deadline - Date.now()));
    const onAbort = () => state.settle({ status: 'cancelled', error: 'cancelled' });
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener('abort', onAbort, { once: true });

    const started = this.call('turn/start', {
      threadId: req.threadId,
      input: [{ type: 'text', text: req.text }],
      cwd: req.cwd,
      approvalPolicy: 'on-request',
      approvalsReviewer: 'user',
      outputSchema: req.outputSchema,
    }, Math.min(WORKER.turnStartTimeoutMs, Math.max(1, req.deadline - Date.now()))).then(
      (res) => {
        const id = isRecord(res) && isRecord(res.turn) ? res.turn.id : undefined;
        if (typeof id === 'string') state.turnId ??= id;
        else state.settle({ status: 'crashed', error: 'turn/start answered without turn.id' });
      },
      (e: Error) => state.settle({ status: this.crash ? 'crashed' : 'failed', error: oneLine(`turn/start failed: ${e.message}`) }),
    );
    this.onProgress('model turn started');
    const end = await state.done;
    clearTimeout(timer);
    req.signal.removeEventListener('abort', onAbort);
    if ((end.status === 'timeout' || end.status === 'cancelled') && !this.crash) {
      // A cancel can come before turn/start's answer was read (it is in the
      // pipe): wait for it a moment, so that the turn it started is still
      // interrupted rather than only killed.
      if (!state.turnId) await withinGrace(started);
      if (state.turnId) await this.interrupt(req.threadId, state.turnId);
    }
    this.turn = null;
    const finalText = state.finalText ?? (state.deltas || null);
    return { status: end.status, turnId: state.turnId, finalText, error: end.error ?? state.lastError, approvals: state.approvals };
  }

  /** turn/interrupt, then a short wait for its acknowledgement; the caller kills the group either way. */
  private async interrupt(threadId: string, turnId: string): Promise<void> {
    await withinGrace(this.rpc.request('turn/interrupt', { threadId, turnId }, WORKER.interruptGraceMs).catch(() => undefined));
  }

  private onNotification(n: Notification): void {
    const p = n.params;
    if (n.method === 'thread/tokenUsage/updated') {
      if (typeof p.threadId === 'string' && isRecord(p.tokenUsage)) this.usage.update(p.threadId, p.tokenUsage.total);
      return;
    }
    const turn = this.turn;
    if (!turn) return;
    if (typeof p.turnId === 'string' && turn.turnId && p.turnId !== turn.turnId) return;
    switch (n.method) {
      case 'item/agentMessage/delta':
        if (typeof p.delta === 'string' && turn.deltas.length < WORKER.maxFinalMessageBytes) turn.deltas += p.delta;
        return;
      case 'item/started':
        if (isRecord(p.item) && p.item.type === 'commandExecution') this.onProgress('model is inspecting the checkout');
        return;
      case 'item/completed': {
        const item = isRecord(p.item) ? p.item : {};
        if (item.type === 'agentMessage' && typeof item.text === 'string') turn.finalText = clipUtf8(item.text, WORKER.maxFinalMessageBytes);
        return;
      }
      case 'error': {
        const err = isRecord(p.error) ? p.error.message : undefined;
        if (typeof err === 'string') turn.lastError = oneLine(err);
        return;
      }
      case 'turn/completed': {
        const t = isRecord(p.turn) ? p.turn : {};
        if (typeof t.id === 'string' && turn.turnId && t.id !== turn.turnId) return;
        const status = t.status === 'completed' ? 'completed' : t.status === 'interrupted' ? 'interrupted' : 'failed';
        const msg = isRecord(t.error) && typeof t.error.message === 'string' ? oneLine(t.error.message) : null;
        this.onProgress(`model turn ${status}`);
        turn.settle({ status, error: status === 'completed' ? null : (msg ?? turn.lastError ?? `turn ended with status ${String(t.status)}`) });
        return;
      }
    }
  }

  private async onRequest(r: ServerRequest): Promise<unknown> {
    switch (r.method) {
      case 'item/commandExecution/requestApproval': {
        const verdict = decideCommandApproval(this.policy, r.params);
        const command = oneLine(Array.isArray(r.params.command) ? r.params.command.join(' ') : String(r.params.command ?? '')).slice(0, 200);
        this.turn?.approvals.push({ command, verdict });
        this.onProgress(`${verdict.decision === 'accept' ? 'accepted' : 'declined'} command: ${command}`);
        return { decision: verdict.decision };
      }
      case 'item/fileChange/requestApproval': {
        // Edits inside the checkout need no approval, so a request is always for more than that.
        const root = typeof r.params.grantRoot === 'string' ? ` under ${oneLine(r.params.grantRoot).slice(0, 160)}` : '';
        this.turn?.approvals.push({ command: `file change${root}`, verdict: { decision: 'decline', reason: 'file changes beyond the checkout are never granted' } });
        this.onProgress('declined a file change');
        return { decision: 'decline' };
      }
      case 'execCommandApproval':
      case 'applyPatchApproval':
        return { decision: 'denied' };
      default:
        throw new Error(`needle does not grant ${r.method}`);
    }
  }

  private broken(why: string): void {
    if (this.crash) return;
    this.crash = why;
    this.turn?.settle({ status: 'crashed', error: this.diagnostic() });
  }

  /** Closes stdin (the server exits 0), then makes sure nothing of the group is left. */
  async close(): Promise<void> {
    this.group.child.stdin!.end();
    const timer = setTimeout(() => void this.group.terminate(), WORKER.killGraceMs);
    await this.group.exited;
    clearTimeout(timer);
    this.group.reap();
  }

  /** Process-group kill (timeout, cancellation, broken protocol). */
  async kill(): Promise<void> {
    await this.group.terminate();
  }
}

/** Waits for `p` at most WORKER.interruptGraceMs (a cancelled turn is killed either way). */
async function withinGrace(p: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, WORKER.interruptGraceMs)))]);
  clearTimeout(timer);
}
