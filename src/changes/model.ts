// The vocabulary of verified changes (SPEC §14): arguments, stored shapes,
// the closed reports workers print, and the published result schemas. Each
// schema is one definition used both to publish and to parse.
import { CHANGE, CHANGE_RUN, EVIDENCE } from '../core/limits.js';
import type { Digest } from '../core/digest.js';
import { array, boolean, enumOf, integer, literal, nullable, object, string, type Infer } from '../core/schema.js';
import { clipUtf8 } from '../core/text.js';

export type Scope = 'exact' | 'subtree';
export interface AllowedPath {
  readonly path: string;
  readonly scope: Scope;
}

/** prepare_change arguments, as the MCP layer or the CLI hands them over. */
export interface PrepareChangeArgs {
  readonly task: string;
  readonly acceptance_criteria: readonly string[];
  readonly allowed_paths: readonly AllowedPath[];
  readonly artifact_ids?: readonly string[];
  readonly claim_ids?: readonly string[];
  readonly constraints?: readonly string[];
}

export interface VerifyChangeArgs {
  readonly change_id: string;
}

/** The request after normalisation: what is hashed and stored. */
export interface ChangeRequest {
  readonly task: string;
  readonly acceptance_criteria: readonly string[];
  readonly allowed_paths: readonly AllowedPath[];
  readonly artifact_ids: readonly Digest[];
  readonly claim_ids: readonly Digest[];
  readonly constraints: readonly string[];
}

export const OPERATIONS = ['create', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface PatchFile {
  readonly path: string;
  readonly operation: Operation;
  readonly before: Buffer | null;
  readonly after: Buffer | null;
  readonly beforeDigest: Digest | null;
  readonly afterDigest: Digest | null;
}

export const COVERAGE_STATUSES = ['addressed', 'partial', 'unaddressed'] as const;
export const VERDICTS = ['verified', 'rejected', 'repairable', 'inconclusive'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const CHANGE_STATES = [
  'requested',
  'prepared',
  'failed',
  'verified',
  'rejected',
  'repairable',
  'inconclusive',
  'repairing',
  'applying',
  'applied',
] as const;
export type ChangeState = (typeof CHANGE_STATES)[number];

const criterionText = string({ nonBlank: true, maxBytes: CHANGE.criterionMaxBytes });
const evidenceText = string({ maxBytes: CHANGE_RUN.evidenceMaxBytes });
export const coverageItemSchema = object({
  criterion: criterionText,
  status: enumOf(COVERAGE_STATUSES),
  evidence: evidenceText,
});
export type CoverageItem = Infer<typeof coverageItemSchema>;

/**
 * What a `command` implementer may print on stdout (optional): its own account
 * of the change. It never decides the patch; only summary, coverage and risks
 * are kept, and only when the coverage names exactly the requested criteria.
 */
export const implementerReportSchema = object({
  summary: string({ nonBlank: true, maxBytes: CHANGE_RUN.summaryMaxBytes }),
  changed_files: array(object({ path: string({ minBytes: 1, maxBytes: EVIDENCE.pathMaxBytes }), operation: enumOf(OPERATIONS) }), {
    max: CHANGE.maxChangedFiles,
  }),
  acceptance_coverage: array(coverageItemSchema, { min: CHANGE.minCriteria, max: CHANGE.maxCriteria }),
  residual_risks: array(string({ nonBlank: true, maxBytes: CHANGE_RUN.residualRiskMaxBytes }), { max: CHANGE_RUN.maxResidualRisks }),
});
export type ImplementerReport = Infer<typeof implementerReportSchema>;

/**
 * The verdict a `command` verifier prints on stdout: one JSON object, closed
 * at every level. Anything else makes the verification inconclusive.
 */
export const verifierVerdictSchema = object({
  verdict: enumOf(VERDICTS),
  acceptance_coverage: array(coverageItemSchema, { min: CHANGE.minCriteria, max: CHANGE.maxCriteria }),
  findings: array(string({ nonBlank: true, maxBytes: CHANGE_RUN.findingMaxBytes }), { max: CHANGE_RUN.maxFindings }),
});
export type VerifierVerdict = Infer<typeof verifierVerdictSchema>;

const digestText = string({ pattern: /^b3:[0-9a-f]{64}$/ });
const changeIdText = string({ pattern: /^chg_[0-9a-f]{24}$/ });

export const prepareChangeResultSchema = object({
  status: literal('prepared'),
  change_id: changeIdText,
  patch_id: digestText,
  summary: string({ minBytes: 1, maxBytes: CHANGE_RUN.summaryMaxBytes }),
  changed_files: array(object({ path: string({ minBytes: 1 }), operation: enumOf(OPERATIONS) }), {
    min: 1,
    max: CHANGE.maxChangedFiles,
  }),
  acceptance_coverage: array(coverageItemSchema, { min: CHANGE.minCriteria, max: CHANGE.maxCriteria }),
  residual_risks: array(string({ maxBytes: CHANGE_RUN.residualRiskMaxBytes }), { max: CHANGE_RUN.maxResidualRisks }),
  verification_status: literal('not_requested'),
});
export type PrepareChangeResult = Infer<typeof prepareChangeResultSchema>;

export const testPlanResultSchema = object({
  plan_digest: digestText,
  runner: string({ minBytes: 1 }),
  argv: array(string({ maxBytes: EVIDENCE.argMaxBytes }), { max: EVIDENCE.maxArgv }),
  cwd_relative: string({ minBytes: 1 }),
  test_identifier: string({ minBytes: 1 }),
  expected: boolean(),
  available: boolean(),
  executed: boolean(),
  passed: boolean(),
  evidence_id: nullable(digestText),
  failure_reason: nullable(string({ maxBytes: CHANGE_RUN.findingMaxBytes })),
});
export type TestPlanResult = Infer<typeof testPlanResultSchema>;

export const verifyChangeResultSchema = object({
  status: enumOf(VERDICTS),
  change_id: changeIdText,
  patch_id: digestText,
  verification_id: digestText,
  acceptance_coverage: array(coverageItemSchema, { max: CHANGE.maxCriteria }),
  findings: array(string({ maxBytes: CHANGE_RUN.findingMaxBytes }), { max: CHANGE_RUN.maxFindings }),
  test_evidence_ids: array(digestText, { max: CHANGE.maxTestPlans }),
  test_plan_results: array(testPlanResultSchema, { max: CHANGE.maxTestPlans }),
  test_plans_over_cap: boolean(),
  verifier_started: boolean(),
  repair_attempted: boolean(),
  repair_performed: boolean(),
  verification_attempts: integer({ min: 1, max: 2 }),
});
export type VerifyChangeResult = Infer<typeof verifyChangeResultSchema>;

/** Certified evidence as prepare_change receives it (loaded by the host from the evidence store). */
export type { CertifiedEvidence as CertifiedContext, CertifiedItem as ContextItem, CertifiedTestPlan } from '../core/certified.js';

/** Admission rules (changes/admission.ts): one violation rejects the whole patch and names its rule. */
export const ADMISSION_RULES = [
  'no_change',
  'too_many_files',
  'unsafe_path',
  'protected_path',
  'out_of_scope',
  'symlink',
  'special_file',
  'not_utf8',
  'after_too_large',
  'patch_too_large',
  'rename_like',
  'mode_change',
  'credential',
] as const;
export type AdmissionRule = (typeof ADMISSION_RULES)[number];

/** Every rule a change can be refused or fail by: a closed set, matched as values, never as text. */
export const CHANGE_RULES = [
  ...ADMISSION_RULES,
  'invalid_request',
  'not_configured',
  'sandbox_required',
  'cancelled',
  'implementer_exit_nonzero',
  'implementer_timeout',
  'implementer_spawn_failed',
  'checkout_error',
  'internal_error',
  'unknown_change',
  'already_applied',
  'not_prepared',
  'not_verified',
  'repair_in_progress',
  'change_failed',
  'conflict',
  'corrupt_store',
  'digest_mismatch',
  'wrong_repository',
  'snapshot_drift',
  'base_mismatch',
  'apply_failed',
] as const;
export type ChangeRule = (typeof CHANGE_RULES)[number];

/** A refusal or failure with a stable rule code and a one-line message of our own. */
export class ChangeError extends Error {
  constructor(
    readonly rule: ChangeRule,
    message: string,
    readonly changeId: string | null = null,
  ) {
    super(message);
    this.name = 'ChangeError';
  }
}

/** Cuts our own messages (which may quote paths) to a bounded single line. */
export function oneLine(text: string, maxBytes: number = CHANGE_RUN.messageMaxBytes): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').trim();
  return clipUtf8(flat, maxBytes, '...');
}
