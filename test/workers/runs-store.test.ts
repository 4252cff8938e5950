import { describe, it, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../src/store/db.js';
import { priceMicroUsd, RunsStore, type RunRecord } from '../../src/workers/runs-store.js';
import { recordWorkerRun } from '../../src/store/worker-runs.js';

const pricing = [
  { model: 'm-full', input_usd_per_mtok: 1.25, cached_input_usd_per_mtok: 0.125, output_usd_per_mtok: 10 },
  { model: 'm-nocache', input_usd_per_mtok: 1, cached_input_usd_per_mtok: null, output_usd_per_mtok: 2 },
];

describe('run pricing', () => {
  it('prices from the table and never guesses an unknown rate', () => {
    expect(priceMicroUsd(pricing, 'm-full', { inputTokens: 10_000, cachedInputTokens: 4_000, outputTokens: 1_000 })).toBe(6_000 * 1.25 + 4_000 * 0.125 + 10_000);
    expect(priceMicroUsd(pricing, 'm-nocache', { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10 })).toBe(120);
    expect(priceMicroUsd(pricing, 'm-nocache', { inputTokens: 100, cachedInputTokens: 1, outputTokens: 10 })).toBeNull();
    expect(priceMicroUsd(pricing, 'unknown', { inputTokens: 1, cachedInputTokens: 0, outputTokens: 0 })).toBeNull();
    expect(priceMicroUsd(undefined, 'm-full', { inputTokens: 1, cachedInputTokens: 0, outputTokens: 0 })).toBeNull();
  });
});

describe('RunsStore', () => {
  it('persists runs with attempts and cleanup across reopen, and totals them per model', () => {
    const dir = mkdtempSync(join(tmpdir(), 'needle-runs-'));
    const file = join(dir, 'needle.sqlite3');
    const run = (id: string, model: string | null, price: number | null, removed: boolean): RunRecord => ({
      runId: id, worker: 'codex', model, needId: 'b3:' + '0'.repeat(64), route: 'locate.implementation', startedUnixMs: 1, durationMs: 100,
      inputTokens: 10, cachedInputTokens: 2, outputTokens: 3, priceMicroUsd: price, outcome: 'proposed', reason: null, proposals: 1,
      sandboxed: true, runDir: `/runs/${id}`, cleanupRemoved: removed, cleanupError: removed ? null : 'EBUSY',
      attempts: [
        { kind: 'initial', status: 'completed', outputValid: false, error: 'not JSON', approvalsAccepted: 1, approvalsDeclined: 2 },
        { kind: 'repair', status: 'completed', outputValid: true, error: null, approvalsAccepted: 0, approvalsDeclined: 0 },
      ],
    });
    const a = new RunsStore(openDb(file));
    a.record(run('r1', 'm-full', 500, true));
    a.record(run('r2', 'm-full', null, false));
    a.record(run('r3', 'other', 7, true));
    const b = new RunsStore(openDb(file));
    expect(b.get('r1')).toEqual(run('r1', 'm-full', 500, true));
    expect(b.totals()).toEqual([
      { worker: 'codex', model: 'm-full', runs: 2, inputTokens: 20, cachedInputTokens: 4, outputTokens: 6, durationMs: 200, priceMicroUsd: 500, unpricedRuns: 1 },
      { worker: 'codex', model: 'other', runs: 1, inputTokens: 10, cachedInputTokens: 2, outputTokens: 3, durationMs: 100, priceMicroUsd: 7, unpricedRuns: 0 },
    ]);
    expect(b.recent(2).map((r) => r.runId)).toEqual(['r3', 'r2']);
    expect(b.uncleaned()).toEqual([{ runId: 'r2', runDir: '/runs/r2' }]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('how a run is committed', () => {
  it('a run that consumed nothing does not wait for the disk; one that spent tokens does; both are committed at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'needle-runs-'));
    const file = join(dir, 'needle.sqlite3');
    const db = openDb(file);
    const other = openDb(file);
    try {
      // The synchronous level each commit ran under, as the handle was switched.
      const levels: string[] = [];
      const pragma = db.pragma.bind(db);
      db.pragma = ((source: string, options?: { simple?: boolean }) => {
        if (source.startsWith('synchronous')) levels.push(source);
        return pragma(source, options);
      }) as typeof db.pragma;
      const base = { needId: null, route: 'locate.implementation', startedUnixMs: 1, durationMs: 5, cachedInputTokens: 0, outcome: 'proposed' };
      recordWorkerRun(db, { ...base, worker: 'static', model: null, inputTokens: 0, outputTokens: 0, priceMicroUsd: null }, 10);
      expect(levels).toEqual(['synchronous = NORMAL', 'synchronous = FULL']);
      levels.length = 0;
      recordWorkerRun(db, { ...base, worker: 'codex', model: 'm-full', inputTokens: 100, outputTokens: 5, priceMicroUsd: 175 }, 11);
      expect(levels).toEqual([]);
      expect(pragma('synchronous', { simple: true })).toBe(2); // FULL stays the handle's level
      // Both rows are committed: another connection reads them now.
      expect(other.prepare('SELECT worker FROM worker_runs ORDER BY id').all()).toEqual([{ worker: 'static' }, { worker: 'codex' }]);
    } finally {
      db.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
