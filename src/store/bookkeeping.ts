// Bookkeeping rows (need steps and their events, resolutions, avoided-cost
// rows, sufficiency records) are not on the answer's path. They are queued in
// memory and committed in one group transaction on the next turn of the event
// loop, i.e. after a hit's answer has been written to stdout, under
// `synchronous=NORMAL`: the commit is appended to the WAL without an fsync.
//
// Every other write on the handle keeps `synchronous=FULL` (the pragma is put
// back before the group transaction returns), so a certification commit —
// artifacts, claims, certificates, negative outcomes — fsyncs the WAL, and
// with it every bookkeeping frame appended before it. The WAL is a sequence:
// what survives a crash is a prefix of the commits, so a crash loses at most
// the bookkeeping groups committed after the last FULL commit (or still
// queued), never a certificate, and it never makes anything servable that was
// not certified (servability is the last row of a certification transaction).
import { relaxed, type Db } from './db.js';

type Write = () => void;

interface Queue {
  readonly writes: Write[];
  scheduled: boolean;
  /** While > 0, the scheduled group commit waits (a call whose answer is not written yet). */
  holds: number;
  /** Called with the error when a group could not be committed (its rows are lost). */
  onError: (e: unknown) => void;
}

const queues = new WeakMap<Db, Queue>();

function queueOf(db: Db): Queue {
  let q = queues.get(db);
  if (!q) {
    q = { writes: [], scheduled: false, holds: 0, onError: () => {} };
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
  q.writes.push(write);
  if (q.scheduled) return;
  q.scheduled = true;
  // setImmediate runs after the current I/O callbacks: a reply written in this
  // turn of the loop is on the pipe before the group commits.
  setImmediate(() => scheduledFlush(db));
}

function scheduledFlush(db: Db): void {
  const q = queueOf(db);
  q.scheduled = false;
  if (q.holds === 0) flushBookkeeping(db);
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
    if (q.holds === 0 && q.writes.length > 0 && !q.scheduled) {
      q.scheduled = true;
      setImmediate(() => scheduledFlush(db));
    }
  };
}

/** Number of queued writes (tests and shutdown). */
export function pendingBookkeeping(db: Db): number {
  return queues.get(db)?.writes.length ?? 0;
}

/** Commits every queued write now, in one transaction under synchronous=NORMAL. */
export function flushBookkeeping(db: Db): void {
  const q = queues.get(db);
  if (!q || q.writes.length === 0 || !db.open) return;
  if (db.inTransaction) {
    q.scheduled = true;
    setImmediate(() => scheduledFlush(db));
    return;
  }
  const writes = q.writes.splice(0);
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
  }
}
