// A newline-delimited JSON-RPC channel to a child process, timing each
// request from the moment its line is written to the moment the complete
// reply line with the same id has been read.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

const REPLY_TIMEOUT_MS = 120_000;

export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: number | string;
  readonly method: string;
  readonly params?: object;
}

/** Any line with an id, sent to a process that echoes it (the floor). */
export interface EchoLine {
  readonly id: number | string;
  readonly [key: string]: unknown;
}

export interface TimedReply {
  readonly reply: Record<string, unknown>;
  readonly ms: number;
}

interface Pending {
  readonly id: string;
  readonly started: number;
  readonly resolve: (r: TimedReply) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export class LineChannel {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private pending: Pending | null = null;
  private stderrTail = '';
  private stderrWaiters: (() => void)[] = [];
  private exited = false;
  /** When the process was spawned (performance.now()). */
  readonly spawnedAt = performance.now();

  constructor(argv: readonly string[]) {
    this.child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2_000);
      this.stderrWaiters.splice(0).forEach((w) => w());
    });
    this.child.on('exit', (code) => {
      this.exited = true;
      this.fail(new Error(`process exited (${code ?? 'signal'}) before replying: ${this.lastStderrLine()}`));
    });
  }

  private lastStderrLine(): string {
    return this.stderrTail.trim().split('\n').pop() ?? '';
  }

  private fail(e: Error): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    clearTimeout(p.timer);
    p.reject(e);
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl;
    while ((nl = this.buffer.indexOf('\n')) !== -1) {
      const read = performance.now();
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const p = this.pending;
      if (!p) continue;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        this.fail(new Error(`reply is not JSON: ${line.slice(0, 200)}`));
        continue;
      }
      // Notifications (progress, logging) carry no id and are not the reply.
      if (JSON.stringify(message.id) !== p.id) continue;
      this.pending = null;
      clearTimeout(p.timer);
      p.resolve({ reply: message, ms: read - p.started });
    }
  }

  /** Resolves with the first whole line of stderr (its last 2 000 characters) that matches `pattern`; rejects after `timeoutMs`. */
  waitForStderr(pattern: RegExp, timeoutMs = REPLY_TIMEOUT_MS): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stderr never matched ${String(pattern)}: ${this.lastStderrLine()}`)), timeoutMs);
      const check = (): void => {
        // Whole lines only: the last piece may still be arriving.
        const line = this.stderrTail.split('\n').slice(0, -1).find((l) => pattern.test(l));
        if (line !== undefined) {
          clearTimeout(timer);
          resolve(line);
        } else if (this.exited) {
          clearTimeout(timer);
          reject(new Error(`process exited: ${this.lastStderrLine()}`));
        } else this.stderrWaiters.push(check);
      };
      check();
    });
  }

  /** Writes one notification; nothing is awaited. */
  notify(message: Omit<JsonRpcRequest, 'id'>): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Writes one message (a request, or any line with an id for an echo) and resolves with its reply and the round-trip time. */
  request(message: JsonRpcRequest | EchoLine): Promise<TimedReply> {
    if (this.pending) return Promise.reject(new Error('one request at a time'));
    if (this.exited) return Promise.reject(new Error(`process has exited: ${this.lastStderrLine()}`));
    const line = `${JSON.stringify(message)}\n`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`no reply within ${REPLY_TIMEOUT_MS / 1000} s`)), REPLY_TIMEOUT_MS);
      this.pending = { id: JSON.stringify(message.id), started: performance.now(), resolve, reject, timer };
      this.child.stdin.write(line);
    });
  }

  /** Closes stdin and waits for the process to end (killing it if it lingers). */
  async close(): Promise<void> {
    if (this.exited) return;
    const ended = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await ended;
    clearTimeout(timer);
  }
}
