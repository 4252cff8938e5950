// "The server has been quiet for a while": armed once (the worktree watch
// knows its first snapshot), it fires its callbacks when nothing arrived on
// the connection for `quietMs`; anything arriving pushes that back. Work a
// server only does ahead of time (readying the analyzer thread) waits for it,
// so it competes neither with the watch's first snapshot nor with a client
// that is sending requests.
export interface QuietGate {
  /** Something arrived: the quiet period starts again. */
  touch(): void;
  /** From now on the gate may fire (at most once). */
  arm(): void;
  /** Runs `callback` once the gate fires (at once if it already has). */
  onQuiet(callback: () => void): void;
}

export function quietGate(quietMs: number): QuietGate {
  let armed = false;
  let fired = false;
  /** When something last arrived (ms, monotonic). */
  let lastAt = 0;
  const callbacks: (() => void)[] = [];
  // One timer per quiet period: a touch only moves lastAt, and the timer, when
  // it fires early, waits for the rest — no timer churn on a request's path.
  const check = (): void => {
    const left = lastAt + quietMs - performance.now();
    if (left > 0) return wait(left);
    fired = true;
    for (const c of callbacks.splice(0)) c();
  };
  const wait = (ms: number): void => {
    // Nothing waits for it: a server that is done exits.
    setTimeout(check, ms).unref();
  };
  return {
    touch: () => {
      lastAt = performance.now();
    },
    arm: () => {
      if (armed) return;
      armed = true;
      lastAt = performance.now();
      wait(quietMs);
    },
    onQuiet: (callback) => {
      if (fired) callback();
      else callbacks.push(callback);
    },
  };
}
