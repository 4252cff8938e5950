// Single flight (SPEC §10.8): concurrent identical resolutions share one
// worker run. The lease row in SQLite coordinates connections and processes
// sharing the database; inside one process followers also await the leader's
// promise directly instead of polling.
import { randomBytes } from 'node:crypto';
import { EVIDENCE_STORE } from '../core/limits.js';
import type { Db } from '../store/db.js';
import { currentLease, leaseVacant, releaseLease, tryAcquireLease } from '../store/evidence/flights.js';

const inProcess = new Map<string, Promise<unknown>>();

export type Flight<T> = { readonly led: true; readonly value: T } | { readonly led: false };

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('cancelled');
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `lead` when no live holder has the lease for `key`; otherwise waits
 * until the holder finishes (or dies, or its lease expires) and reports that
 * it did not lead, so the caller re-reads the cache the leader filled.
 */
export async function singleFlight<T>(
  db: Db,
  key: string,
  now: () => number,
  signal: AbortSignal,
  lead: () => Promise<T>,
): Promise<Flight<T>> {
  const localKey = `${db.name}\0${key}`;
  const local = inProcess.get(localKey);
  if (local) {
    await local.catch(() => undefined);
    return { led: false };
  }
  const token = randomBytes(12).toString('hex');
  if (tryAcquireLease(db, key, token, now(), EVIDENCE_STORE.flightLeaseMs)) {
    const run = lead();
    inProcess.set(localKey, run);
    try {
      return { led: true, value: await run };
    } finally {
      inProcess.delete(localKey);
      releaseLease(db, key, token);
    }
  }
  while (!leaseVacant(currentLease(db, key), now())) await pause(EVIDENCE_STORE.flightPollMs, signal);
  return { led: false };
}
