// Settings and route switches (SPEC §13). Routes carry an enabled flag; only
// routes that also have a built-in contract can ever be served.
import { ROUTE_IDS, type RouteId } from '../core/semantic.js';
import type { Db } from './db.js';

export function getSetting(db: Db, key: string): string | null {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value ?? null;
}

export function setSetting(db: Db, key: string, value: string): void {
  db.prepare(
    `INSERT INTO settings (key, value, updated_unix_ms) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_unix_ms = excluded.updated_unix_ms`,
  ).run(key, value, Date.now());
}

export interface RouteRow {
  readonly id: string;
  readonly enabled: boolean;
}

export function listRoutes(db: Db): RouteRow[] {
  return (db.prepare('SELECT id, enabled FROM routes ORDER BY id').all() as { id: string; enabled: number }[]).map((r) => ({
    id: r.id,
    enabled: r.enabled === 1,
  }));
}

/** Enabled routes that have a built-in contract, sorted: the enum a session freezes. */
export function enabledRoutes(db: Db): RouteId[] {
  const known = new Set<string>(ROUTE_IDS);
  return listRoutes(db)
    .filter((r) => r.enabled && known.has(r.id))
    .map((r) => r.id as RouteId)
    .sort();
}

export function setRouteEnabled(db: Db, id: RouteId, enabled: boolean): void {
  db.prepare(
    `INSERT INTO routes (id, enabled, updated_unix_ms) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, updated_unix_ms = excluded.updated_unix_ms`,
  ).run(id, enabled ? 1 : 0, Date.now());
}
