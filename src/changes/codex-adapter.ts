// The `codex` adapter for the change roles (SPEC §13–§14): one supervised Codex
// App Server thread in the disposable checkout. The implementer's thread may
// write the checkout and nothing else; in-checkout edits raise no approval, so
// the patch is whatever diffCheckout finds afterwards, never a count of
// approvals. The verifier's thread is read-only and may run only the exact
// certified test commands. The turn's final message, held to the role's closed
// schema, plays the part a `command` worker's stdout plays.
import type { ChangeRoleConfig } from '../core/profile.js';
import type { Schema } from '../core/schema.js';
import type { Checkout } from '../repo/checkout.js';
import type { PricingTable, RunOutcome, RunsStore } from '../workers/runs-store.js';
import type { SandboxInfo } from '../workers/sandbox.js';
import type { TurnResult } from '../workers/codex/app-server.js';
import { strictJsonSchema } from '../workers/codex/output-contract.js';
import { runCodexThread } from '../workers/codex/run.js';
import type { CodexSessionError } from '../workers/codex/session.js';
import { bundledCodexPath } from '../workers/codex/worker.js';
import { lastJsonDocument, type RoleName, type RoleRun } from './command-adapter.js';
import { implementerReportSchema, verifierVerdictSchema } from './model.js';

export type CodexRoleConfig = Extract<ChangeRoleConfig, { adapter: 'codex' }>;

export interface RoleUsage {
  /** The worker_runs row holding this run's accounting. */
  readonly runId: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly priceMicroUsd: number | null;
}

export type CodexRoleRun = RoleRun & { readonly usage: RoleUsage };

export interface CodexRoleOptions {
  readonly signal: AbortSignal;
  readonly sandbox: SandboxInfo;
  /** Where the model API credential is read from; it never reaches the model's shell. */
  readonly parentEnv: NodeJS.ProcessEnv;
  readonly defaultTimeoutMs: number;
  /** Verifier only: argv of the certified test plans it may run, exactly as written. */
  readonly certifiedTests: readonly (readonly string[])[];
  readonly runs: RunsStore;
  readonly pricing: PricingTable | undefined;
  readonly clientVersion?: string;
}

const ROLE = {
  implementer: {
    mode: 'workspace-write',
    route: 'prepare.change',
    schema: implementerReportSchema as Schema<unknown>,
    instructions: [
      'You are the implementer of one bounded change for Needle. Your current directory is a disposable copy of a repository.',
      'Make the change by editing files in the current directory (apply_patch or shell edits). Only the current directory is writable;',
      'do not touch .git, do not write outside the allowed paths, do not use the network, and do not run builds, installs or tests.',
      'Needle takes the change from the files you leave behind, not from your reply.',
      'Your final message is your report: one JSON object matching the output schema (where the task mentions stdout, it means this final message).',
    ],
  },
  verifier: {
    mode: 'read-only',
    route: 'verify.change',
    schema: verifierVerdictSchema as Schema<unknown>,
    instructions: [
      'You are an independent, read-only verifier for Needle. Your current directory holds a repository with a proposed change applied.',
      'Read files to check every acceptance criterion; do not modify anything and do not use the network.',
      'Run no command that needs approval except a certified test command listed in the task, exactly as written.',
      'Your final message is your verdict: one JSON object matching the output schema (where the task mentions stdout, it means this final message).',
    ],
  },
} as const;

/** The outputSchema sent with turn/start: the role's closed schema in strict structured-output form. */
export function roleOutputSchema(role: RoleName): Record<string, unknown> {
  return strictJsonSchema(ROLE[role].schema.json);
}

function certifiedSection(tests: readonly (readonly string[])[]): string {
  if (tests.length === 0) return '';
  return ['', '## Certified test commands (you may run these, exactly as written, and nothing else)', ...tests.map((argv) => `- ${argv.join(' ')}`)].join('\n');
}

function validOutput(role: RoleName, text: string | null): boolean {
  if (text === null) return false;
  try {
    ROLE[role].schema.parse(lastJsonDocument(text), '$');
    return true;
  } catch {
    return false;
  }
}

type Ending = { outcome: RoleRun['outcome']; failure: string | null; runOutcome: RunOutcome; reason: string | null };

// Failures are described in our own words only: a turn error can quote the
// model API's response body, and a change stores no diagnostic text of the model.
function endingOfTurn(role: RoleName, turn: TurnResult): Ending {
  switch (turn.status) {
    case 'completed': {
      const valid = validOutput(role, turn.finalText);
      return { outcome: 'ok', failure: null, runOutcome: valid ? 'proposed' : 'invalid', reason: valid ? null : `the final message does not match the ${role} schema` };
    }
    case 'timeout':
      return { outcome: 'timeout', failure: `codex ${role} turn did not finish before the deadline`, runOutcome: 'timeout', reason: 'turn deadline passed' };
    case 'cancelled':
      return { outcome: 'cancelled', failure: `codex ${role} was cancelled`, runOutcome: 'cancelled', reason: 'cancelled' };
    default:
      return { outcome: 'exit_nonzero', failure: `codex ${role} turn ended ${turn.status}`, runOutcome: 'failed', reason: `turn ended ${turn.status}` };
  }
}

function endingOfSession(role: RoleName, e: CodexSessionError): Ending {
  if (e.code === 'cancelled') return { outcome: 'cancelled', failure: `codex ${role} was cancelled`, runOutcome: 'cancelled', reason: e.message };
  if (e.code === 'timeout') return { outcome: 'timeout', failure: `codex ${role} did not start before the deadline`, runOutcome: 'timeout', reason: e.message };
  if (e.code === 'unsupported') return { outcome: 'spawn_failed', failure: `codex ${role} is not usable: ${e.message}`, runOutcome: 'unsupported', reason: e.message };
  return { outcome: 'spawn_failed', failure: `codex ${role} app server failed to start`, runOutcome: 'failed', reason: e.message };
}

/**
 * Runs one role turn in `checkout` through the shared Codex run lifecycle
 * (workers/codex/run.ts), which records the run's accounting. Never throws
 * for the worker's failures: they come back as a RoleRun outcome with a
 * one-line failure of our own.
 */
export async function runCodexRole(config: CodexRoleConfig, role: RoleName, checkout: Checkout, prompt: string, opts: CodexRoleOptions): Promise<CodexRoleRun> {
  const deadline = Date.now() + (config.timeout_ms ?? opts.defaultTimeoutMs);
  const spec = ROLE[role];
  const exe = config.codex_path ?? bundledCodexPath();
  let turn: TurnResult | null = null;
  let ending: Ending | null = null;
  const run = await runCodexThread(
    {
      config,
      exe: exe ?? '',
      checkout,
      mode: spec.mode,
      sandbox: opts.sandbox,
      policy: { root: checkout.dir, certifiedTests: role === 'verifier' ? opts.certifiedTests : [] },
      developerInstructions: spec.instructions.join('\n'),
      deadline,
      signal: opts.signal,
      parentEnv: opts.parentEnv,
      clientVersion: opts.clientVersion ?? '0.1.0',
      onProgress: () => {},
      runs: opts.runs,
      ...(opts.pricing ? { pricing: opts.pricing } : {}),
      needId: null,
      route: spec.route,
      // The caller disposes the checkout (after diffing it) and records that cleanup with the change.
      dispose: null,
      ...(exe ? {} : { unavailable: 'no codex executable: set codex_path in the role profile or install @openai/codex' }),
    },
    async (d) => {
      turn = await d.turn({ text: prompt + (role === 'verifier' ? certifiedSection(opts.certifiedTests) : ''), outputSchema: roleOutputSchema(role), deadline });
      ending = endingOfTurn(role, turn);
      d.attempt('initial', turn, ending.runOutcome === 'proposed', ending.reason);
      return { outcome: ending.runOutcome, reason: ending.reason, proposals: ending.runOutcome === 'proposed' ? 1 : 0 };
    },
  );
  const end: Ending = run.sessionError ? endingOfSession(role, run.sessionError) : ending!;
  const finished = turn as TurnResult | null;
  return {
    outcome: end.outcome,
    exitCode: null,
    stdout: finished?.status === 'completed' ? (finished.finalText ?? '') : '',
    truncated: false,
    durationMs: run.durationMs,
    failure: end.failure,
    usage: { runId: run.runId, model: config.model, ...run.tokens, priceMicroUsd: run.priceMicroUsd },
  };
}
