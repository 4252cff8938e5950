// A child process that leads its own process group, so that everything it
// starts (shells, test runners, `sleep`) can be signalled at once and nothing
// survives the run.
import { spawn, type ChildProcess } from 'node:child_process';
import { WORKER } from '../core/limits.js';
import { sandboxArgv, type SandboxInfo, type SandboxOptions } from './sandbox.js';

export interface GroupSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  sandbox?: { info: SandboxInfo; runDir: string; options?: SandboxOptions };
}

export interface ProcessGroup {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the leader's exit once it has exited. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** SIGTERM to the whole group, SIGKILL after the grace period; resolves once the leader exited. */
  terminate(): Promise<void>;
  /** SIGKILL to whatever is still in the group (after the leader exited, anything left is an orphan). */
  reap(): void;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already empty.
  }
}

export function spawnGroup(spec: GroupSpec): ProcessGroup {
  if (spec.argv.length === 0) throw new Error('spawnGroup: empty argv');
  const argv = spec.sandbox ? sandboxArgv(spec.sandbox.info, spec.sandbox.runDir, spec.argv, spec.sandbox.options) : spec.argv;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let exitInfo: { code: number | null; signal: string | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve((exitInfo = { code, signal })));
    child.once('error', () => resolve((exitInfo = { code: null, signal: null })));
  });
  const pid = child.pid ?? -1;
  // Writes to a dead child's stdin must not crash Needle.
  child.stdin?.on('error', () => {});
  return {
    child,
    pid,
    exited,
    reap: () => {
      if (pid > 0) signalGroup(pid, 'SIGKILL');
    },
    async terminate() {
      if (pid <= 0) return;
      if (exitInfo) {
        signalGroup(pid, 'SIGKILL');
        return;
      }
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), WORKER.killGraceMs);
      await exited;
      clearTimeout(timer);
      signalGroup(pid, 'SIGKILL');
    },
  };
}
