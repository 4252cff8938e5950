import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { invalidate } from '../../src/store/evidence/certificates.js';
import { rejectionsForNeed, stats } from '../../src/store/evidence/accounting.js';
import { flushBookkeeping, pendingBookkeeping } from '../../src/store/bookkeeping.js';
import { createEngine } from '../../src/resolve/engine.js';
import { FT_DRY_RUN, IL_DRY_RUN, IL_PARSE_OPTIONS, RF_DRY_RUN, citing, harness, makeRepo, need, options, scriptedWorker, type Repo } from './fixture.js';

let repo: Repo;
beforeEach(() => {
  repo = makeRepo();
});
afterEach(() => repo.cleanup());

const PARSE = { kind: 'symbol' as const, name: 'parseOptions' };
const DRY = { kind: 'cli_option' as const, name: '--dry-run' };

describe('cache hits', () => {
  it('serves a repeat as exact_hit with zero workers, and other wording as coverage_hit', async () => {
    const h = harness(repo);
    const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
    const engine = h.engine([worker]);
    const first = await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(first.resolution.kind).toBe('miss');
    expect(first.workerSpawned).toBe(true);
    expect(first.satisfied).toEqual(['implementation_location']);
    expect(first.context).toContain('primary: src/config.ts:5-8 parseOptions');

    const again = await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(again.resolution.kind).toBe('exact_hit');
    expect(again.workerSpawned).toBe(false);
    expect(again.cacheHit).toBe(true);
    expect(again.reuseUnit).toBe('artifact');
    expect(again.context).toContain("export function parseOptions(argv: string[]): Options {");
    expect(worker.calls).toHaveLength(1);

    const reworded = await engine.resolve(need(repo, 'locate.implementation', PARSE, 'where is it defined?'), options());
    expect(reworded.resolution.kind).toBe('coverage_hit');
    expect(worker.calls).toHaveLength(1);
    const row = stats(h.db).find((r) => r.route === 'locate.implementation' && r.model === 'scripted');
    expect(row?.workersAvoided).toBe(2);
    expect(row?.costAvoidedUsd).toBe(0);
  });

  it('composes two artifacts into a composite_hit and reports per-obligation coverage', async () => {
    const h = harness(repo);
    const worker = scriptedWorker(repo, citing(IL_DRY_RUN, RF_DRY_RUN));
    const engine = h.engine([worker]);
    const first = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(first.satisfied).toEqual(['implementation_location', 'runtime_flow']);
    expect(first.missing).toEqual(['focused_tests']);
    const again = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(again.resolution.kind).toBe('composite_hit');
    expect(again.workerSpawned).toBe(false);
    expect(again.context).toMatch(/flow \(default\):\n {2}1 producer {2,}src\/config.ts:6 const dryRun = argv.includes\('--dry-run'\);/);
    expect(again.context).toContain('satisfied: implementation_location, runtime_flow   missing: focused_tests');
  });

  it('tells the next worker of the same resolution what the first one had certified', async () => {
    const h = harness(repo);
    const ilOnly = scriptedWorker(repo, citing(IL_DRY_RUN), { name: 'first' });
    const rf = scriptedWorker(repo, citing(RF_DRY_RUN, FT_DRY_RUN), { name: 'model', model: true });
    const r = await h.engine([ilOnly, rf]).resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(rf.calls[0]!.missing.map((o) => o.predicate)).toEqual(['runtime_flow', 'focused_tests']);
    expect(rf.calls[0]!.covered.map((c) => c.predicate)).toEqual(['implementation_location']);
    expect(rf.calls[0]!.covered[0]!.summary).toContain('src/config.ts');
    expect(r.missing).toEqual([]);
  });

  it('runs the next worker only for the missing obligations and serves a partial_hit', async () => {
    const h = harness(repo);
    const ilOnly = scriptedWorker(repo, citing(IL_DRY_RUN), { name: 'first' });
    const first = await h.engine([ilOnly]).resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(first.satisfied).toEqual(['implementation_location']);
    expect(first.missing).toEqual(['runtime_flow', 'focused_tests']);

    const rf = scriptedWorker(repo, citing(RF_DRY_RUN, FT_DRY_RUN), { name: 'model', model: true });
    const second = await h.engine([rf]).resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(rf.calls[0]!.missing.map((o) => o.predicate)).toEqual(['runtime_flow', 'focused_tests']);
    expect(rf.calls[0]!.covered.map((c) => c.predicate)).toEqual(['implementation_location']);
    expect(second.resolution.kind).toBe('partial_hit');
    expect(second.modelWorkersStarted).toBe(1);
    expect(second.missing).toEqual([]);
    expect(second.context).toContain("focused test: npx vitest run test/deploy.test.ts -t 'skips upload in dry run'");

    const third = await h.engine([rf]).resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(third.resolution.kind).toBe('composite_hit');
    expect(rf.calls).toHaveLength(1);
  });

  it('says why obligations are missing: a timed-out model worker, without quoting its output', async () => {
    const h = harness(repo);
    const ilOnly = scriptedWorker(repo, citing(IL_DRY_RUN), { name: 'static-like' });
    const timedOut = scriptedWorker(repo, citing(), {
      name: 'codex',
      model: true,
      outcome: { kind: 'unresolved', reason: 'codex turn timeout: upstream said MODEL-TEXT-4711' },
    });
    const r = await h.engine([ilOnly, timedOut]).resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(r.missing).toEqual(['runtime_flow', 'focused_tests']);
    expect(r.resolution).toMatchObject({ kind: 'miss', reason: 'runtime_flow, focused_tests missing: codex: codex turn timeout' });
    expect(JSON.stringify(r)).not.toContain('MODEL-TEXT-4711');

    // The limit is a reason too: no model worker left for this connection.
    const limited = await h.engine([timedOut]).resolve(need(repo, 'trace.state-flow', DRY), options({ modelWorkersLeft: 0 }));
    expect(limited.resolution).toMatchObject({ kind: 'partial_hit', reason: expect.stringMatching(/model-worker limit reached \(codex not run\)/) });
  });

  it('recomputes a stale preferred obligation with the free worker only, never a model worker', async () => {
    const h = harness(repo);
    const flow = scriptedWorker(repo, citing(IL_DRY_RUN, RF_DRY_RUN), { name: 'flow' });
    await h.engine([flow]).resolve(need(repo, 'trace.state-flow', DRY), options());
    const free = scriptedWorker(repo, citing(FT_DRY_RUN), { name: 'free' });
    const model = scriptedWorker(repo, citing(FT_DRY_RUN), { name: 'model', model: true });
    const engine = h.engine([free, model]);
    // Nothing stale yet: the preferred test is simply missing, and nothing runs for it.
    const before = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(before.resolution.kind).toBe('composite_hit');
    expect(free.calls).toHaveLength(0);
    // Certify a focused test once (a need that requires it).
    await engine.resolve(need(repo, 'tests.relevant', DRY), options());
    expect(free.calls).toHaveLength(1);
    const first = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(first.missing).toEqual([]);

    // A test-file edit stales only the focused test, which trace prefers but does not require.
    repo.write('test/deploy.test.ts', repo.read('test/deploy.test.ts') + '// edited\n');
    const again = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(free.calls).toHaveLength(2);
    expect(free.calls[1]!.missing.map((o) => o.predicate)).toEqual(['focused_tests']);
    expect(model.calls).toHaveLength(0);
    expect(again.missing).toEqual([]);
    expect(again.resolution.kind).toBe('partial_hit');
    expect(again.context).toContain("focused test: npx vitest run test/deploy.test.ts -t 'skips upload in dry run'");

    // Preferred evidence that was never found does not start anything.
    const third = await engine.resolve(need(repo, 'trace.state-flow', DRY), options());
    expect(third.resolution.kind).toBe('composite_hit');
    expect(free.calls).toHaveLength(2);
  });

  it('skips model workers when the connection has none left, and never runs workers cache-only', async () => {
    const h = harness(repo);
    const model = scriptedWorker(repo, citing(IL_PARSE_OPTIONS), { model: true });
    const limited = await h.engine([model]).resolve(need(repo, 'locate.implementation', PARSE), options({ modelWorkersLeft: 0 }));
    expect(limited.resolution).toMatchObject({ kind: 'bypass', reason: expect.stringMatching(/model-worker limit/) });
    const cacheOnly = await h.engine([model]).resolve(need(repo, 'locate.implementation', PARSE), options({ cacheOnly: true }));
    expect(cacheOnly.resolution).toMatchObject({ kind: 'bypass', reason: expect.stringMatching(/cache-only/) });
    expect(model.calls).toHaveLength(0);
  });
});

describe('freshness', () => {
  async function certifiedParse() {
    const h = harness(repo);
    const worker = scriptedWorker(repo, citing(IL_PARSE_OPTIONS));
    const engine = h.engine([worker]);
    await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    return { h, worker, engine };
  }

  it('keeps a zero-worker hit after an unrelated edit', async () => {
    const { worker, engine } = await certifiedParse();
    repo.write('src/unrelated.ts', 'export const answer = 43;\n');
    repo.write('src/new.ts', 'export {};\n');
    const r = await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution.kind).toBe('exact_hit');
    expect(worker.calls).toHaveLength(1);
  });

  it('recomputes after a one-byte whitespace edit of a dependency, and reports stale when it cannot', async () => {
    const { h, worker, engine } = await certifiedParse();
    repo.write('src/config.ts', repo.read('src/config.ts').replace('export function', 'export  function'));
    const cached = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(cached.resolution.kind).toBe('stale');
    expect(cached.context).toBe('');
    const r = await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(worker.calls).toHaveLength(2);
    expect(r.resolution.kind).toBe('miss');
    expect(r.cacheHit).toBe(false);
    expect(r.context).toContain('export  function parseOptions');
  });

  // A row of an older or damaged shape is unusable (stale), never a crash on the hit path.
  it.each([
    ['an older payload shape', '{"location":{"file":"src/config.ts","line":5}}'],
    ['text that is not JSON', '{"locations": ['],
  ])('treats a stored artifact payload of %s as unusable: its sound claims serve, then stale', async (_what, payload) => {
    const { h } = await certifiedParse();
    h.db.prepare('UPDATE evidence_artifacts SET payload = ?').run(payload);
    const r = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution.kind).toBe('claim_hit');
    expect(r.context).toContain('primary: src/config.ts:5-8');
    expect(r.workerSpawned).toBe(false);
    h.db.prepare('UPDATE evidence_claims SET payload = ?').run(payload);
    const again = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(again.resolution.kind).toBe('stale');
  });

  it('does not serve a claim whose stored payload has an older shape', async () => {
    const { h } = await certifiedParse();
    repo.write('src/deploy.ts', repo.read('src/deploy.ts') + '// touched\n');
    h.db.prepare("UPDATE evidence_claims SET payload = ? WHERE kind = 'location'").run('{"kind":"location","loc":"src/config.ts:5"}');
    const r = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution.kind).toBe('stale');
  });

  it('treats a deleted dependency as stale', async () => {
    const { h } = await certifiedParse();
    repo.remove('src/config.ts');
    const r = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution.kind).toBe('stale');
  });

  it('keeps serving the primary location as a claim after a supporting file changes', async () => {
    const { h, worker, engine } = await certifiedParse();
    repo.write('src/deploy.ts', repo.read('src/deploy.ts') + '// touched\n');
    const r = await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution.kind).toBe('claim_hit');
    expect(r.reuseUnit).toBe('claim');
    expect(r.claimIds).toHaveLength(1);
    expect(r.workerSpawned).toBe(false);
    expect(r.context).toContain('primary: src/config.ts:5-8');
    expect(r.context).not.toContain('supporting: src/deploy.ts');
    expect(worker.calls).toHaveLength(1);
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM evidence_resolutions WHERE cache_hit = 1').get()).toEqual({ n: 1 });
  });

  it('certifies nothing when a file changes while the worker runs', async () => {
    const h = harness(repo);
    const editing = scriptedWorker(repo, (_input, observe) => {
      observe('src/config.ts');
      observe('src/deploy.ts');
      repo.write('src/config.ts', repo.read('src/config.ts') + '\n');
      return [IL_PARSE_OPTIONS];
    });
    const r = await h.engine([editing]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution).toMatchObject({ kind: 'rejected', reason: expect.stringMatching(/changed while the worker ran \(src\/config.ts\)/) });
    expect(r.context).toBe('');
    expect(h.db.prepare('SELECT COUNT(*) AS n FROM evidence_certifications').get()).toEqual({ n: 0 });
    const cached = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(cached.resolution.kind).toBe('bypass');
  });
});

describe('unsafe outcomes', () => {
  it('stores rejected proposals with reasons and never serves them', async () => {
    const h = harness(repo);
    const liar = scriptedWorker(repo, () => [
      { predicate: 'implementation_location', payload: { locations: [{ role: 'primary', path: 'src/config.ts', symbol: 'loadConfig', start_line: 5, end_line: 8 }], gaps: [] } },
    ]);
    const n = need(repo, 'locate.implementation', PARSE);
    const r = await h.engine([liar]).resolve(n, options());
    expect(r.resolution).toMatchObject({ kind: 'rejected', reason: expect.stringMatching(/symbol loadConfig does not occur/) });
    expect(rejectionsForNeed(h.db, n.id)[0]!.reasons[0]).toMatch(/loadConfig/);
    const again = await h.engine([liar]).resolve(n, options());
    expect(again.cacheHit).toBe(false);
    expect(liar.calls).toHaveLength(2);
  });

  it('queues a rejection for the group commit after the answer instead of committing it on the answer’s path', async () => {
    const h = harness(repo);
    const liar = scriptedWorker(repo, () => [
      { predicate: 'implementation_location', payload: { locations: [{ role: 'primary', path: 'src/config.ts', symbol: 'loadConfig', start_line: 5, end_line: 8 }], gaps: [] } },
    ]);
    const n = need(repo, 'locate.implementation', PARSE);
    // The engine as a server runs it: nothing flushed after the answer.
    const r = await createEngine({ db: h.db, repoRoot: repo.root, explorers: [liar], profile: BUILTIN_LOCAL_PROFILE }).resolve(n, options());
    expect(r.resolution.kind).toBe('rejected');
    expect(rejectionsForNeed(h.db, n.id)).toEqual([]);
    expect(pendingBookkeeping(h.db)).toBeGreaterThan(0);
    flushBookkeeping(h.db);
    expect(rejectionsForNeed(h.db, n.id).map((row) => row.predicate)).toEqual(['implementation_location']);
  });

  it('reports ambiguous subjects with their candidates', async () => {
    const h = harness(repo);
    const w = scriptedWorker(repo, () => [], { outcome: { kind: 'ambiguous', candidates: ['src/a.ts:3 parse', 'src/b.ts:9 parse'] } });
    const r = await h.engine([w]).resolve(need(repo, 'locate.implementation', { kind: 'symbol', name: 'parse' }), options());
    expect(r.resolution).toMatchObject({ kind: 'ambiguous', reason: expect.stringContaining('src/a.ts:3 parse; src/b.ts:9 parse') });
    expect(r.context).toBe('');
  });

  it('reports contradicted primaries until one is invalidated', async () => {
    const h = harness(repo);
    await h.engine([scriptedWorker(repo, citing(IL_PARSE_OPTIONS))]).resolve(need(repo, 'locate.implementation', PARSE), options());
    const other = {
      predicate: 'implementation_location' as const,
      payload: { locations: [{ role: 'primary' as const, path: 'src/config.ts', symbol: 'parseOptions', start_line: 5, end_line: 7 }], gaps: [] },
    };
    const advisory = { ...BUILTIN_LOCAL_PROFILE, authority: { implementation_location: 'advisory' as const } };
    const second = await h.engine([scriptedWorker(repo, citing(other))], advisory).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(second.context).toContain('primary: src/config.ts:5-7');

    const r = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(r.resolution.kind).toBe('contradicted');
    expect(r.context).toBe('');
    const reason = (r.resolution as { reason: string }).reason;
    const wrong = /(b3:[0-9a-f]{64}) at src\/config.ts:5-7/.exec(reason)![1]!;
    expect(invalidate(h.db, wrong, 'wrong range', Date.now())).toBe(1);
    const after = await h.engine([]).resolve(need(repo, 'locate.implementation', PARSE), options());
    expect(after.resolution.kind).toBe('exact_hit');
    expect(after.context).toContain('src/config.ts:5-8');
  });

  it('never serves cached evidence as complete when the task names an anchor the need does not carry', async () => {
    const h = harness(repo);
    const engine = h.engine([scriptedWorker(repo, citing(IL_PARSE_OPTIONS))]);
    await engine.resolve(need(repo, 'locate.implementation', PARSE), options());
    const r = await engine.resolve(need(repo, 'locate.implementation', PARSE, 'and how does --force interact?'), options());
    expect(r.resolution).toMatchObject({ kind: 'bypass', reason: expect.stringContaining('--force') });
    expect(r.satisfied).toEqual(['implementation_location']);
    expect(r.context).toContain('not covered: the task also names --force');
    expect(r.workerSpawned).toBe(false);
  });
});
