// The SQLite store (SPEC §15): WAL, synchronous=FULL, foreign keys, additive
// checksummed migrations. A migration whose text changed after it was applied
// stops startup: silently diverging schemas would corrupt certified evidence.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { blake3 } from '../core/digest.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export type Db = Database.Database;

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

export const DB_FILE = 'needle.sqlite3';

/**
 * Runs `write` with `synchronous=NORMAL`, then puts `FULL` back: for rows
 * whose loss in a crash costs nothing but a little history or a retry
 * (bookkeeping, single-flight leases). Their commits are appended to the WAL
 * without an fsync; the next FULL commit (any certification) syncs them with
 * it, and no certificate ever waits on them.
 *
 * The pragma is compiled on every call on purpose: SQLite applies
 * `synchronous` when the statement is compiled, not when it runs, so a
 * statement compiled once and run again would switch nothing.
 */
export function relaxed<T>(db: Db, write: () => T): T {
  db.pragma('synchronous = NORMAL');
  try {
    return write();
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/** How long opening a new store waits for another process that is switching it to WAL at the same moment. */
const WAL_SWITCH_WAIT_MS = 10_000;
const WAL_SWITCH_RETRY_MS = 20;

/**
 * Switches the store to WAL. Several processes opening a brand-new store at
 * once race for that switch, and SQLite answers the losers SQLITE_BUSY at once
 * (its busy handler does not cover a journal-mode change); they try again
 * shortly, since the winner finishes in milliseconds.
 */
function enableWal(db: Db): void {
  const deadline = Date.now() + WAL_SWITCH_WAIT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw e;
      // Opening the store is synchronous: block this thread briefly instead of spinning.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_SWITCH_RETRY_MS);
    }
  }
}

export function openDb(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  mkdirSync(dirname(file), { recursive: true });
  let db: Db;
  try {
    db = new Database(file, { timeout: 10_000 });
  } catch (e) {
    throw new StoreError(`cannot open database ${file}: ${(e as Error).message}`);
  }
  enableWal(db);
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  // Migrations run with foreign keys off so that a table others reference can
  // be rebuilt (SQLite's documented procedure; the pragma is a no-op inside a
  // transaction, hence here); migrate() checks every reference before commit.
  db.pragma('foreign_keys = OFF');
  try {
    migrate(db, migrations);
  } catch (e) {
    db.close();
    throw e;
  }
  db.pragma('foreign_keys = ON');
  return db;
}

function migrate(db: Db, migrations: readonly Migration[]): void {
  // One IMMEDIATE transaction for the whole check-and-apply: several processes
  // may open a new data directory at once, and only one may apply a migration.
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      checksum TEXT NOT NULL,
      applied_unix_ms INTEGER NOT NULL
    ) STRICT`);
    const applied = new Map(
      (db.prepare('SELECT id, name, checksum FROM schema_migrations').all() as { id: number; name: string; checksum: string }[]).map(
        (r) => [r.id, r],
      ),
    );
    const known = new Set(migrations.map((m) => m.id));
    for (const id of applied.keys())
      if (!known.has(id))
        throw new StoreError(`database has migration ${id} that this version of needle does not know; use a newer needle`);
    let appliedAny = false;
    const insert = db.prepare('INSERT INTO schema_migrations (id, name, checksum, applied_unix_ms) VALUES (?, ?, ?, ?)');
    for (const m of [...migrations].sort((a, b) => a.id - b.id)) {
      const checksum = blake3(m.sql);
      const row = applied.get(m.id);
      if (row) {
        if (row.checksum !== checksum)
          throw new StoreError(
            `migration ${m.id} (${m.name}) changed after it was applied (stored ${row.checksum.slice(0, 15)}…, now ${checksum.slice(0, 15)}…); refusing to start`,
          );
        continue;
      }
      db.exec(m.sql);
      insert.run(m.id, m.name, checksum, Date.now());
      appliedAny = true;
    }
    if (!appliedAny) return;
    const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
    if (broken.length > 0)
      throw new StoreError(`migration left ${broken.length} broken reference(s), e.g. ${broken[0]!.table} → ${broken[0]!.parent}; nothing was applied`);
  }).immediate();
}
