// Certified focused-test plans during verification (SPEC §14): at most four,
// run serially by Needle itself in the patched checkout under the sandbox,
// duplicates collapsed, and unavailable when their certification no longer
// holds for the patched tree. A pass needs exit 0 and runner output showing
// that at least one test really ran.
import { join } from 'node:path';
import { CHANGE, CHANGE_RUN } from '../core/limits.js';
import { blake3, type Digest } from '../core/digest.js';
import type { FocusedTests } from '../core/contracts.js';
import type { Checkout } from '../repo/checkout.js';
import { normalizeRelativePath } from '../repo/paths.js';
import { workerEnv } from '../workers/env.js';
import { runSupervised } from '../workers/process.js';
import type { SandboxInfo } from '../workers/sandbox.js';
import { testEvidenceId, testPlanDigest } from './identity.js';
import { oneLine, type CertifiedTestPlan, type TestPlanResult } from './model.js';

export interface PlannedTest {
  readonly digest: Digest;
  readonly plan: FocusedTests;
  readonly available: boolean;
  readonly reason: string | null;
}

export interface TestSelection {
  readonly plans: readonly PlannedTest[];
  readonly overCap: boolean;
}

const SHELL_SYNTAX = /[;&|`$<>(){}*?!~'"\\\n\r]/;
const WORKSPACE_FLAGS = new Set(['--workspace', '--all', '--manifest-path', '--config', '-C', '--prefix', '--registry']);
const PROGRAMS: Record<FocusedTests['runner'], readonly string[]> = {
  cargo: ['cargo'],
  npm: ['npm', 'node'],
  npx: ['npx', 'node'],
  pytest: ['pytest', 'python', 'python3'],
  go: ['go'],
};

/** Why a plan's command is not canonical, or null when it is. */
export function nonCanonicalReason(plan: FocusedTests): string | null {
  const program = plan.argv[0] ?? '';
  if (!PROGRAMS[plan.runner].includes(program)) return `argv[0] ${program} does not match runner ${plan.runner}`;
  if (plan.argv.some((a) => SHELL_SYNTAX.test(a))) return 'argv contains shell syntax';
  if (plan.argv.some((a) => WORKSPACE_FLAGS.has(a.split('=')[0]!))) return 'argv contains a workspace-wide or configuration flag';
  const tail = plan.identifier.split('::').pop()!;
  if (!plan.argv.some((a) => a.includes(plan.identifier) || a.includes(tail))) return 'argv does not name the test identifier';
  if (normalizeRelativePath(plan.cwd_relative) === null && plan.cwd_relative !== '.') return 'cwd_relative is not a safe relative path';
  return null;
}

/**
 * Chooses the plans a verification expects. `base` is the manifest of the
 * fresh checkout before the patch (certification freshness); `patched` the
 * paths the patch touches (a plan resting on them proves nothing about it).
 */
export function selectTestPlans(
  certified: readonly CertifiedTestPlan[],
  base: ReadonlyMap<string, Digest>,
  patched: ReadonlySet<string>,
  trusted: boolean,
): TestSelection {
  const byDigest = new Map<Digest, PlannedTest>();
  for (const c of certified) {
    const p = c.plan;
    const digest = testPlanDigest(p.runner, p.argv, p.cwd_relative, p.identifier);
    const reason = availabilityReason(c, base, patched, trusted);
    const prev = byDigest.get(digest);
    // Exact duplicates collapse; availability merges with AND.
    if (prev) byDigest.set(digest, { ...prev, available: prev.available && reason === null, reason: prev.reason ?? reason });
    else byDigest.set(digest, { digest, plan: p, available: reason === null, reason });
  }
  const plans = [...byDigest.values()].sort((a, b) => (a.digest < b.digest ? -1 : 1));
  return { plans, overCap: plans.length > CHANGE.maxTestPlans };
}

function availabilityReason(c: CertifiedTestPlan, base: ReadonlyMap<string, Digest>, patched: ReadonlySet<string>, trusted: boolean): string | null {
  const touched = [...c.dependencies.map((d) => d.path), ...c.plan.evidence_paths, c.plan.location.path].find((p) => patched.has(p));
  if (touched) return `the patch edits ${touched}, which the certified plan depends on`;
  const stale = c.dependencies.find((d) => base.get(d.path) !== d.digest);
  if (stale) return `certification is stale: ${stale.path} changed since the plan was certified`;
  const nonCanonical = nonCanonicalReason(c.plan);
  if (nonCanonical) return `command is not canonical: ${nonCanonical}`;
  if (!trusted) return 'the role profile does not trust test execution (test_execution: untrusted)';
  return null;
}

/** How many tests the runner output says passed; null when the output shows none ran. */
export function passedTestCount(argv: readonly string[], output: string): number | null {
  const sum = (re: RegExp) => {
    let n = 0;
    for (const m of output.matchAll(re)) n += Number(m[1]);
    return n > 0 ? n : null;
  };
  const program = argv[0];
  if (program === 'cargo') return sum(/test result: ok\. (\d+) passed/g);
  if (program === 'go') return /^--- PASS/m.test(output) || (/^ok\s/m.test(output) && !/no tests to run/.test(output)) ? Math.max(1, sum(/^--- PASS/gm) ?? 1) : null;
  if (argv.includes('vitest')) return sum(/Tests\s+(\d+) passed/g);
  if (argv.includes('jest')) return sum(/Tests:\s+(?:\d+ \w+, )*(\d+) passed/g);
  if (argv.includes('mocha')) return sum(/(\d+) passing/g);
  if (program === 'node' && argv.includes('--test')) return sum(/^(?:# |ℹ )pass (\d+)/gm);
  if (program?.startsWith('pytest') || program?.startsWith('python')) return sum(/(\d+) passed/g);
  return null;
}

export interface TestRunOptions {
  readonly checkout: Checkout;
  readonly patchId: Digest;
  readonly sandbox: SandboxInfo;
  readonly signal: AbortSignal;
}

export interface ExecutedTest {
  readonly result: TestPlanResult;
  readonly outcome: string;
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly outputDigest: Digest | null;
  /** What a person reads on the change page: the output's head and tail (outputExcerpt). */
  readonly outputExcerpt: string;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * A runner's output bounded for display: colour codes and control characters
 * dropped, and past the bound its first and last halves (a failure's
 * assertion is usually near the end, what ran near the start) around a note
 * of how much was left out. The digest covers the whole output.
 */
export function outputExcerpt(output: string, maxBytes: number = CHANGE_RUN.testExcerptMaxBytes): string {
  const text = output.replace(ANSI, '').replace(CONTROL, '').replace(/\n{3,}/g, '\n\n').trim();
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const half = Math.floor(maxBytes / 2);
  // A cut inside a multi-byte character decodes to U+FFFD; drop those halves.
  const head = bytes.subarray(0, half).toString('utf8').replace(/\uFFFD+$/, '');
  const tail = bytes.subarray(bytes.length - half).toString('utf8').replace(/^\uFFFD+/, '');
  return `${head}\n… ${bytes.length - 2 * half} bytes left out …\n${tail}`;
}

export function notExecuted(t: PlannedTest, reason: string | null): TestPlanResult {
  return {
    plan_digest: t.digest,
    runner: t.plan.runner,
    argv: [...t.plan.argv],
    cwd_relative: t.plan.cwd_relative,
    test_identifier: t.plan.identifier,
    expected: true,
    available: t.available,
    executed: false,
    passed: false,
    evidence_id: null,
    failure_reason: reason === null ? null : oneLine(reason, CHANGE_RUN.findingMaxBytes),
  };
}

export async function executeTestPlan(t: PlannedTest, o: TestRunOptions): Promise<ExecutedTest> {
  const rel = t.plan.cwd_relative === '.' ? '' : normalizeRelativePath(t.plan.cwd_relative) ?? '';
  const r = await runSupervised({
    argv: [...t.plan.argv],
    cwd: join(o.checkout.dir, rel),
    env: workerEnv({ home: o.checkout.home, tmp: o.checkout.tmp }, { CI: '1', NO_COLOR: '1' }),
    timeoutMs: CHANGE_RUN.testTimeoutMs,
    signal: o.signal,
    maxOutputBytes: CHANGE_RUN.maxWorkerOutputBytes,
    ...(o.sandbox.active ? { sandbox: { info: o.sandbox, runDir: o.checkout.runDir } } : {}),
  });
  const output = `${r.stdout}\n${r.stderr}`;
  const outputDigest = blake3(output);
  const evidence = testEvidenceId(t.digest, o.patchId, r.exitCode, outputDigest);
  const count = passedTestCount(t.plan.argv, r.stdout + '\n' + r.stderr);
  let failure: string | null = null;
  if (r.cancelled) failure = 'cancelled';
  else if (r.timedOut) failure = `timed out after ${r.durationMs} ms`;
  else if (r.exitCode !== 0) failure = r.exitCode === null ? `could not run or was killed (${r.signal ?? 'no exit code'})` : `exited with code ${r.exitCode}`;
  else if (count === null) failure = 'exit 0 but the runner output shows no test that ran';
  return {
    result: { ...notExecuted(t, failure), executed: true, passed: failure === null, evidence_id: evidence },
    outcome: failure === null ? 'passed' : 'failed',
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    outputDigest,
    // The test ran with a cleared environment (workerEnv), so no profile secret can be in it.
    outputExcerpt: outputExcerpt(output),
  };
}
