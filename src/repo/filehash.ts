// Whole-file BLAKE3 in bounded memory, for files too large to hold at once.
// A separate hash-wasm instance from core's, because core's shared instance is
// one-shot per call and cannot be interleaved with streaming reads.
import { closeSync, openSync, readSync } from 'node:fs';
import { createBLAKE3 } from 'hash-wasm';
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
