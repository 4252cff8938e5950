// Cancellation between resolution stages. A stage (locating, tracing,
// validating) runs synchronously and keeps the event loop busy, so a cancel
// sent meanwhile is only read once the loop turns again. A checkpoint lets it
// turn, and throws when the request was cancelled by then.

/** The signal's own reason when it is an AbortError, otherwise a fresh one. */
export function abortError(signal: AbortSignal, what = 'resolution aborted'): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException(what, 'AbortError');
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Lets input that arrived while a stage ran be read, then throws if the
 * signal was aborted. Two turns: the first may still run in the phase of the
 * callback that started the stage; the second comes after a poll of the
 * loop's I/O, which is where a cancel line on stdin is read.
 */
export async function checkpoint(signal: AbortSignal, what?: string): Promise<void> {
  await turn();
  await turn();
  if (signal.aborted) throw abortError(signal, what);
}
