// The two MCP change tools as plain functions, for the transport to wire up.
// Failures are ChangeError values with a rule and a one-line message (the
// transport turns them into `isError` results); nothing here writes stdout.
import type { ChangeDeps } from './deps.js';
import type { PrepareChangeArgs, PrepareChangeResult, VerifyChangeArgs, VerifyChangeResult } from './model.js';

export interface ChangeToolContext {
  readonly signal: AbortSignal;
}

export interface ChangeTools {
  prepare(args: PrepareChangeArgs, ctx: ChangeToolContext): Promise<PrepareChangeResult>;
  verify(args: VerifyChangeArgs, ctx: ChangeToolContext): Promise<VerifyChangeResult>;
}

/**
 * The change workflow (checkouts, implementer and verifier runs, test plans)
 * is loaded on its first call: a server answers `initialize` and every need
 * without it.
 */
export function createChangeTools(deps: ChangeDeps): ChangeTools {
  return {
    prepare: async (args, ctx) => (await import('./prepare.js')).prepareChange(deps, args, ctx.signal),
    verify: async (args, ctx) => (await import('./verify.js')).verifyChange(deps, args, ctx.signal),
  };
}

/** The text content of a prepare_change result. */
export function prepareText(r: PrepareChangeResult): string {
  return `Prepared isolated change ${r.change_id} as patch ${r.patch_id} touching ${r.changed_files.length} file(s). Verification has not been requested.\n${r.summary}`;
}

/** The text content of a verify_change result. */
export function verifyText(r: VerifyChangeResult): string {
  const tests = r.test_plan_results.length ? ` ${r.test_plan_results.filter((t) => t.passed).length}/${r.test_plan_results.length} certified test plan(s) passed.` : '';
  const next = r.status === 'verified' ? ` Review with \`needle change diff ${r.change_id}\`, then apply with \`needle change apply\`.` : '';
  const findings = r.findings.length ? `\nFindings:\n${r.findings.map((f) => `- ${f}`).join('\n')}` : '';
  return `Verification of change ${r.change_id} completed with status ${r.status}.${tests}${next}${findings}`;
}
