// The `command` adapter (SPEC §13): any external agent CLI run in a disposable
// checkout, with the prompt on stdin or in a file, a cleared environment plus
// the profile's allowlist, a deadline, bounded output and, when bubblewrap
// works here, no network and nothing of the user's repository in view.
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ChangeRoleConfig } from '../core/profile.js';
import { CHANGE_RUN } from '../core/limits.js';
import type { Checkout } from '../repo/checkout.js';
import { workerEnv, sanitizedPath } from '../workers/env.js';
import { runSupervised, type SupervisedResult } from '../workers/process.js';
import type { SandboxInfo, SandboxOptions } from '../workers/sandbox.js';

export type CommandConfig = Extract<ChangeRoleConfig, { adapter: 'command' }>;
export type RoleName = 'implementer' | 'verifier';

/** Variables a profile's allowlist may not override: they confine the worker. */
const CONFINING = new Set(['PATH', 'HOME', 'TMPDIR', 'NEEDLE_PROMPT_FILE', 'NEEDLE_ROLE']);

export interface RoleRun {
  readonly outcome: 'ok' | 'exit_nonzero' | 'timeout' | 'cancelled' | 'spawn_failed';
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly truncated: boolean;
  readonly durationMs: number;
  /** Our own one-line description of a failed run; never the worker's output. */
  readonly failure: string | null;
}

export interface CommandRunOptions {
  readonly signal: AbortSignal;
  readonly sandbox: SandboxInfo;
  /** Where allowlisted variables are read from (Needle's own environment by default). */
  readonly parentEnv: NodeJS.ProcessEnv;
  readonly defaultTimeoutMs: number;
}

function findOnPath(name: string): string | null {
  for (const dir of sanitizedPath().split(':')) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * The configured program and every absolute path named in argv become
 * read-only inside the sandbox, so a worker installed outside the system
 * directories can start; nothing else outside the run directory is visible.
 */
export function readablePathsFor(argv: readonly string[]): string[] {
  const out = new Set<string>();
  const program = argv[0] ?? '';
  const resolved = isAbsolute(program) ? program : program.includes('/') ? null : findOnPath(program);
  for (const p of [resolved, ...argv.slice(1).filter((a) => isAbsolute(a))]) {
    if (!p || !existsSync(p)) continue;
    out.add(p);
    const real = realpathSync(p);
    out.add(real);
  }
  return [...out];
}

export function classify(r: SupervisedResult, what: string): RoleRun {
  const base = { exitCode: r.exitCode, stdout: r.stdout, truncated: r.truncated, durationMs: r.durationMs };
  if (r.cancelled) return { ...base, outcome: 'cancelled', failure: `${what} was cancelled` };
  if (r.timedOut) return { ...base, outcome: 'timeout', failure: `${what} timed out after ${r.durationMs} ms` };
  if (r.exitCode === null && r.signal === null) return { ...base, outcome: 'spawn_failed', failure: `${what} could not be started` };
  if (r.exitCode !== 0)
    return {
      ...base,
      outcome: 'exit_nonzero',
      failure: r.exitCode === null ? `${what} was killed by ${r.signal}` : `${what} exited with code ${r.exitCode}`,
    };
  return { ...base, outcome: 'ok', failure: null };
}

export async function runCommandRole(
  config: CommandConfig,
  role: RoleName,
  checkout: Checkout,
  prompt: string,
  opts: CommandRunOptions,
): Promise<RoleRun> {
  const extra: Record<string, string> = { NEEDLE_ROLE: role };
  for (const name of config.env_allowlist ?? []) {
    const value = opts.parentEnv[name];
    if (!CONFINING.has(name) && value !== undefined) extra[name] = value;
  }
  // The prompt file lives in the run directory, outside the checkout, so it
  // is never part of the observed patch.
  if (config.prompt === 'file') {
    const file = join(checkout.runDir, `${role}-prompt.md`);
    writeFileSync(file, prompt, { mode: 0o644 });
    extra.NEEDLE_PROMPT_FILE = file;
  }
  const sandbox: { info: SandboxInfo; runDir: string; options: SandboxOptions } | undefined = opts.sandbox.active
    ? { info: opts.sandbox, runDir: checkout.runDir, options: { readable: readablePathsFor(config.argv), network: config.network === true } }
    : undefined;
  const result = await runSupervised({
    argv: [...config.argv],
    cwd: checkout.dir,
    env: workerEnv({ home: checkout.home, tmp: checkout.tmp }, extra),
    stdin: config.prompt === 'stdin' ? prompt : '',
    timeoutMs: config.timeout_ms ?? opts.defaultTimeoutMs,
    signal: opts.signal,
    maxOutputBytes: CHANGE_RUN.maxWorkerOutputBytes,
    ...(sandbox ? { sandbox } : {}),
  });
  return classify(result, role);
}

/**
 * The JSON document a command printed: the whole stdout, or else its last
 * non-empty line (agent CLIs often print progress before the final answer).
 */
export function lastJsonDocument(stdout: string): unknown {
  const whole = stdout.trim();
  if (!whole) throw new Error('printed nothing on stdout');
  const last = whole.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '';
  for (const candidate of whole === last ? [whole] : [whole, last]) {
    if (Buffer.byteLength(candidate) > CHANGE_RUN.maxReportBytes) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next candidate
    }
  }
  throw new Error(`did not print a JSON document of at most ${CHANGE_RUN.maxReportBytes} bytes`);
}
