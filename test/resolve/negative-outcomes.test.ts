// Certified negative outcomes (SPEC §16a) as a user of need_context sees
// them: what the static worker could not do on these bytes is not redone on
// a repeat — the repeat is a zero-worker `partial_hit` with the same
// `missing`, or the same `ambiguous`/`rejected` verdict served as a hit —
// and an edit that could change the answer (a file the worker read, or any
// new or changed file that could add a candidate) makes the worker run again.
import { afterEach, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import type { EngineResult } from '../../src/core/resolution.js';
import type { Worker } from '../../src/core/worker.js';
import type { CompiledNeed } from '../../src/core/need.js';
import { projectNeedResult } from '../../src/mcp/result.js';
import { buildExplorers } from '../../src/workers/explorers.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { citing, harness, makeRepo, need, options, scriptedWorker, type Harness, type Repo } from './fixture.js';
import { LEVELS, LEVELS_TEST, levelsNeed, PARSE_LEVEL, TWO_SETTINGS } from './negative-fixture.js';

const LOAD_SETTINGS = { kind: 'symbol' as const, name: 'loadSettings' };
const NO_SANDBOX = { bwrap: null, active: false, reason: 'not used by this test' };

let repo: Repo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

/** The real static worker as a session builds it, recording which obligations each run was asked for. */
function staticWorker(h: Harness, dataDir: string): Worker & { runs: string[][]; snapshots: (string | null | undefined)[] } {
  const [real] = buildExplorers(BUILTIN_LOCAL_PROFILE, { dataDir, db: h.db, sandbox: NO_SANDBOX });
  const runs: string[][] = [];
  const snapshots: (string | null | undefined)[] = [];
  return {
    ...real!,
    runs,
    snapshots,
    run(input) {
      runs.push(input.missing.map((o) => o.predicate));
      snapshots.push(input.snapshot);
      return real!.run(input);
    },
  };
}

/** What the main model receives (structuredContent), as need_context projects it. */
const seen = (n: CompiledNeed, r: EngineResult) => projectNeedResult(n, { ordinal: 1, relation: 'independent' }, r);
const header = (context: string) => context.replace(/resolution=\w+/, 'resolution=*');


describe('a partial answer from the static worker', () => {
  it('is served on repeat as a zero-worker partial_hit with the same missing, also after an ignored file changes', async () => {
    repo = makeRepo(LEVELS);
    const h = harness(repo);
    const worker = staticWorker(h, repo.dataDir);
    const engine = h.engine([worker]);
    const n = levelsNeed(repo);

    const first = seen(n, await engine.resolve(n, options()));
    expect(first).toMatchObject({ status: 'generated', satisfied: ['implementation_location'], missing: ['focused_tests'], worker_spawned: true });
    expect(first.context).toContain('primary: src/levels.ts:3-7 parseLevel');

    const again = seen(n, await engine.resolve(n, options()));
    expect(again).toMatchObject({
      status: 'hit',
      resolution: { kind: 'partial_hit' },
      satisfied: ['implementation_location'],
      missing: ['focused_tests'],
      worker_spawned: false,
      cache_hit: true,
    });
    expect(header(again.context)).toBe(header(first.context));
    expect(worker.runs).toHaveLength(1);

    // Build output git ignores can never add a candidate: still no worker.
    repo.write('dist/levels.js', 'export function parseLevel() {}\n');
    const ignored = seen(n, await engine.resolve(n, options()));
    expect(ignored).toMatchObject({ status: 'hit', worker_spawned: false, missing: ['focused_tests'] });
    expect(worker.runs).toHaveLength(1);
  });

  it('is recomputed after a one-byte edit of a file the static worker read, then served again', async () => {
    repo = makeRepo(LEVELS);
    const h = harness(repo);
    const worker = staticWorker(h, repo.dataDir);
    const engine = h.engine([worker]);
    const n = levelsNeed(repo);
    await engine.resolve(n, options());
    expect((await engine.resolve(n, options())).workerSpawned).toBe(false);

    repo.write('src/main.ts', repo.read('src/main.ts').replace('return parseLevel', 'return  parseLevel'));
    const edited = seen(n, await engine.resolve(n, options()));
    expect(edited).toMatchObject({ status: 'generated', worker_spawned: true, missing: ['focused_tests'] });
    expect(worker.runs).toHaveLength(2);

    const settled = seen(n, await engine.resolve(n, options()));
    expect(settled).toMatchObject({ status: 'hit', worker_spawned: false, missing: ['focused_tests'] });
    expect(worker.runs).toHaveLength(2);
  });

  it('is recomputed when a new file could add a candidate, and then finds the test that file adds', async () => {
    repo = makeRepo(LEVELS);
    const h = harness(repo);
    const worker = staticWorker(h, repo.dataDir);
    const engine = h.engine([worker]);
    const n = levelsNeed(repo);
    await engine.resolve(n, options());
    expect((await engine.resolve(n, options())).workerSpawned).toBe(false);

    // Untracked and never read before: only the snapshot can tell it appeared.
    repo.write('test/levels.test.ts', LEVELS_TEST);
    const found = seen(n, await engine.resolve(n, options()));
    expect(found).toMatchObject({ status: 'generated', worker_spawned: true, satisfied: ['implementation_location', 'focused_tests'], missing: [] });
    expect(found.context).toContain("focused test: npx vitest run test/levels.test.ts -t 'parseLevel falls back to info for unknown names'");
    // The location certified before was reused; the worker was asked for the test only.
    expect(worker.runs).toEqual([['implementation_location', 'focused_tests'], ['focused_tests']]);
    // Each run was told the source snapshot it ran on: the new file made it another one.
    expect(worker.snapshots).toEqual([expect.stringMatching(/^b3:[0-9a-f]{64}$/), expect.stringMatching(/^b3:[0-9a-f]{64}$/)]);
    expect(worker.snapshots[1]).not.toBe(worker.snapshots[0]);
    expect(worker.snapshots[1]).toBe(captureSnapshot(repo.root).sourceDigest);
  });

  it('is recomputed after an edit to a tracked file it never read, while the certified location stays served', async () => {
    repo = makeRepo(LEVELS);
    const h = harness(repo);
    const worker = staticWorker(h, repo.dataDir);
    const engine = h.engine([worker]);
    const n = levelsNeed(repo);
    await engine.resolve(n, options());

    // Any tracked change could hold a new candidate (the search covers every file), so the negative
    // outcome does not survive it; the positive evidence, which rests only on its own files, does.
    repo.write('README.md', '# levels\n\nParses log levels.\n');
    const r = seen(n, await engine.resolve(n, options()));
    expect(r).toMatchObject({ status: 'generated', resolution: { kind: 'partial_hit' }, worker_spawned: true, missing: ['focused_tests'] });
    expect(worker.runs).toEqual([['implementation_location', 'focused_tests'], ['focused_tests']]);
  });

  it('is servable only with its certification row and only for the same analyzer', async () => {
    repo = makeRepo(LEVELS);
    const h = harness(repo);
    const worker = staticWorker(h, repo.dataDir);
    const n = levelsNeed(repo);
    await h.engine([worker]).resolve(n, options());
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM evidence_negative_certifications').get()).toEqual({ n: 1 });

    // Another analyzer build (another definition) is not bound by what this one could not do.
    const newer: Worker & { runs: string[][] } = { ...worker, definition: () => blake3('another analyzer build') };
    expect((await h.engine([newer]).resolve(n, options())).workerSpawned).toBe(true);

    // Without its certification row (the last row of its transaction) nothing of it is served.
    h.db.prepare('DELETE FROM evidence_negative_certifications').run();
    expect((await h.engine([worker]).resolve(n, options())).workerSpawned).toBe(true);
    expect((await h.engine([worker]).resolve(n, options())).workerSpawned).toBe(false);
  });
});

describe('a verdict of the static worker', () => {
  it('serves the repeat of an ambiguous answer without workers, cache-only too, until an edit settles it', async () => {
    repo = makeRepo(TWO_SETTINGS);
    const h = harness(repo);
    const worker = staticWorker(h, repo.dataDir);
    const engine = h.engine([worker]);
    const n = need(repo, 'locate.implementation', LOAD_SETTINGS);

    const first = seen(n, await engine.resolve(n, options()));
    expect(first).toMatchObject({ status: 'generated', worker_spawned: true, context: '', satisfied: [], missing: ['implementation_location'] });
    expect(first.resolution).toMatchObject({ kind: 'ambiguous', reason: expect.stringMatching(/src\/client\/settings.ts:1 .*loadSettings; src\/server\/settings.ts:1 .*loadSettings/) });

    const again = seen(n, await engine.resolve(n, options()));
    expect(again).toMatchObject({ status: 'hit', worker_spawned: false, cache_hit: true, context: '', resolution: first.resolution, missing: ['implementation_location'] });
    const cacheOnly = seen(n, await engine.resolve(n, options({ cacheOnly: true })));
    expect(cacheOnly).toMatchObject({ status: 'hit', worker_spawned: false, resolution: first.resolution });
    expect(worker.runs).toHaveLength(1);

    repo.write('src/client/settings.ts', repo.read('src/client/settings.ts').replace('loadSettings', 'loadClientSettings'));
    const settled = seen(n, await engine.resolve(n, options()));
    expect(settled).toMatchObject({ status: 'generated', worker_spawned: true, satisfied: ['implementation_location'] });
    expect(settled.context).toContain('primary: src/server/settings.ts:1-3 loadSettings');
  });

  it('serves the repeat of an every-proposal-rejected answer without workers, for a deterministic worker only', async () => {
    repo = makeRepo(LEVELS);
    const h = harness(repo);
    const wrong = {
      predicate: 'implementation_location' as const,
      payload: { locations: [{ role: 'primary' as const, path: 'src/levels.ts', symbol: 'parseLevel', start_line: 1, end_line: 1 }], gaps: [] },
    };
    const deterministic = Object.assign(scriptedWorker(repo, citing(wrong), { name: 'analyzer' }), { definition: () => blake3('analyzer v1') });
    const n = need(repo, 'locate.implementation', PARSE_LEVEL);
    const engine = h.engine([deterministic]);

    const first = seen(n, await engine.resolve(n, options()));
    expect(first).toMatchObject({ status: 'generated', worker_spawned: true, context: '' });
    expect(first.resolution).toMatchObject({ kind: 'rejected', reason: expect.stringMatching(/every proposal was rejected: analyzer implementation_location: .*parseLevel/) });
    const again = seen(n, await engine.resolve(n, options()));
    expect(again).toMatchObject({ status: 'hit', worker_spawned: false, cache_hit: true, resolution: first.resolution });
    expect(deterministic.calls).toHaveLength(1);

    repo.write('src/levels.ts', `${repo.read('src/levels.ts')}\n`);
    expect((await engine.resolve(n, options())).workerSpawned).toBe(true);
    expect(deterministic.calls).toHaveLength(2);

    // A worker that does not declare itself deterministic is asked again every time.
    const model = scriptedWorker(repo, citing(wrong), { name: 'model', model: true });
    const other = need(repo, 'locate.implementation', { kind: 'symbol', name: 'main' });
    await h.engine([model]).resolve(other, options());
    const repeat = seen(other, await h.engine([model]).resolve(other, options()));
    expect(repeat).toMatchObject({ status: 'generated', worker_spawned: true });
    expect(model.calls).toHaveLength(2);
  });
});
