// Certified evidence handed to prepare_change: the artifact and claim ids a
// main model names are served only while they would be served by need_context
// right now, and every focused test among them becomes a test plan with the
// files its certification rests on.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Digest } from '../../src/core/digest.js';
import type { Proposal } from '../../src/core/contracts.js';
import type { SubjectKind } from '../../src/core/semantic.js';
import type { CertifiedEvidenceIds } from '../../src/core/certified.js';
import type { ImplementationLocation } from '../../src/core/contracts.js';
import { CertifiedEvidenceError, loadCertifiedEvidence } from '../../src/resolve/certified-context.js';
import { getCertificate, invalidate, loadClaims } from '../../src/store/evidence/certificates.js';
import { FT_DRY_RUN, IL_PARSE_OPTIONS, citing, harness, makeRepo, need, options, scriptedWorker, type Harness, type Repo } from './fixture.js';

let repo: Repo;
let h: Harness;
beforeEach(() => {
  repo = makeRepo();
  h = harness(repo);
});
afterEach(() => {
  h.db.close();
  repo.cleanup();
});

const PARSE = { kind: 'symbol' as const, name: 'parseOptions' };
const DRY = { kind: 'cli_option' as const, name: '--dry-run' };

/** Certifies `proposal` through the engine and returns the artifact id a later hit reports. */
async function certify(route: 'locate.implementation' | 'tests.relevant', subject: { kind: SubjectKind; name: string }, proposal: Proposal, complete = true): Promise<Digest> {
  const engine = h.engine([scriptedWorker(repo, citing(proposal), { observationComplete: complete })]);
  await engine.resolve(need(repo, route, subject), options());
  const hit = await h.engine([]).resolve(need(repo, route, subject), options());
  expect(hit.resolution.kind).toBe('exact_hit');
  const ids = (hit.resolution as { artifact_ids: readonly Digest[] }).artifact_ids;
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

function claimsOf(artifactId: Digest) {
  return loadClaims(h.db, getCertificate(h.db, artifactId)!.certificateId);
}

function load(ids: Partial<CertifiedEvidenceIds>) {
  return loadCertifiedEvidence(h.db, repo.root, { artifactIds: ids.artifactIds ?? [], claimIds: ids.claimIds ?? [] });
}

/** The one-line refusal for `ids`. */
function refusal(ids: Partial<CertifiedEvidenceIds>): string {
  try {
    load(ids);
  } catch (e) {
    expect(e).toBeInstanceOf(CertifiedEvidenceError);
    const message = (e as Error).message;
    expect(message).not.toMatch(/\n/);
    return message;
  }
  throw new Error('expected the ids to be refused');
}

describe('loadCertifiedEvidence', () => {
  it('serves fresh artifacts and claims as labelled JSON, and focused tests as plans with their dependencies', async () => {
    const il = await certify('locate.implementation', PARSE, IL_PARSE_OPTIONS);
    const ft = await certify('tests.relevant', DRY, FT_DRY_RUN);
    const primary = claimsOf(il).find((c) => c.kind === 'location' && (c.payload as { location: { role: string } }).location.role === 'primary')!;
    const testClaim = claimsOf(ft)[0]!;

    const ctx = load({ artifactIds: [il, ft], claimIds: [primary.claimId, testClaim.claimId] });

    expect(ctx.items.map((i) => [i.kind, i.id, i.label])).toEqual([
      ['artifact', il, 'implementation_location symbol:parseOptions src/config.ts:5-8'],
      ['artifact', ft, 'focused_tests cli_option:--dry-run test/deploy.test.ts:5-7'],
      ['claim', primary.claimId, 'implementation_location symbol:parseOptions src/config.ts:5-8'],
      ['claim', testClaim.claimId, 'focused_tests cli_option:--dry-run test/deploy.test.ts:5-7'],
    ]);
    expect(JSON.parse(ctx.items[0]!.json)).toEqual(IL_PARSE_OPTIONS.payload);
    expect(JSON.parse(ctx.items[2]!.json)).toEqual({ kind: 'location', location: (IL_PARSE_OPTIONS.payload as ImplementationLocation).locations[0] });
    for (const item of ctx.items) expect(Buffer.byteLength(item.json)).toBeLessThanOrEqual(8_192);

    expect(ctx.testPlans.map((p) => p.source_id)).toEqual([ft, testClaim.claimId]);
    for (const p of ctx.testPlans) {
      expect(p.plan).toEqual({ ...FT_DRY_RUN.payload, evidence_paths: ['src/deploy.ts', 'test/deploy.test.ts'] });
      const paths = p.dependencies.map((d) => d.path);
      expect(paths).toEqual(expect.arrayContaining(['package.json', 'src/deploy.ts', 'test/deploy.test.ts']));
      for (const d of p.dependencies) expect(d.digest).toMatch(/^b3:[0-9a-f]{64}$/);
    }
  });

  it('refuses an artifact after a one-byte edit of a file it rests on, naming the id and the file', async () => {
    const ft = await certify('tests.relevant', DRY, FT_DRY_RUN);
    expect(load({ artifactIds: [ft] }).testPlans).toHaveLength(1);
    repo.write('test/deploy.test.ts', repo.read('test/deploy.test.ts') + '\n');
    expect(refusal({ artifactIds: [ft] })).toBe(`artifact ${ft} is stale: test/deploy.test.ts changed since it was certified`);
    const testClaim = claimsOf(ft)[0]!.claimId;
    expect(refusal({ claimIds: [testClaim] })).toBe(`claim ${testClaim} is stale: test/deploy.test.ts changed since it was certified`);
  });

  it('keeps a primary-location claim fresh when a supporting file of its artifact changed', async () => {
    const il = await certify('locate.implementation', PARSE, IL_PARSE_OPTIONS);
    const claims = claimsOf(il);
    const role = (c: (typeof claims)[number]) => (c.payload as { location: { role: string } }).location.role;
    const primary = claims.find((c) => role(c) === 'primary')!.claimId;
    const supporting = claims.find((c) => role(c) === 'supporting')!.claimId;
    repo.write('src/deploy.ts', repo.read('src/deploy.ts') + '// touched\n');

    expect(refusal({ artifactIds: [il] })).toBe(`artifact ${il} is stale: src/deploy.ts changed since it was certified`);
    expect(refusal({ claimIds: [supporting] })).toMatch(/is stale: src\/deploy.ts changed/);
    const ctx = load({ claimIds: [primary] });
    expect(ctx.items).toEqual([expect.objectContaining({ id: primary, kind: 'claim', label: 'implementation_location symbol:parseOptions src/config.ts:5-8' })]);
    expect(ctx.testPlans).toEqual([]);
  });

  it('refuses unknown, invalidated and never-certified ids, one line each', async () => {
    const unknown = `b3:${'ab'.repeat(32)}` as Digest;
    expect(refusal({ artifactIds: [unknown] })).toBe(`artifact ${unknown} is not known to this evidence store`);
    expect(refusal({ claimIds: [unknown] })).toBe(`claim ${unknown} is not known to this evidence store`);

    const il = await certify('locate.implementation', PARSE, IL_PARSE_OPTIONS);
    const primary = claimsOf(il)[0]!.claimId;
    invalidate(h.db, il, 'wrong definition', Date.now());
    expect(refusal({ artifactIds: [il] })).toBe(`artifact ${il} was invalidated: wrong definition`);
    expect(refusal({ claimIds: [primary] })).toBe(`claim ${primary} was invalidated: wrong definition`);

    // A certificate whose certification never committed (a process killed mid-transaction) vouches for nothing.
    const ft = await certify('tests.relevant', DRY, FT_DRY_RUN);
    h.db.prepare('DELETE FROM evidence_certifications WHERE certificate_id = ?').run(getCertificate(h.db, ft)!.certificateId);
    expect(refusal({ artifactIds: [ft] })).toBe(`artifact ${ft} has no certified certificate`);
    // The first bad id is named even when good ones come before it.
    expect(() => load({ artifactIds: [unknown, ft] })).toThrow(unknown);
  });

  it('holds a snapshot_exact artifact to its own snapshot: an unrelated edit refuses it', async () => {
    const il = await certify('locate.implementation', PARSE, IL_PARSE_OPTIONS, false);
    expect(getCertificate(h.db, il)!.scope).toBe('snapshot_exact');
    expect(load({ artifactIds: [il] }).items).toHaveLength(1);
    repo.write('src/unrelated.ts', 'export const answer = 43;\n');
    expect(refusal({ artifactIds: [il] })).toBe(`artifact ${il} is bound to an exact source snapshot and the worktree has changed since it was certified`);
  });

  it('refuses evidence certified for another repository that shares the data directory', async () => {
    const il = await certify('locate.implementation', PARSE, IL_PARSE_OPTIONS);
    const other = makeRepo();
    try {
      other.git('commit', '-q', '--amend', '-m', 'another history');
      expect(() => loadCertifiedEvidence(h.db, other.root, { artifactIds: [il], claimIds: [] })).toThrow(`artifact ${il} was certified for another repository`);
    } finally {
      other.cleanup();
    }
  });
});
