// A full garbage collection on demand, for the server to run at moments of
// its choosing (cli/commands/mcp-serve.ts: after a large worktree snapshot).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A function that runs a full (major) collection of this isolate's heap
 * synchronously, or null when V8 does not give one. V8 hands its collector
 * to contexts created after `--expose-gc` is set; the flag is set at run
 * time because the server is started by whatever command the client has
 * configured, without Node options.
 */
export function fullGarbageCollector(): (() => void) | null {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  return typeof gc === 'function' ? () => void gc() : null;
}

/**
 * What the server runs after each worktree snapshot: `collect` when the
 * buffers the process holds exceed `minBufferBytes` (a large snapshot's git
 * output, now garbage), nothing otherwise.
 */
export function afterSnapshot(collect: () => void, minBufferBytes: number): () => void {
  return () => {
    if (process.memoryUsage().arrayBuffers > minBufferBytes) collect();
  };
}
