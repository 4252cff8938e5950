// JSON-RPC 2.0 over NDJSON with a worker process (the Codex App Server).
// Messages are told apart by shape, never by id alone: the server numbers its
// own requests from 0, so its ids collide with ours. A message with `method`
// is a request (with id) or a notification (without); one without `method` is
// a response to us.
import type { Readable, Writable } from 'node:stream';

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code: number | null = null,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

type Id = number | string;
export interface ServerRequest {
  readonly id: Id;
  readonly method: string;
  readonly params: Record<string, unknown>;
}
export interface Notification {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface RpcHandlers {
  onNotification(n: Notification): void;
  /** Resolves to the result to send back; a rejection becomes a JSON-RPC error reply. */
  onRequest(r: ServerRequest): Promise<unknown>;
  /** The stream broke (closed, oversize line, non-JSON): the peer is unusable from now on. */
  onFatal(error: RpcError): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class RpcPeer {
  private nextId = 1;
  private readonly pending = new Map<Id, Pending>();
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private fatal: RpcError | null = null;

  constructor(
    private readonly out: Writable,
    input: Readable,
    private readonly handlers: RpcHandlers,
    private readonly maxLineBytes: number,
  ) {
    input.on('data', (chunk: Buffer) => this.receive(chunk));
    input.on('end', () => this.fail(new RpcError('worker closed its output')));
    input.on('error', (e) => this.fail(new RpcError(`worker output failed: ${e.message}`)));
  }

  get broken(): RpcError | null {
    return this.fatal;
  }

  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.fatal) return Promise.reject(this.fatal);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError(`${method} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  private write(message: unknown): void {
    if (this.fatal) return;
    this.out.write(`${JSON.stringify(message)}\n`);
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.bufferedBytes + piece.length > this.maxLineBytes) return this.fail(new RpcError(`worker sent a line over ${this.maxLineBytes} bytes`));
      const line = this.bufferedBytes ? Buffer.concat([...this.buffered, piece]) : piece;
      this.buffered = [];
      this.bufferedBytes = 0;
      start = nl + 1;
      if (line.length) this.dispatch(line.toString('utf8'));
      if (this.fatal) return;
    }
    const rest = chunk.subarray(start);
    if (this.bufferedBytes + rest.length > this.maxLineBytes) return this.fail(new RpcError(`worker sent a line over ${this.maxLineBytes} bytes`));
    if (rest.length) {
      this.buffered.push(rest);
      this.bufferedBytes += rest.length;
    }
  }

  private dispatch(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return this.fail(new RpcError('worker sent a line that is not JSON'));
    }
    if (!isRecord(msg)) return this.fail(new RpcError('worker sent a JSON-RPC message that is not an object'));
    const params = isRecord(msg.params) ? msg.params : {};
    if (typeof msg.method === 'string') {
      if (msg.id === undefined || msg.id === null) return this.handlers.onNotification({ method: msg.method, params });
      const id = msg.id as Id;
      this.handlers.onRequest({ id, method: msg.method, params }).then(
        (result) => this.write({ jsonrpc: '2.0', id, result }),
        (e: Error) => this.write({ jsonrpc: '2.0', id, error: { code: -32601, message: e.message } }),
      );
      return;
    }
    const pending = (typeof msg.id === 'number' || typeof msg.id === 'string') ? this.pending.get(msg.id) : undefined;
    if (!pending) return; // a late answer to a request we already gave up on
    this.pending.delete(msg.id as Id);
    clearTimeout(pending.timer);
    if (isRecord(msg.error)) {
      const code = typeof msg.error.code === 'number' ? msg.error.code : null;
      pending.reject(new RpcError(String(msg.error.message ?? 'error').slice(0, 1000), code));
    } else pending.resolve(msg.result);
  }

  private fail(error: RpcError): void {
    if (this.fatal) return;
    this.fatal = error;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(error);
      this.pending.delete(id);
    }
    this.handlers.onFatal(error);
  }
}
