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
  let timer: NodeJS.Timeout | null = null;
  const callbacks: (() => void)[] = [];
  const fire = (): void => {
    timer = null;
    fired = true;
    for (const c of callbacks.splice(0)) c();
  };
  const restart = (): void => {
    if (!armed || fired) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, quietMs);
    // Nothing waits for it: a server that is done exits.
    timer.unref();
  };
  return {
    touch: restart,
    arm: () => {
      if (armed) return;
      armed = true;
      restart();
    },
    onQuiet: (callback) => {
      if (fired) callback();
      else callbacks.push(callback);
    },
  };
}
