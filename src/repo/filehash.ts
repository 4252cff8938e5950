// Whole-file BLAKE3 in bounded memory, for files too large to hold at once.
// A separate hash-wasm instance from core's, because core's shared instance is
// one-shot per call and cannot be interleaved with streaming reads.
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

// Only hash-wasm's BLAKE3 build: its index inlines every algorithm's WASM,
// which costs tens of milliseconds of server start for nothing.
const { createBLAKE3 } = createRequire(import.meta.url)('hash-wasm/dist/blake3.umd.min.js') as typeof import('hash-wasm');
import type { Digest } from '../core/digest.js';

const CHUNK_BYTES = 1024 * 1024;
const hasher = await createBLAKE3();

export function hashFileStreaming(path: string | Buffer): Digest {
  const fd = openSync(path, 'r');
  try {
    hasher.init();
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hasher.update(chunk.subarray(0, n));
    return `b3:${hasher.digest('hex')}`;
  } finally {
    closeSync(fd);
  }
}
