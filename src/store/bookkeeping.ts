// Bookkeeping rows (need steps and their events, resolutions, avoided-cost
// rows, sufficiency records) are not on the answer's path. They are queued in
// memory and committed in one group transaction once no row was queued for
// BOOKKEEPING.idleMs (at the latest BOOKKEEPING.maxDelayMs after the group's
// first row), i.e. after the answers were written to stdout and while no
// request is streaming in, under `synchronous=NORMAL`: the commit is appended
// to the WAL without an fsync. A commit right after each answer would sit
// between that answer and the client's next request.
//
// Every other write on the handle keeps `synchronous=FULL` (the pragma is put
// back before the group transaction returns), so a certification commit —
// artifacts, claims, certificates, negative outcomes — fsyncs the WAL, and
// with it every bookkeeping frame appended before it. The WAL is a sequence:
// what survives a crash is a prefix of the commits, so a crash loses at most
// the bookkeeping groups committed after the last FULL commit (or still
// queued), never a certificate, and it never makes anything servable that was
// not certified (servability is the last row of a certification transaction).
import { BOOKKEEPING } from '../core/limits.js';
import { relaxed, type Db } from './db.js';

type Write = () => void;

interface Queue {
  readonly writes: Write[];
  /** The pending timer of the next group commit, if one is scheduled. */
  timer: NodeJS.Timeout | null;
  /** When the group's first write was queued (ms, monotonic). */
  firstAt: number;
  /** When its last write was queued. */
  lastAt: number;
  /** While > 0, the scheduled group commit waits (a call whose answer is not written yet). */
  holds: number;
  /** Called with the error when a group could not be committed (its rows are lost). */
  onError: (e: unknown) => void;
  /** Resolved after the next group commit (tests and shutdown wait on it). */
  waiters: (() => void)[];
}

const queues = new WeakMap<Db, Queue>();

function queueOf(db: Db): Queue {
  let q = queues.get(db);
  if (!q) {
    q = { writes: [], timer: null, firstAt: 0, lastAt: 0, holds: 0, onError: () => {}, waiters: [] };
    queues.set(db, q);
  }
  return q;
}

/** Where a failed group commit is reported (the rows themselves are lost). */
export function onBookkeepingError(db: Db, report: (e: unknown) => void): void {
  queueOf(db).onError = report;
}

/**
 * Queues `write` for the next group commit. Writes run in the order they were
 * queued, in one transaction; a write that throws rolls back only its own rows.
 */
export function deferWrite(db: Db, write: Write): void {
  const q = queueOf(db);
  q.lastAt = performance.now();
  if (q.writes.length === 0) q.firstAt = q.lastAt;
  q.writes.push(write);
  // While an answer is being made (holds > 0) no timer is armed: the commit
  // could not run before its release anyway, and the release arms it, after
  // the answer was written — no timer work on the answer's path.
  if (q.writes.length >= BOOKKEEPING.maxWrites) arm(db, q, 0);
  else if (!q.timer && q.holds === 0) schedule(db, q);
}

/** When the group is due: idle time after its last write, bounded by its age. */
function dueIn(q: Queue): number {
  return Math.max(0, Math.min(q.lastAt + BOOKKEEPING.idleMs, q.firstAt + BOOKKEEPING.maxDelayMs) - performance.now());
}

/**
 * Arms the group commit for when the group is due. One timer per group: a
 * write only moves `lastAt`, and the timer, when it fires early, waits for
 * the rest (no timer churn on the answer's path).
 */
function schedule(db: Db, q: Queue): void {
  arm(db, q, dueIn(q));
}

function arm(db: Db, q: Queue, delay: number): void {
  if (q.timer) clearTimeout(q.timer);
  q.timer = setTimeout(() => {
    q.timer = null;
    if (q.writes.length === 0 || q.holds > 0) return;
    if (q.writes.length < BOOKKEEPING.maxWrites && dueIn(q) > 0) schedule(db, q);
    else flushBookkeeping(db);
  }, delay);
  // A process that is done does not wait for its rows: every command flushes
  // explicitly before it closes the database.
  q.timer.unref();
}

/**
 * Keeps the scheduled group commit back until the returned release is called
 * (once the answer is written), even across turns of the event loop; an
 * explicit flushBookkeeping() — the engine's, before a worker starts — still
 * commits.
 */
export function holdBookkeeping(db: Db): () => void {
  const q = queueOf(db);
  q.holds++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    q.holds--;
    if (q.holds === 0 && q.writes.length > 0) schedule(db, q);
  };
}

/** Number of queued writes (tests and shutdown). */
export function pendingBookkeeping(db: Db): number {
  return queues.get(db)?.writes.length ?? 0;
}

/** Resolves once every write queued now has been committed (or lost with its group's error). */
export function bookkeepingCommitted(db: Db): Promise<void> {
  const q = queueOf(db);
  if (q.writes.length === 0) return Promise.resolve();
  return new Promise((resolve) => q.waiters.push(resolve));
}

/** Commits every queued write now, in one transaction under synchronous=NORMAL. */
export function flushBookkeeping(db: Db): void {
  const q = queues.get(db);
  if (!q || q.writes.length === 0 || !db.open) return;
  if (db.inTransaction) {
    schedule(db, q);
    return;
  }
  if (q.timer) clearTimeout(q.timer);
  q.timer = null;
  const writes = q.writes.splice(0);
  const waiters = q.waiters.splice(0);
  try {
    relaxed(db, () =>
      db.transaction(() => {
        // Each write is its own savepoint: one that fails loses only its own rows.
        for (const w of writes)
          try {
            db.transaction(w)();
          } catch (e) {
            q.onError(e);
          }
      })(),
    );
  } catch (e) {
    q.onError(e);
  } finally {
    for (const w of waiters) w();
  }
}
