// One supervised command (SPEC §7): cleared environment, deadline, abort,
// bounded output, process-group kill, optional bubblewrap sandbox.
import { spawnGroup } from './group.js';
import type { SandboxInfo, SandboxOptions } from './sandbox.js';

export interface SupervisedSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdin?: string | Buffer;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputBytes: number;
  sandbox?: { info: SandboxInfo; runDir: string; options?: SandboxOptions };
}

export interface SupervisedResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  truncated: boolean;
  durationMs: number;
}

class BoundedSink {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export function runSupervised(spec: SupervisedSpec): Promise<SupervisedResult> {
  const started = performance.now();
  const group = spawnGroup({ argv: spec.argv, cwd: spec.cwd, env: spec.env, ...(spec.sandbox ? { sandbox: spec.sandbox } : {}) });
  const out = new BoundedSink(spec.maxOutputBytes);
  const err = new BoundedSink(spec.maxOutputBytes);
  group.child.stdout!.on('data', (c: Buffer) => out.push(c));
  group.child.stderr!.on('data', (c: Buffer) => err.push(c));
  let timedOut = false;
  let cancelled = false;
  let spawnError: Error | null = null;
  group.child.once('error', (e) => (spawnError = e));

  const timer = setTimeout(() => {
    timedOut = true;
    void group.terminate();
  }, spec.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    void group.terminate();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });

  group.child.stdin!.end(spec.stdin ?? '');

  return new Promise((resolve) => {
    // 'close' waits for the pipes; reaping the group on exit makes sure a
    // grandchild holding them open cannot keep the run (or itself) alive.
    void group.exited.then(() => group.reap());
    group.child.once('close', (code, signal) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      group.reap();
      resolve({
        exitCode: spawnError ? null : code,
        signal: signal ?? null,
        stdout: out.text(),
        stderr: spawnError ? `cannot start ${spec.argv[0]}: ${(spawnError as Error).message}` : err.text(),
        timedOut,
        cancelled,
        truncated: out.truncated || err.truncated,
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}
