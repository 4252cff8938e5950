// The server's collector (src/cli/garbage.ts): what it returns runs a full
// collection at once, seen in Node's own GC entries, and frees what is no
// longer reachable.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { afterSnapshot, fullGarbageCollector } from '../../src/cli/garbage.js';

describe('full garbage collector', () => {
  it('runs a major collection when called, which frees an unreachable object', async () => {
    const collect = fullGarbageCollector();
    expect(collect).not.toBeNull();
    // GC entries are delivered after the collection, asynchronously: waited for, bounded.
    const major = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const observer = new PerformanceObserver((list) => {
        const kinds = list.getEntries().map((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind);
        if (!kinds.includes(constants.NODE_PERFORMANCE_GC_MAJOR)) return;
        clearTimeout(timer);
        observer.disconnect();
        resolve(true);
      });
      observer.observe({ entryTypes: ['gc'] });
    });
    const ref = new WeakRef({ payload: new Array(10_000).fill('x') });
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collect!();
    expect(ref.deref()).toBeUndefined();
    expect(await major).toBe(true);
  });
});

describe('collection after a snapshot', () => {
  it('collects only while the process holds more buffer memory than its bound', () => {
    let runs = 0;
    const held = process.memoryUsage().arrayBuffers;
    afterSnapshot(() => runs++, held + 4 * 1024 * 1024)();
    expect(runs).toBe(0);
    const output = Buffer.alloc(8 * 1024 * 1024, 1); // a large snapshot's git output
    afterSnapshot(() => runs++, held + 4 * 1024 * 1024)();
    expect(runs).toBe(1);
    expect(output.length).toBe(8 * 1024 * 1024);
  });
});
