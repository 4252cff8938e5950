// A data directory filled the real way for the control-plane tests: needs
// resolved by `needle context` (static worker, cache hits, a bypass), a
// change prepared and verified by command adapters whose certified focused
// test really runs and passes, a second change left unverified, and a third
// whose verification ran one passing and one failing test. Plus a raw HTTP
// client that can send any Host/Origin/cookie.
import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { contextCommand } from '../../src/cli/commands/context.js';
import type { CliIO } from '../../src/cli/command.js';
import type { CertifiedTestPlan } from '../../src/changes/model.js';
import { prepareChange } from '../../src/changes/prepare.js';
import { blake3 } from '../../src/core/digest.js';
import { verifyChange } from '../../src/changes/verify.js';
import { listCertificates } from '../../src/store/evidence/certificates.js';
import { ARGS, deps, goodImplementer, makeEnv, profile, signal, verdictVerifier, type Env } from '../changes/fixture.js';
import { git } from '../support/git.js';

export interface Filled {
  readonly env: Env;
  readonly verifiedChange: string;
  readonly unverifiedChange: string;
  /** Verified as inconclusive: its passing test `adds` and failing test `subtracts` ran. */
  readonly failingTestsChange: string;
  readonly certificate: string;
}

/** A test that held before the patch and breaks once add() adds. */
export const SUBTRACT_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/add.mjs';\ntest('subtracts', () => assert.strictEqual(add(5, 3), 2));\n";

/** A certified focused-test plan for one node:test test, as the evidence store would hand it to prepare_change. */
function testPlan(env: Env, identifier: string, path: string): CertifiedTestPlan {
  return {
    source_id: blake3(`plan ${identifier}`),
    plan: {
      runner: 'npx',
      argv: ['node', '--test', '--test-name-pattern', identifier, path],
      cwd_relative: '.',
      identifier,
      selection: 'representative',
      location: { role: 'primary', path, symbol: identifier, start_line: 4, end_line: 4 },
      evidence_paths: [path],
    },
    dependencies: [{ path, digest: blake3(readFileSync(join(env.root, path))) }],
  };
}

async function context(env: Env, args: string[]): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const io: CliIO = { stdout: out, stderr: new PassThrough(), stdin: new PassThrough(), env: { PATH: process.env.PATH ?? '' }, cwd: env.root, interactive: false };
  const code = await contextCommand.run([...args, '--data-dir', env.dataDir, '--repository', env.root], io);
  if (code !== 0) throw new Error(`needle context exited ${code}`);
  return Buffer.concat(chunks).toString('utf8');
}

export async function resolveNeed(env: Env, route: string, subject: string): Promise<string> {
  return context(env, ['--route', route, '--subject', subject]);
}

export async function fill(): Promise<Filled> {
  const env = makeEnv();
  // A package.json makes the focused test runnable, so tests.relevant can be served too.
  writeFileSync(join(env.root, 'package.json'), JSON.stringify({ name: 'demo', type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n');
  writeFileSync(join(env.root, 'test/sub.test.mjs'), SUBTRACT_TEST);
  git(env.root, 'add', '-A');
  git(env.root, 'commit', '-q', '-m', 'package.json and a subtraction test');
  await resolveNeed(env, 'locate.implementation', 'symbol:add');
  await resolveNeed(env, 'locate.implementation', 'symbol:add');
  await resolveNeed(env, 'tests.relevant', 'symbol:add');
  await resolveNeed(env, 'locate.implementation', 'symbol:nowhere_to_be_found');
  // Test execution trusted, so verification runs the certified plans in the patched checkout.
  const trusted = profile(goodImplementer(env), verdictVerifier(env, 'verified'), { test_execution: 'trusted' });
  const withPlans = (plans: CertifiedTestPlan[]) => deps(env, trusted, { context: { load: () => ({ items: [], testPlans: plans }) } });
  const artifacts = { artifact_ids: [blake3('certified add() location')] };
  const adds = testPlan(env, 'adds', 'test/add.test.mjs');
  const d = withPlans([adds]);
  const prepared = await prepareChange(d, { ...ARGS, ...artifacts }, signal());
  const verified = await verifyChange(d, { change_id: prepared.change_id }, signal());
  if (verified.status !== 'verified') throw new Error(`fixture change not verified: ${verified.status} ${JSON.stringify(verified.test_plan_results)}`);
  const second = await prepareChange(d, { ...ARGS, task: 'Make add() return the sum (second attempt, never verified).' }, signal());
  const failing = withPlans([adds, testPlan(env, 'subtracts', 'test/sub.test.mjs')]);
  const third = await prepareChange(failing, { ...ARGS, ...artifacts, task: 'Make add() return the sum (third attempt, which breaks the subtraction test).' }, signal());
  const broken = await verifyChange(failing, { change_id: third.change_id }, signal());
  if (broken.test_plan_results.map((t) => t.passed).sort().join() !== 'false,true') throw new Error(`fixture tests: ${JSON.stringify(broken.test_plan_results)}`);
  const cert = listCertificates(env.db, 10)[0];
  if (!cert) throw new Error('fixture resolved nothing certifiable');
  return { env, verifiedChange: prepared.change_id, unverifiedChange: second.change_id, failingTestsChange: third.change_id, certificate: cert.certificateId };
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request with exactly these headers (Host included), bounded by a timeout. */
export function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
