// The server's quiet gate (src/mcp/quiet.ts): what a server readies ahead of
// time (its analyzer thread) waits until the worktree is known and the
// connection has been quiet, so it never competes with a client's requests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { quietGate } from '../../src/mcp/quiet.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the quiet gate', () => {
  it('fires once, quietMs after it is armed, unless input keeps arriving', () => {
    const gate = quietGate(500);
    const fired: string[] = [];
    gate.onQuiet(() => fired.push('a'));
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual([]); // not armed: the worktree is not known yet
    gate.arm();
    vi.advanceTimersByTime(400);
    gate.touch(); // a request arrives: the quiet period starts again
    vi.advanceTimersByTime(400);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual(['a']);
    gate.touch();
    gate.arm();
    vi.advanceTimersByTime(5_000);
    expect(fired).toEqual(['a']);
  });

  it('runs a callback registered after it fired at once', () => {
    const gate = quietGate(10);
    gate.arm();
    vi.advanceTimersByTime(10);
    const fired: string[] = [];
    gate.onQuiet(() => fired.push('late'));
    expect(fired).toEqual(['late']);
  });
});
