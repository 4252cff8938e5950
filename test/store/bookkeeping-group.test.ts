// Bookkeeping rows are committed in groups once requests pause, so that no
// commit sits between one answer and the next request. Another process (the
// UI, `needle needs`) sees them at most BOOKKEEPING.idleMs after the last one
// was queued, never later than BOOKKEEPING.maxDelayMs after the first, and at
// once when a group is full. The clock is faked (vitest timers); the database
// is a real SQLite file read through a second connection, as another process
// would read it.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { BOOKKEEPING } from '../../src/core/limits.js';
import { bookkeepingCommitted, deferWrite, flushBookkeeping, holdBookkeeping, pendingBookkeeping } from '../../src/store/bookkeeping.js';
import { openDataDir } from '../../src/store/datadir.js';
import { relaxed, type Db } from '../../src/store/db.js';
import { recordResolution } from '../../src/store/evidence/accounting.js';
import { cleanupAll, queryRows, tempDir } from '../mcp/fixtures.js';

afterAll(cleanupAll);

function store(): { db: Db; visible: () => number; queue: (n?: number) => void } {
  const { db, dbFile } = openDataDir(tempDir('needle-data-'));
  let next = 0;
  const queue = (n = 1): void => {
    for (let i = 0; i < n; i++) {
      const id = ++next;
      deferWrite(db, () =>
        recordResolution(
          db,
          {
            needId: blake3(`need-${id}`),
            repositoryRoot: null,
            requestDigest: blake3(`request-${id}`),
            route: 'locate.implementation',
            subjectKind: 'symbol',
            subjectName: 'parseLevel',
            kind: 'exact_hit',
            satisfied: ['implementation'],
            missing: [],
            cacheHit: true,
            workersRun: 0,
            sufficiencyId: null,
            contextBytes: 100,
            durationMs: 0,
            avoidedRuns: [],
          },
          1_000 + id,
        ),
      );
    }
  };
  const visible = () => queryRows<{ n: number }>(dbFile, 'SELECT COUNT(*) AS n FROM evidence_resolutions')[0]!.n;
  return { db, visible, queue };
}

describe('bookkeeping group commits', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('while rows keep coming nothing is committed; once they pause, one group holds them all', () => {
    const s = store();
    for (let i = 0; i < 10; i++) {
      s.queue();
      vi.advanceTimersByTime(BOOKKEEPING.idleMs - 5);
      expect(s.visible()).toBe(0);
    }
    vi.advanceTimersByTime(5);
    expect(s.visible()).toBe(10);
    expect(pendingBookkeeping(s.db)).toBe(0);
    s.db.close();
  });

  it('a steady stream is still committed within the maximum delay of its first row', () => {
    const s = store();
    const step = BOOKKEEPING.idleMs - 1;
    let waited = 0;
    while (waited + step < BOOKKEEPING.maxDelayMs) {
      s.queue();
      vi.advanceTimersByTime(step);
      waited += step;
      expect(s.visible()).toBe(0);
    }
    s.queue();
    vi.advanceTimersByTime(BOOKKEEPING.maxDelayMs - waited);
    expect(s.visible()).toBeGreaterThan(0);
    expect(pendingBookkeeping(s.db)).toBe(0);
    s.db.close();
  });

  it('a full group is committed on the next turn, without waiting for a pause', () => {
    const s = store();
    s.queue(BOOKKEEPING.maxWrites);
    vi.advanceTimersByTime(0);
    expect(s.visible()).toBe(BOOKKEEPING.maxWrites);
    s.db.close();
  });

  it('a held group waits for its answer, an explicit flush does not, and waiters learn when rows are in', async () => {
    const s = store();
    const release = holdBookkeeping(s.db);
    s.queue(2);
    // No timer is armed while the answer is being made: its release arms one.
    expect(vi.getTimerCount()).toBe(0);
    const committed = bookkeepingCommitted(s.db);
    vi.advanceTimersByTime(BOOKKEEPING.maxDelayMs * 2);
    expect(s.visible()).toBe(0);
    release();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(BOOKKEEPING.idleMs);
    await committed;
    expect(s.visible()).toBe(2);

    s.queue();
    flushBookkeeping(s.db);
    expect(s.visible()).toBe(3);
    s.db.close();
  });

  it('a group commit runs under synchronous=NORMAL and leaves the handle at FULL, also when a relaxed write throws', () => {
    const s = store();
    const FULL = 2;
    const NORMAL = 1;
    let during = -1;
    deferWrite(s.db, () => void (during = s.db.pragma('synchronous', { simple: true }) as number));
    flushBookkeeping(s.db);
    expect(during).toBe(NORMAL);
    // The next certification must fsync: the handle is back at FULL, every time (the switches are compiled once).
    expect(s.db.pragma('synchronous', { simple: true })).toBe(FULL);
    expect(() => relaxed(s.db, () => { throw new Error('write failed'); })).toThrow('write failed');
    expect(s.db.pragma('synchronous', { simple: true })).toBe(FULL);
    s.queue();
    flushBookkeeping(s.db);
    expect(s.visible()).toBe(1);
    expect(s.db.pragma('synchronous', { simple: true })).toBe(FULL);
    s.db.close();
  });
});
