// The resolution engine's decisions, one named pure function each
// (resolve/outcome.ts, resolve/result.ts): what stops a resolution, why
// nothing could be served, which hit a plan is, whether residual intent
// downgrades it, how units were reused, what counts as a cache hit, which
// earlier runs an answer spared, and when a plan earns a sufficiency
// certificate. Built from plain plans and ladder outcomes; the engine tests
// show the same decisions through real resolutions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blake3, type Digest } from '../../src/core/digest.js';
import type { CompiledNeed } from '../../src/core/need.js';
import type { CachePlan, ServedUnit } from '../../src/resolve/cache-plan.js';
import type { LadderOutcome } from '../../src/resolve/ladder.js';
import {
  blockingResolution,
  bypassReason,
  decideOutcome,
  hitKind,
  residualBypass,
  reuseUnitOf,
  servedResolution,
  unservedResolution,
} from '../../src/resolve/outcome.js';
import { avoidedRuns, isCacheHit, resolutionRow, sufficiencyFor, viewKey } from '../../src/resolve/result.js';
import type { CertificateRow, ClaimRow } from '../../src/store/evidence/certificates.js';
import type { NegativeRow } from '../../src/store/evidence/negatives.js';
import { makeRepo, need, type Repo } from './fixture.js';

let repo: Repo;
let locate: CompiledNeed;
let withTests: CompiledNeed;
let residual: CompiledNeed;
beforeAll(() => {
  repo = makeRepo();
  const subject = { kind: 'symbol' as const, name: 'parseOptions' };
  locate = need(repo, 'locate.implementation', subject);
  withTests = need(repo, 'locate.implementation', subject, 'find it', { required: [{ kind: 'focused_tests', facets: {} }] });
  residual = need(repo, 'locate.implementation', subject, 'find parseOptions and how src/retry.ts uses it');
});
afterAll(() => repo.cleanup());

const ladder = (over: Partial<LadderOutcome> = {}): LadderOutcome => ({
  workersRun: 0,
  modelWorkersStarted: 0,
  issued: new Set(),
  ambiguous: null,
  drift: [],
  rejections: [],
  unresolved: [],
  skipped: [],
  reused: [],
  ...over,
});

const negative = (workerRunId: number | null) => ({ workerRunId }) as unknown as NegativeRow;

function unit(id: string, o: { claims?: number; originRequest?: Digest; workerRunId?: number | null; mask?: number } = {}): ServedUnit {
  const certificate = {
    certificateId: blake3(`cert ${id}`),
    artifactId: blake3(`artifact ${id}`),
    originRequest: o.originRequest ?? blake3('another request'),
    workerRunId: o.workerRunId ?? null,
  } as unknown as CertificateRow;
  const claims = Array.from({ length: o.claims ?? 0 }, (_, i) => ({ claimId: blake3(`claim ${id} ${i}`) }) as unknown as ClaimRow);
  return {
    unit: claims.length > 0 ? 'claim' : 'artifact',
    predicate: 'implementation_location',
    certificate,
    mask: o.mask ?? 1,
    claims,
    payload: { predicate: 'implementation_location', locations: [] } as unknown as ServedUnit['payload'],
  };
}

function plan(n: CompiledNeed, units: ServedUnit[], over: Partial<CachePlan> = {}): CachePlan {
  const obligations = [...n.required, ...n.preferred];
  const covered = units.reduce((m, u) => m | u.mask, 0);
  return {
    obligations,
    requiredMask: (1 << n.required.length) - 1,
    coveredMask: covered,
    units,
    staleArtifactIds: [],
    stalePredicates: [],
    withheld: [],
    contradiction: null,
    ...over,
  };
}

describe('what stops a resolution before anything is served', () => {
  it('a contradiction first, then an ambiguity (the workers verdict), then drift; nothing otherwise', () => {
    expect(blockingResolution({ contradiction: 'A at x; B at y' }, ladder({ ambiguous: ['a', 'b'] }))).toEqual({
      resolution: { kind: 'contradicted', reason: 'A at x; B at y' },
      verdict: false,
    });
    expect(blockingResolution({ contradiction: null }, ladder({ ambiguous: ['src/a.ts:1', 'src/b.ts:1'], drift: ['src/a.ts'] }))).toEqual({
      resolution: { kind: 'ambiguous', reason: 'several equally good definitions; ask again with a qualified name: src/a.ts:1; src/b.ts:1' },
      verdict: true,
    });
    const drift = blockingResolution({ contradiction: null }, ladder({ drift: ['src/a.ts', 'src/b.ts'] }));
    expect(drift).toMatchObject({ resolution: { kind: 'rejected' }, verdict: false });
    expect(drift!.resolution).toHaveProperty('reason', expect.stringContaining('files changed while the worker ran (src/a.ts, src/b.ts)'));
    expect(blockingResolution({ contradiction: null }, ladder())).toBeNull();
    expect(blockingResolution({ contradiction: null }, null)).toBeNull();
  });
});

describe('why nothing of its own is answered (bypass reason)', () => {
  const none = { withheld: [] };
  it('takes the first cause that applies: cache-only, worker reasons, the model-worker limit, withheld evidence, else none', () => {
    const all = ladder({ unresolved: ['static: not found', 'codex: codex turn timeout'], skipped: ['codex'] });
    expect(bypassReason({ withheld: ['runtime_flow'] }, all, true)).toBe('cache-only session and no certified evidence covers this need');
    expect(bypassReason({ withheld: ['runtime_flow'] }, all, false)).toBe('static: not found | codex: codex turn timeout');
    expect(bypassReason({ withheld: ['runtime_flow'] }, ladder({ skipped: ['codex', 'claude'] }), false)).toBe('model-worker limit reached (codex, claude not run)');
    expect(bypassReason({ withheld: ['runtime_flow'] }, ladder({ skipped: ['codex'], workersRun: 1 }), false)).toBe(
      'the role profile does not let cached runtime_flow be served and no worker produced it',
    );
    expect(bypassReason(none, null, false)).toBe('no worker could resolve this need');
  });
});

describe('the resolution when no unit can be served', () => {
  const empty = { staleArtifactIds: [] as Digest[], withheld: [] };
  it('is the rejection verdict only when some worker ran or a negative outcome stood in for one', () => {
    const rejected = unservedResolution(empty, ladder({ rejections: ['static focused_tests: no such test'], workersRun: 1 }), false);
    expect(rejected).toEqual({ resolution: { kind: 'rejected', reason: 'every proposal was rejected: static focused_tests: no such test' }, verdict: true });
    expect(unservedResolution(empty, ladder({ rejections: ['x'], reused: [negative(3)] }), false).verdict).toBe(true);
    expect(unservedResolution(empty, ladder({ rejections: ['x'] }), false).resolution.kind).toBe('bypass');
  });

  it('is stale when certified evidence changed and no worker recomputed it, a bypass otherwise', () => {
    const stale = { staleArtifactIds: [blake3('a'), blake3('b')], withheld: [] };
    expect(unservedResolution(stale, null, true)).toEqual({
      resolution: { kind: 'stale', artifact_ids: stale.staleArtifactIds, reason: '2 certified artifact(s) rest on files that changed and no worker could recompute them here' },
      verdict: false,
    });
    expect(unservedResolution(stale, ladder({ workersRun: 1, unresolved: ['static: gone'] }), false)).toEqual({
      resolution: { kind: 'bypass', reason: 'static: gone' },
      verdict: false,
    });
  });
});

describe('which hit a served plan is', () => {
  it('needs every required obligation covered and every unit from the cache', () => {
    const u = unit('a', { originRequest: locate.requestDigest });
    expect(hitKind(locate, plan(locate, [u]), [u])).toBe('exact_hit');
    expect(hitKind(locate, plan(locate, [u]), [])).toBeNull();
    const partial = unit('p', { mask: 1 });
    expect(hitKind(withTests, plan(withTests, [partial]), [partial])).toBeNull();
    expect(hitKind(locate, plan(locate, []), [])).toBeNull();
  });

  it('is exact for the request that certified it, coverage for another, composite for several units, claim kinds for claims', () => {
    const other = unit('o');
    expect(hitKind(locate, plan(locate, [other]), [other])).toBe('coverage_hit');
    const [a, b] = [unit('a', { mask: 1 }), unit('b', { mask: 2 })];
    expect(hitKind(withTests, plan(withTests, [a, b]), [a, b])).toBe('composite_hit');
    const claim = unit('c', { claims: 2 });
    expect(hitKind(locate, plan(locate, [claim]), [claim])).toBe('claim_hit');
    const claim2 = unit('d', { claims: 1, mask: 2 });
    expect(hitKind(withTests, plan(withTests, [a, claim2]), [a, claim2])).toBe('claim_composite_hit');
  });
});

describe('residual intent', () => {
  it('downgrades whatever was served to a bypass naming the anchors; a need without it is left alone', () => {
    expect(residualBypass(locate)).toBeNull();
    const r = residualBypass(residual);
    expect(r).toMatchObject({ kind: 'bypass' });
    expect(r).toHaveProperty('reason', expect.stringContaining('the task names src/retry.ts, which the typed need does not carry'));
  });

  it('keeps what is satisfied and served in the outcome: only the resolution kind changes', () => {
    const u = unit('a', { originRequest: residual.requestDigest });
    const outcome = decideOutcome(residual, plan(residual, [u]), new Set(), { ladder: null, cacheOnly: false, sufficiencyId: null });
    expect(outcome.resolution.kind).toBe('bypass');
    expect(outcome).toMatchObject({ satisfied: ['implementation_location'], missing: [], cacheHit: true, reuseUnit: 'artifact', verdict: false });
    expect(outcome.served).toEqual([u]);
  });
});

describe('the resolution of a served plan', () => {
  const ids = { artifactIds: [blake3('art')], claimIds: [blake3('claim')], planId: blake3('plan'), sufficiencyId: blake3('suff') };
  it('carries the certificate on hits and the claims on claim hits', () => {
    expect(servedResolution('exact_hit', true, ids, [], null)).toEqual({ kind: 'exact_hit', artifact_ids: ids.artifactIds, certificate_id: ids.sufficiencyId, plan_id: ids.planId });
    expect(servedResolution('claim_hit', true, ids, [], null)).toEqual({
      kind: 'claim_hit',
      artifact_ids: ids.artifactIds,
      claim_ids: ids.claimIds,
      certificate_id: ids.sufficiencyId,
      plan_id: ids.planId,
    });
  });

  it('is a partial hit saying why the rest is missing when something came from the cache, else a miss', () => {
    const why = ladder({ workersRun: 1, unresolved: ['static: focused_tests: no test exercises parseOptions: details'] });
    expect(servedResolution(null, true, ids, ['focused_tests'], why)).toEqual({
      kind: 'partial_hit',
      artifact_ids: ids.artifactIds,
      claim_ids: ids.claimIds,
      plan_id: ids.planId,
      reason: 'focused_tests missing: static: focused_tests',
    });
    expect(servedResolution(null, false, ids, ['focused_tests'], null)).toEqual({ kind: 'miss' });
  });
});

describe('how the served units were reused', () => {
  it('is none, artifact, claim or mixed', () => {
    expect(reuseUnitOf([])).toBe('none');
    expect(reuseUnitOf([unit('a'), unit('b')])).toBe('artifact');
    expect(reuseUnitOf([unit('c', { claims: 1 })])).toBe('claim');
    expect(reuseUnitOf([unit('a'), unit('c', { claims: 1 })])).toBe('mixed');
  });
});

describe('what the engine answers and records', () => {
  it('counts cached units, or a verdict from negative outcomes with no worker, as a cache hit', () => {
    expect(isCacheHit({ cacheHit: true, verdict: false }, ladder({ workersRun: 1 }))).toBe(true);
    expect(isCacheHit({ cacheHit: false, verdict: true }, ladder({ reused: [negative(1)] }))).toBe(true);
    expect(isCacheHit({ cacheHit: false, verdict: true }, ladder({ reused: [negative(1)], workersRun: 1 }))).toBe(false);
    expect(isCacheHit({ cacheHit: false, verdict: true }, null)).toBe(false);
    expect(isCacheHit({ cacheHit: false, verdict: false }, ladder({ reused: [negative(1)] }))).toBe(false);
  });

  it('names each spared worker run once, from cached units and reused negative outcomes, and none when a worker ran', () => {
    const cached = unit('a', { workerRunId: 7 });
    const issuedNow = unit('b', { workerRunId: 8 });
    const outcome = { cacheHit: true, served: [cached, issuedNow, unit('c')] };
    const issued = new Set([issuedNow.certificate.certificateId]);
    expect(avoidedRuns(outcome, issued, ladder({ reused: [negative(7), negative(9), negative(null)] }))).toEqual([7, 9]);
    expect(avoidedRuns({ cacheHit: false, served: [cached] }, issued, null)).toEqual([]);
    expect(avoidedRuns(outcome, issued, ladder({ workersRun: 1, reused: [negative(9)] }))).toEqual([]);
  });

  it('issues a sufficiency certificate only for a served, complete, residual-free, uncontradicted plan', () => {
    const u = unit('a');
    expect(sufficiencyFor(locate, plan(locate, [u]))).toMatchObject({ needId: locate.id });
    expect(sufficiencyFor(locate, plan(locate, []))).toBeNull();
    expect(sufficiencyFor(withTests, plan(withTests, [unit('p', { mask: 1 })]))).toBeNull();
    expect(sufficiencyFor(residual, plan(residual, [u]))).toBeNull();
    expect(sufficiencyFor(locate, plan(locate, [u], { contradiction: 'x' }))).toBeNull();
  });

  it('keys the rendered view by what it shows and the budget, and records a hit only when no worker ran', () => {
    const u = unit('a');
    const outcome = decideOutcome(locate, plan(locate, [u]), new Set(), { ladder: null, cacheOnly: false, sufficiencyId: null });
    expect(viewKey(locate, outcome, 100)).toBe(viewKey(locate, { ...outcome }, 100));
    expect(viewKey(locate, outcome, 100)).not.toBe(viewKey(locate, outcome, 200));
    expect(viewKey(locate, outcome, null)).not.toBe(viewKey(locate, { ...outcome, served: [unit('b')] }, null));
    const facts = { repositoryRoot: '/repo', context: 'ctx é', ladder: ladder({ workersRun: 1 }), cacheHit: true, sufficiencyId: null, durationMs: 5, avoided: [] };
    expect(resolutionRow(locate, outcome, facts)).toMatchObject({ kind: 'coverage_hit', cacheHit: false, workersRun: 1, contextBytes: 6 });
    expect(resolutionRow(locate, outcome, { ...facts, ladder: null })).toMatchObject({ cacheHit: true, workersRun: 0 });
  });
});
