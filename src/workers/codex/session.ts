// One supervised Codex App Server session in a disposable checkout, for roles
// other than the evidence worker (the change implementer and verifier): a
// run-local CODEX_HOME, the sealed process-level settings of launch.ts, and a
// thread that is either read-only or — for the implementer only — allowed to
// write the checkout and nothing else (reference/workers.md §8.4: without the
// exclusions below, workspace-write may write /tmp and $TMPDIR, which is where
// run directories usually live).
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { CODEX_HOME_REFUSED } from '../../core/profile.js';
import { basename, dirname, join } from 'node:path';
import type { Checkout } from '../../repo/checkout.js';
import { workerEnv } from '../env.js';
import type { SandboxInfo } from '../sandbox.js';
import { AppServer } from './app-server.js';
import type { ApprovalPolicy } from './approvals.js';
import { detectCodex, type CodexBinary } from './detect.js';
import { appServerArgv, codexConfigToml, threadStartParams, type CodexExplorer } from './launch.js';

export type ThreadMode = 'read-only' | 'workspace-write';

export type CodexSessionErrorCode = 'unsupported' | 'start_failed' | 'timeout' | 'cancelled';

export class CodexSessionError extends Error {
  constructor(
    readonly code: CodexSessionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CodexSessionError';
  }
}

export interface CodexSessionSpec {
  /** A codex adapter entry of the role profile (same shape for every role). */
  readonly config: CodexExplorer;
  readonly exe: string;
  readonly checkout: Checkout;
  readonly mode: ThreadMode;
  readonly sandbox: SandboxInfo;
  readonly policy: ApprovalPolicy;
  readonly developerInstructions: string;
  readonly deadline: number;
  readonly signal: AbortSignal;
  /** Source of the model API credential; it reaches the app server only, never the model's shell. */
  readonly parentEnv: NodeJS.ProcessEnv;
  readonly clientVersion: string;
  readonly onProgress: (message: string) => void;
  /** Extra read-only paths the sandboxed app server needs (e.g. what a wrapper script at codex_path execs). */
  readonly readablePaths?: readonly string[];
  /** The binary as already probed by the caller; probed here when absent. */
  readonly binary?: CodexBinary;
}

export interface CodexSession {
  readonly server: AppServer;
  readonly threadId: string;
  readonly binary: CodexBinary;
}

/** The workspace-write confinement: the checkout is the only writable root; no temp dirs, no network. */
export function workspaceWriteConfig(checkout: string): Record<string, unknown> {
  return { writable_roots: [checkout], network_access: false, exclude_tmpdir_env_var: true, exclude_slash_tmp: true };
}

/** The same confinement as process-level overrides, so no thread-level default can widen it. */
function workspaceWriteOverrides(checkout: string): string[] {
  return [
    `sandbox_workspace_write.writable_roots=${JSON.stringify([checkout])}`,
    'sandbox_workspace_write.network_access=false',
    'sandbox_workspace_write.exclude_tmpdir_env_var=true',
    'sandbox_workspace_write.exclude_slash_tmp=true',
  ].flatMap((o) => ['-c', o]);
}

export function sessionThreadParams(spec: Pick<CodexSessionSpec, 'config' | 'mode' | 'developerInstructions'>, checkout: string, shellEnv: Record<string, string>): Record<string, unknown> {
  const base = threadStartParams(spec.config, checkout, spec.developerInstructions, shellEnv);
  if (spec.mode === 'read-only') return base;
  return {
    ...base,
    sandbox: 'workspace-write',
    config: { ...(base.config as Record<string, unknown>), sandbox_workspace_write: workspaceWriteConfig(checkout) },
  };
}

// The npm launcher execs a native binary from a sibling platform package
// (@openai/codex-linux-x64), so the sandbox must show the whole package scope.
function packageDirOf(exe: string): string {
  let dir = dirname(realpathSync(exe));
  for (let i = 0; i < 6 && dir !== '/'; i++) {
    if (existsSync(join(dir, 'package.json'))) return basename(dirname(dir)).startsWith('@') ? dirname(dir) : dir;
    dir = dirname(dir);
  }
  return dirname(realpathSync(exe));
}

/**
 * Probes the binary, launches the app server in the checkout's run directory
 * and starts the thread. On any failure nothing is left running.
 */
export async function openCodexSession(spec: CodexSessionSpec): Promise<CodexSession> {
  const { checkout, config } = spec;
  // Anything in the run directory is readable by the model's commands, so a
  // login file copied there would be handed to the model (revisions stored
  // before this rule still parse; they are refused here).
  if (config.codex_home !== undefined) throw new CodexSessionError('unsupported', CODEX_HOME_REFUSED);
  let binary: CodexBinary;
  try {
    binary = spec.binary ?? (await detectCodex(spec.exe, workerEnv({ home: checkout.home, tmp: checkout.tmp }), checkout.runDir));
  } catch (e) {
    throw new CodexSessionError('unsupported', (e as Error).message);
  }
  if (spec.signal.aborted) throw new CodexSessionError('cancelled', 'cancelled before the codex app server started');

  const codexHome = join(checkout.runDir, 'codex-home');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), codexConfigToml(config));
  const extra: Record<string, string> = { CODEX_HOME: codexHome };
  const keyName = config.provider ? config.provider.env_key : 'OPENAI_API_KEY';
  const key = keyName ? spec.parentEnv[keyName] : undefined;
  if (keyName && key) extra[keyName] = key;
  const shellEnv = workerEnv({ home: checkout.home, tmp: checkout.tmp });

  const argv = appServerArgv(spec.sandbox.active ? realpathSync(spec.exe) : spec.exe, shellEnv);
  if (spec.mode === 'workspace-write') argv.push(...workspaceWriteOverrides(checkout.dir));
  const server = AppServer.spawn(
    {
      argv,
      cwd: checkout.dir,
      env: workerEnv({ home: checkout.home, tmp: checkout.tmp }, extra),
      // The app server itself must reach the model API; the model's commands
      // run in codex's own sandbox inside this one.
      ...(spec.sandbox.active ? { sandbox: { info: spec.sandbox, runDir: checkout.runDir, options: { network: true, readable: [packageDirOf(spec.exe), ...(spec.readablePaths ?? [])] } } } : {}),
    },
    spec.policy,
    spec.onProgress,
  );
  let stopped: CodexSessionErrorCode | null = null;
  const stop = (why: CodexSessionErrorCode) => () => {
    stopped ??= why;
    void server.kill();
  };
  const onTimeout = stop('timeout');
  const onAbort = stop('cancelled');
  const timer = setTimeout(onTimeout, Math.max(0, spec.deadline - Date.now()));
  spec.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await server.initialize(spec.clientVersion);
    const threadId = await server.startThread(sessionThreadParams(spec, checkout.dir, shellEnv));
    return { server, threadId, binary };
  } catch (e) {
    await server.kill();
    if (stopped === 'cancelled' || spec.signal.aborted) throw new CodexSessionError('cancelled', 'cancelled while the codex app server started');
    if (stopped === 'timeout') throw new CodexSessionError('timeout', 'the codex app server did not start before the deadline');
    throw new CodexSessionError('start_failed', `codex app-server failed to start: ${(e as Error).message}`);
  } finally {
    clearTimeout(timer);
    spec.signal.removeEventListener('abort', onAbort);
  }
}
