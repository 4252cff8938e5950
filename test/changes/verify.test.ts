import { describe, it, expect, afterEach } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { blake3 } from '../../src/core/digest.js';
import { openDb } from '../../src/store/db.js';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { beginRepair, listEvents, loadChange, loadPatch } from '../../src/changes/store.js';
import { verifyChangeResultSchema, type CertifiedTestPlan } from '../../src/changes/model.js';
import { git } from '../support/git.js';
import { ARGS, CRITERIA, deps, FIXED_ADD, goodImplementer, makeEnv, profile, script, signal, verdictVerifier, write, type Env } from './fixture.js';

let env: Env;
afterEach(() => env?.cleanup());

const REPAIR_IMPLEMENTER = `const prompt = fs.readFileSync(0, 'utf8');
const cur = fs.readFileSync('src/add.mjs', 'utf8');
fs.writeFileSync('src/add.mjs', prompt.includes('## Repair') ? cur + '// REPAIRED\\n' : ${JSON.stringify(FIXED_ADD)});`;

/** Repairable until the file carries the repair marker, then verified. */
function repairAwareVerifier(e: Env, always = false): string {
  const cov = JSON.stringify(CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: 'read' })));
  return script(
    e,
    always ? 'always-repairable' : 'repair-aware',
    `const done = ${always ? 'false' : "fs.readFileSync('src/add.mjs', 'utf8').includes('REPAIRED')"};
console.log(JSON.stringify(done ? { verdict: 'verified', acceptance_coverage: ${cov}, findings: [] }
  : { verdict: 'repairable', acceptance_coverage: ${cov}, findings: ['add a REPAIRED marker'] }));`,
  );
}

describe('verify_change', () => {
  it('inconclusive when the read-only verifier modifies its checkout, and re-runs afterwards', async () => {
    env = makeEnv();
    const tamper = script(env, 'tamper', `fs.writeFileSync('src/add.mjs', 'tampered\\n'); console.log(JSON.stringify({verdict:'verified',acceptance_coverage:${JSON.stringify(CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: '' })))},findings:[]}));`);
    const d = deps(env, profile(goodImplementer(env), tamper));
    const { change_id } = await prepareChange(d, ARGS, signal());
    const r = await verifyChange(d, { change_id }, signal());
    expect(r.status).toBe('inconclusive');
    expect(r.findings[0]).toMatch(/modified its checkout: src\/add.mjs/);
    const again = await verifyChange(d, { change_id }, signal());
    expect(again.verifier_started).toBe(true);
  });

  it('inconclusive when the verifier prints no verdict; a rejected verdict is cached', async () => {
    env = makeEnv();
    const garbage = script(env, 'garbage', `console.log('LGTM');`);
    const d = deps(env, profile(goodImplementer(env), garbage));
    const { change_id } = await prepareChange(d, ARGS, signal());
    expect((await verifyChange(d, { change_id }, signal())).status).toBe('inconclusive');
    const rejecting = deps(env, profile(goodImplementer(env), verdictVerifier(env, 'rejected', { findings: ['breaks callers'] })));
    const first = await verifyChange(rejecting, { change_id }, signal());
    expect(first).toMatchObject({ status: 'rejected', verifier_started: true });
    expect(await verifyChange(rejecting, { change_id }, signal())).toMatchObject({ status: 'rejected', verifier_started: false, verification_id: first.verification_id });
  });

  it('performs one repair from the original base and verifies the new revision', async () => {
    env = makeEnv();
    const d = deps(env, profile(script(env, 'repairing-impl', REPAIR_IMPLEMENTER), repairAwareVerifier(env)));
    const prepared = await prepareChange(d, ARGS, signal());
    const r = await verifyChange(d, { change_id: prepared.change_id }, signal());
    verifyChangeResultSchema.parse(r);
    expect(r).toMatchObject({ status: 'verified', repair_attempted: true, repair_performed: true, verification_attempts: 2 });
    expect(r.patch_id).not.toBe(prepared.patch_id);
    const rev2 = loadPatch(env.db, prepared.change_id, 2)!;
    // Revision 2 is a full diff from the original base, not from revision 1.
    expect(rev2.files[0]!.before!.toString()).toContain('a - b');
    expect(rev2.files[0]!.after!.toString()).toBe(`${FIXED_ADD}// REPAIRED\n`);
    expect(loadChange(env.db, prepared.change_id)).toMatchObject({ state: 'verified', latestRevision: 2, repairAttempted: true });
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  it('never repairs twice: a repairable second revision is inconclusive', async () => {
    env = makeEnv();
    const d = deps(env, profile(script(env, 'repairing-impl', REPAIR_IMPLEMENTER), repairAwareVerifier(env, true)));
    const { change_id } = await prepareChange(d, ARGS, signal());
    const r = await verifyChange(d, { change_id }, signal());
    expect(r).toMatchObject({ status: 'inconclusive', repair_performed: true, verification_attempts: 2 });
    expect(r.findings.join('\n')).toMatch(/single repair/);
    const again = await verifyChange(d, { change_id }, signal());
    expect(again).toMatchObject({ status: 'inconclusive', repair_performed: false, verification_attempts: 1 });
    expect(listEvents(env.db, change_id).filter((e) => e.type === 'repair_started')).toHaveLength(1);
  });

  it('two racing repairs: exactly one wins', async () => {
    env = makeEnv();
    const d = deps(env, profile(script(env, 'repairing-impl', REPAIR_IMPLEMENTER), repairAwareVerifier(env)));
    const { change_id } = await prepareChange(d, ARGS, signal());
    // Two connections, as two server processes would have.
    const other = openDb(join(env.dataDir, 'needle.sqlite3'));
    try {
      const results = await Promise.allSettled([verifyChange(d, { change_id }, signal()), verifyChange({ ...d, db: other }, { change_id }, signal())]);
      const performed = results.filter((x) => x.status === 'fulfilled' && x.value.repair_performed);
      expect(performed).toHaveLength(1);
      for (const x of results)
        if (x.status === 'rejected') expect((x.reason as Error).message).toMatch(/being repaired/);
      expect(listEvents(env.db, change_id).filter((e) => e.type === 'repair_started')).toHaveLength(1);
      expect(loadChange(env.db, change_id)).toMatchObject({ latestRevision: 2, repairAttempted: true });
      // The transition itself, from two connections: the claim is single-use.
      env.db.prepare(`UPDATE change_requests SET state = 'repairable' WHERE change_id = ?`).run(change_id);
      expect([beginRepair(env.db, change_id), beginRepair(other, change_id)]).toEqual([false, false]);
    } finally {
      other.close();
    }
  });
});

describe('certified test plans', () => {
  const MANY = Array.from({ length: 5 }, (_, i) => `test('case${i}', () => assert.ok(true));`).join('\n');

  function plans(count: number, extra: Partial<CertifiedTestPlan>[] = []): CertifiedTestPlan[] {
    const digest = blake3(Buffer.from(`import { test } from 'node:test';\nimport assert from 'node:assert';\n${MANY}\n`));
    const one = (i: number, dep = 'test/many.test.mjs'): CertifiedTestPlan => ({
      source_id: `b3:${String(i).repeat(64).slice(0, 64)}` as CertifiedTestPlan['source_id'],
      plan: {
        runner: 'npx',
        argv: ['node', '--test', '--test-name-pattern', `case${i}`, 'test/many.test.mjs'],
        cwd_relative: '.',
        identifier: `case${i}`,
        selection: 'representative',
        location: { role: 'primary', path: 'test/many.test.mjs', symbol: `case${i}`, start_line: 3 + i, end_line: 3 + i },
        evidence_paths: [dep],
      },
      dependencies: [{ path: 'test/many.test.mjs', digest }],
    });
    return [...Array.from({ length: count }, (_, i) => one(i)), ...extra.map((x, i) => ({ ...one(i), ...x }))];
  }

  async function verifyWith(count: number, extra: Partial<CertifiedTestPlan>[] = [], trusted = true) {
    env = makeEnv();
    write(env.root, 'test/many.test.mjs', `import { test } from 'node:test';\nimport assert from 'node:assert';\n${MANY}\n`);
    git(env.root, 'add', '-A');
    git(env.root, 'commit', '-q', '-m', 'tests');
    const certified = plans(count, extra);
    const d = deps(env, profile(goodImplementer(env), verdictVerifier(env, 'verified'), { test_execution: trusted ? 'trusted' : 'untrusted' }), {
      context: { load: () => ({ items: [], testPlans: certified }) },
    });
    const { change_id } = await prepareChange(d, { ...ARGS, artifact_ids: [`b3:${'9'.repeat(64)}`] }, signal());
    return verifyChange(d, { change_id }, signal());
  }

  it.each([1, 2, 4])('%i plan(s) → verified with ordered, distinct evidence', async (n) => {
    const r = await verifyWith(n);
    expect(r.status).toBe('verified');
    expect(r.test_plan_results).toHaveLength(n);
    const digests = r.test_plan_results.map((t) => t.plan_digest);
    expect([...digests].sort()).toEqual(digests);
    expect(r.test_plan_results.every((t) => t.available && t.executed && t.passed)).toBe(true);
    expect(new Set(r.test_evidence_ids).size).toBe(n);
  });

  it('duplicates collapse into one plan', async () => {
    const r = await verifyWith(1, [{}]);
    expect(r.status).toBe('verified');
    expect(r.test_plan_results).toHaveLength(1);
  });

  it('5 plans → inconclusive, over cap, nothing run', async () => {
    const r = await verifyWith(5);
    expect(r).toMatchObject({ status: 'inconclusive', test_plans_over_cap: true, test_plan_results: [], test_evidence_ids: [] });
  });

  it('a plan whose dependency the patch edits is unavailable and not executed', async () => {
    const r = await verifyWith(0, [{ dependencies: [{ path: 'src/add.mjs', digest: blake3('whatever') }] }]);
    expect(r.status).toBe('inconclusive');
    expect(r.test_plan_results[0]).toMatchObject({ available: false, executed: false, passed: false });
    expect(r.test_plan_results[0]!.failure_reason).toMatch(/patch edits src\/add.mjs/);
  });

  it('untrusted test execution leaves plans unavailable and the verdict inconclusive', async () => {
    const r = await verifyWith(1, [], false);
    expect(r.status).toBe('inconclusive');
    expect(r.test_plan_results[0]!.failure_reason).toMatch(/does not trust/);
  });
});
