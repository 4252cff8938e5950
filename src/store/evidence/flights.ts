// Single-flight leases (SPEC §10.8): one row per in-flight resolution key,
// shared by every connection and process using the same SQLite file. A lease
// whose owner process is gone, or whose time ran out, can be taken over.
// Lease rows are coordination, not evidence: a crash that loses one only lets
// another process take the flight, so they commit without an fsync.
import { processAlive } from '../../core/process.js';
import { relaxed, type Db } from '../db.js';
import { statement } from '../statements.js';

export interface Lease {
  readonly ownerPid: number;
  readonly ownerToken: string;
  readonly expiresUnixMs: number;
}


export function currentLease(db: Db, key: string): Lease | null {
  const r = statement(db, 'SELECT owner_pid, owner_token, expires_unix_ms FROM evidence_flights WHERE key = ?').get(key) as
    | { owner_pid: number; owner_token: string; expires_unix_ms: number }
    | undefined;
  return r ? { ownerPid: r.owner_pid, ownerToken: r.owner_token, expiresUnixMs: r.expires_unix_ms } : null;
}

/** True when the lease is held by nobody live: missing, expired, or its owner process has exited. */
export function leaseVacant(lease: Lease | null, nowMs: number): boolean {
  return lease === null || lease.expiresUnixMs <= nowMs || !processAlive(lease.ownerPid);
}

/** Takes the lease when vacant (atomically, under a write lock); returns whether we now hold it. */
export function tryAcquireLease(db: Db, key: string, token: string, nowMs: number, ttlMs: number): boolean {
  return relaxed(db, () =>
    db
      .transaction(() => {
        if (!leaseVacant(currentLease(db, key), nowMs)) return false;
        statement(
          db,
          `INSERT INTO evidence_flights (key, owner_pid, owner_token, expires_unix_ms) VALUES (?, ?, ?, ?)
           ON CONFLICT (key) DO UPDATE SET owner_pid = excluded.owner_pid, owner_token = excluded.owner_token,
             expires_unix_ms = excluded.expires_unix_ms`,
        ).run(key, process.pid, token, nowMs + ttlMs);
        return true;
      })
      .immediate(),
  );
}

export function releaseLease(db: Db, key: string, token: string): void {
  relaxed(db, () => statement(db, 'DELETE FROM evidence_flights WHERE key = ? AND owner_token = ?').run(key, token));
}
