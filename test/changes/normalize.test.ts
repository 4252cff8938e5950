import { describe, it, expect } from 'vitest';
import { normalizeVerdict, type VerificationFacts } from '../../src/changes/normalize.js';
import type { RoleRun } from '../../src/changes/command-adapter.js';
import type { TestPlanResult } from '../../src/changes/model.js';

const criteria = ['c1', 'c2'];
const ok = (body: unknown): RoleRun => ({ outcome: 'ok', exitCode: 0, stdout: JSON.stringify(body), truncated: false, durationMs: 1, failure: null });
const verdict = (v: string, extra: Record<string, unknown> = {}) => ({
  verdict: v,
  acceptance_coverage: criteria.map((criterion) => ({ criterion, status: 'addressed', evidence: 'e' })),
  findings: [],
  ...extra,
});
const facts = (over: Partial<VerificationFacts>): VerificationFacts => ({
  criteria,
  materializationFailure: null,
  run: ok(verdict('verified')),
  verifierModified: null,
  overCap: false,
  testResults: [],
  repairAvailable: true,
  ...over,
});
const plan = (passed: boolean, available = true): TestPlanResult => ({
  plan_digest: `b3:${'1'.repeat(64)}`,
  runner: 'npx',
  argv: ['node', '--test'],
  cwd_relative: '.',
  test_identifier: 't',
  expected: true,
  available,
  executed: available,
  passed,
  evidence_id: available ? `b3:${'2'.repeat(64)}` : null,
  failure_reason: passed ? null : 'exited with code 1',
});

describe('fail-closed verdict normalization', () => {
  it('keeps a well-supported verified verdict', () => {
    const n = normalizeVerdict(facts({ testResults: [plan(true)] }));
    expect(n).toMatchObject({ verdict: 'verified', rules: [] });
    expect(n.body.test_evidence_ids).toHaveLength(1);
  });

  const cases: [string, Partial<VerificationFacts>, string][] = [
    ['materialization_failed', { materializationFailure: 'snapshot drift' }, 'inconclusive'],
    ['verifier_failed', { run: { ...ok({}), outcome: 'timeout', failure: 'verifier timed out after 5 ms' } }, 'inconclusive'],
    ['output_invalid', { run: { ...ok({}), stdout: 'looks good to me!' } }, 'inconclusive'],
    ['output_invalid', { run: ok(verdict('verified', { extra: 1 })) }, 'inconclusive'],
    ['output_invalid', { run: ok(verdict('verified', { findings: Array.from({ length: 17 }, (_, i) => `f${i}`) })) }, 'inconclusive'],
    ['output_invalid', { run: ok(verdict('verified', { findings: ['x'.repeat(2049)] })) }, 'inconclusive'],
    ['output_invalid', { run: { ...ok(verdict('verified')), truncated: true } }, 'inconclusive'],
    ['coverage_mismatch', { run: ok(verdict('verified', { acceptance_coverage: [{ criterion: 'c1', status: 'addressed', evidence: '' }] })) }, 'inconclusive'],
    ['verifier_modified_checkout', { verifierModified: 'src/a.ts (update)' }, 'inconclusive'],
    ['test_plans_over_cap', { overCap: true, testResults: [plan(true)] }, 'inconclusive'],
    ['tests_not_passed', { testResults: [plan(false)] }, 'inconclusive'],
    ['tests_not_passed', { testResults: [plan(false, false)] }, 'inconclusive'],
    ['verified_unsupported', { run: ok(verdict('verified', { findings: ['minor'] })) }, 'inconclusive'],
    ['repair_without_findings', { run: ok(verdict('repairable')) }, 'inconclusive'],
    ['repair_unavailable', { run: ok(verdict('repairable', { findings: ['fix x'] })), repairAvailable: false }, 'inconclusive'],
  ];
  it.each(cases)('%s', (rule, over, expected) => {
    const n = normalizeVerdict(facts(over));
    expect(n.verdict).toBe(expected);
    expect(n.rules).toContain(rule);
    expect(n.body.findings.length).toBeGreaterThan(0);
    expect(n.body.findings.length).toBeLessThanOrEqual(16);
  });

  it('empties coverage on a mismatch and results over the cap', () => {
    expect(normalizeVerdict(facts({ run: ok(verdict('verified', { acceptance_coverage: [] })) })).body.acceptance_coverage).toEqual([]);
    const over = normalizeVerdict(facts({ overCap: true, testResults: [plan(true)] }));
    expect(over.body).toMatchObject({ test_plan_results: [], test_evidence_ids: [], test_plans_over_cap: true });
  });

  it('never turns rejected into anything else, and accepts the last JSON line after progress output', () => {
    const rejected = normalizeVerdict(facts({ run: { ...ok({}), stdout: `thinking...\n${JSON.stringify(verdict('rejected', { findings: ['wrong'] }))}\n` }, testResults: [plan(false, false)] }));
    expect(rejected.verdict).toBe('rejected');
    expect(rejected.body.findings).toContain('wrong');
  });

  it('keeps a repairable verdict with findings while the repair is available', () => {
    expect(normalizeVerdict(facts({ run: ok(verdict('repairable', { findings: ['fix x'] })) })).verdict).toBe('repairable');
  });
});
