// A Needle data directory: one SQLite file plus defaults. Initialization is
// idempotent and transactional, so a crash half-way leaves either nothing or
// a complete default profile.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_LOCAL_PROFILE, BUILTIN_PROFILE_ID } from '../core/profile.js';
import { ROUTE_IDS } from '../core/semantic.js';
import { DB_FILE, openDb, type Db } from './db.js';
import { activateProfile, createProfileRevision } from './profiles.js';
import { getSetting, setRouteEnabled, setSetting } from './settings.js';

const INITIALIZED_KEY = 'initialized_unix_ms';

export interface DataDir {
  readonly db: Db;
  readonly dataDir: string;
  readonly dbFile: string;
  /** True when this call created the defaults (the directory was never initialized). */
  readonly created: boolean;
}

export function dbFileOf(dataDir: string): string {
  return join(dataDir, DB_FILE);
}

export function isInitialized(db: Db): boolean {
  return getSetting(db, INITIALIZED_KEY) !== null;
}

function seedDefaults(db: Db): boolean {
  // IMMEDIATE: two servers starting on a new data directory must not both
  // read "not initialized" and then race to write.
  return db.transaction(() => {
    if (isInitialized(db)) return false;
    for (const route of ROUTE_IDS) setRouteEnabled(db, route, true);
    const digest = createProfileRevision(db, BUILTIN_PROFILE_ID, BUILTIN_LOCAL_PROFILE);
    activateProfile(db, BUILTIN_PROFILE_ID, digest);
    setSetting(db, INITIALIZED_KEY, String(Date.now()));
    return true;
  }).immediate();
}

/** Opens (and migrates) the data directory, creating defaults when it was never initialized. */
export function openDataDir(dataDir: string): DataDir {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dbFile = dbFileOf(dataDir);
  const db = openDb(dbFile);
  try {
    const created = seedDefaults(db);
    return { db, dataDir, dbFile, created };
  } catch (e) {
    db.close();
    throw e;
  }
}

/** `needle init`: same as opening, reported as whether anything was created. */
export function initDataDir(dataDir: string): { dataDir: string; created: boolean } {
  const { db, created } = openDataDir(dataDir);
  db.close();
  return { dataDir, created };
}
