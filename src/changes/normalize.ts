// Fail-closed verdict normalisation (SPEC §14). A verifier's say-so is only
// an input: anything missing, broken or unproven turns `verified` (and
// `repairable`) into `inconclusive`; nothing here can turn a verdict into
// `verified`. Needle's own findings come first and are bounded like the rest.
import { CHANGE_RUN } from '../core/limits.js';
import type { Digest } from '../core/digest.js';
import { SchemaError } from '../core/schema.js';
import { lastJsonDocument, type RoleRun } from './command-adapter.js';
import type { VerificationBody } from './store.js';
import { oneLine, verifierVerdictSchema, type CoverageItem, type TestPlanResult, type Verdict } from './model.js';

export const NORMALIZATION_RULES = [
  'materialization_failed',
  'verifier_failed',
  'output_invalid',
  'coverage_mismatch',
  'verifier_modified_checkout',
  'test_plans_over_cap',
  'tests_not_passed',
  'verified_unsupported',
  'repair_without_findings',
  'repair_unavailable',
] as const;
export type NormalizationRule = (typeof NORMALIZATION_RULES)[number];

export interface VerificationFacts {
  readonly criteria: readonly string[];
  /** Drift or a base mismatch: the patch could not be reproduced, the verifier never ran. */
  readonly materializationFailure: string | null;
  readonly run: RoleRun | null;
  /** Description of what the verifier changed in its read-only checkout, if anything. */
  readonly verifierModified: string | null;
  readonly overCap: boolean;
  /** One result per expected plan, in plan-digest order. */
  readonly testResults: readonly TestPlanResult[];
  readonly repairAvailable: boolean;
}

export interface NormalizedVerdict {
  readonly verdict: Verdict;
  readonly body: VerificationBody;
  /** The rules that changed or decided the verdict, in the order they fired. */
  readonly rules: readonly NormalizationRule[];
}

const finding = (text: string) => oneLine(text, CHANGE_RUN.findingMaxBytes);

export function normalizeVerdict(f: VerificationFacts): NormalizedVerdict {
  const own: string[] = [];
  const rules: NormalizationRule[] = [];
  const fire = (rule: NormalizationRule, text: string) => {
    rules.push(rule);
    own.push(finding(text));
  };
  let verdict: Verdict = 'inconclusive';
  let coverage: CoverageItem[] = [];
  let theirs: string[] = [];

  if (f.materializationFailure !== null) fire('materialization_failed', f.materializationFailure);
  else if (!f.run || f.run.outcome !== 'ok') fire('verifier_failed', f.run?.failure ?? 'the verifier did not run');
  else {
    const parsed = parseVerdict(f.run.stdout, f.run.truncated);
    if (typeof parsed === 'string') fire('output_invalid', `verifier output rejected: ${parsed}`);
    else {
      verdict = parsed.verdict;
      coverage = parsed.acceptance_coverage;
      theirs = parsed.findings;
      const named = coverage.map((c) => c.criterion);
      const expected = new Set(f.criteria);
      if (named.length !== f.criteria.length || new Set(named).size !== named.length || named.some((c) => !expected.has(c))) {
        fire('coverage_mismatch', 'verifier coverage does not name each acceptance criterion exactly once');
        verdict = 'inconclusive';
        coverage = [];
      }
    }
  }
  if (f.verifierModified !== null) {
    fire('verifier_modified_checkout', `the read-only verifier modified its checkout: ${f.verifierModified}`);
    verdict = 'inconclusive';
  }

  let results = [...f.testResults];
  if (f.overCap) {
    fire('test_plans_over_cap', `more than the bound of test plans are associated; no truncated subset is run`);
    verdict = 'inconclusive';
    results = [];
  } else {
    const unproven = results.filter((r) => !(r.available && r.executed && r.passed));
    if (unproven.length > 0) {
      const first = unproven[0]!;
      const why = first.failure_reason ?? (first.available ? 'not executed' : 'unavailable');
      fire('tests_not_passed', `${unproven.length} certified test plan(s) did not pass; first: ${first.test_identifier}: ${why}`);
      if (verdict === 'verified' || verdict === 'repairable') verdict = 'inconclusive';
    }
  }

  if (verdict === 'verified') {
    const open = coverage.filter((c) => c.status !== 'addressed').map((c) => c.criterion);
    if (open.length > 0 || theirs.length > 0) {
      fire(
        'verified_unsupported',
        open.length > 0 ? `verified with criteria not addressed: ${open.join('; ')}` : 'verified but with open findings',
      );
      verdict = 'inconclusive';
    }
  }
  if (verdict === 'repairable' && theirs.length === 0) {
    fire('repair_without_findings', 'repairable without findings gives a repair nothing to fix');
    verdict = 'inconclusive';
  } else if (verdict === 'repairable' && !f.repairAvailable) {
    fire('repair_unavailable', 'the single repair of this change is already used');
    verdict = 'inconclusive';
  }

  const findings = [...own, ...theirs].slice(0, CHANGE_RUN.maxFindings);
  const evidence = results.filter((r) => r.evidence_id !== null).map((r) => r.evidence_id as Digest);
  return {
    verdict,
    rules,
    body: { acceptance_coverage: coverage, findings, test_evidence_ids: evidence, test_plan_results: results, test_plans_over_cap: f.overCap },
  };
}

/** The verdict, or a one-line reason why the output is not one. */
export function parseVerdict(stdout: string, truncated: boolean) {
  if (truncated) return 'output exceeded the capture bound';
  try {
    return verifierVerdictSchema.parse(lastJsonDocument(stdout));
  } catch (e) {
    if (e instanceof SchemaError) return `does not match the verdict schema at ${e.message}`;
    return (e as Error).message;
  }
}
