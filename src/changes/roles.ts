// Runs the implementer or verifier with whichever adapter the role profile
// names. Both adapters answer with the same RoleRun; a codex run also carries
// its token usage, which is recorded with the change attempt.
import type { ChangeRoleConfig } from '../core/profile.js';
import type { Checkout } from '../repo/checkout.js';
import { RunsStore } from '../workers/runs-store.js';
import { redactText, secretNames, secretsOf } from '../workers/redact.js';
import type { SandboxInfo } from '../workers/sandbox.js';
import { runCodexRole, type RoleUsage } from './codex-adapter.js';
import { runCommandRole, type RoleName, type RoleRun } from './command-adapter.js';
import type { ChangeDeps } from './deps.js';
import { ChangeError } from './model.js';

export type AdaptedRoleRun = RoleRun & { readonly usage: RoleUsage | null };

export interface RoleRunContext {
  readonly deps: ChangeDeps;
  readonly sandbox: SandboxInfo;
  readonly signal: AbortSignal;
  readonly defaultTimeoutMs: number;
  /** Verifier only: the certified test commands it may run. */
  readonly certifiedTests?: readonly (readonly string[])[];
}

/** The configured adapter for a role, or a clear refusal. */
export function configuredRole(config: ChangeRoleConfig | null, role: RoleName): ChangeRoleConfig {
  if (config === null) throw new ChangeError('not_configured', `the role profile has no ${role}`);
  return config;
}

/**
 * The run with every credential the role was given cut out of its output
 * (report, verdict, findings): what comes back is stored and shown.
 */
export async function runRole(config: ChangeRoleConfig, role: RoleName, checkout: Checkout, prompt: string, ctx: RoleRunContext): Promise<AdaptedRoleRun> {
  const secrets = secretsOf(ctx.deps.env ?? process.env, secretNames(config));
  const run = await runAdapter(config, role, checkout, prompt, ctx);
  return { ...run, stdout: redactText(run.stdout, secrets), failure: run.failure === null ? null : redactText(run.failure, secrets) };
}

/** The credentials a role's worker was given: a patch that contains one is refused. */
export function roleSecrets(config: ChangeRoleConfig, deps: ChangeDeps) {
  return secretsOf(deps.env ?? process.env, secretNames(config));
}

async function runAdapter(config: ChangeRoleConfig, role: RoleName, checkout: Checkout, prompt: string, ctx: RoleRunContext): Promise<AdaptedRoleRun> {
  const parentEnv = ctx.deps.env ?? process.env;
  if (config.adapter === 'command') {
    const run = await runCommandRole(config, role, checkout, prompt, { signal: ctx.signal, sandbox: ctx.sandbox, parentEnv, defaultTimeoutMs: ctx.defaultTimeoutMs });
    return { ...run, usage: null };
  }
  return runCodexRole(config, role, checkout, prompt, {
    signal: ctx.signal,
    sandbox: ctx.sandbox,
    parentEnv,
    defaultTimeoutMs: ctx.defaultTimeoutMs,
    certifiedTests: ctx.certifiedTests ?? [],
    runs: new RunsStore(ctx.deps.db),
    pricing: ctx.deps.profile.pricing,
  });
}
