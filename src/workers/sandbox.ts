// Bubblewrap isolation (SPEC §7): when `bwrap` can create namespaces here, a
// worker sees the system directories read-only, its run directory writable,
// no network and nothing of the user's repository.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER } from '../core/limits.js';
import { sanitizedPath } from './env.js';

export interface SandboxInfo {
  bwrap: string | null;
  active: boolean;
  reason: string;
}

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/etc', '/opt'];

function findBwrap(): string | null {
  for (const dir of sanitizedPath().split(':')) {
    const candidate = join(dir, 'bwrap');
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

let detected: SandboxInfo | null = null;

/** Probes once per process: bwrap must exist and be able to start a net-less namespace. */
export function detectSandbox(): SandboxInfo {
  if (detected) return detected;
  if (process.platform !== 'linux') return (detected = { bwrap: null, active: false, reason: `bubblewrap isolation needs Linux (this is ${process.platform})` });
  const bwrap = findBwrap();
  if (!bwrap) return (detected = { bwrap: null, active: false, reason: 'bwrap not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)' });
  const probe = spawnSync(bwrap, [...baseArgs('/', { network: false }), '--', 'true'], {
    env: { PATH: sanitizedPath() },
    timeout: WORKER.probeTimeoutMs,
    encoding: 'utf8',
  });
  if (probe.status === 0) return (detected = { bwrap, active: true, reason: 'bwrap creates a net-less namespace' });
  const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0]!.slice(0, 200);
  return (detected = { bwrap, active: false, reason: `bwrap is present but cannot create a namespace here: ${why}` });
}

function baseArgs(runDir: string, opts: { network: boolean }): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  if (!opts.network) args.push('--unshare-net');
  for (const dir of SYSTEM_DIRS) args.push('--ro-bind-try', dir, dir);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  if (runDir !== '/') args.push('--bind', runDir, runDir);
  return args;
}

export interface SandboxOptions {
  /** Network is off unless a caller that must reach a model API turns it on explicitly. */
  network?: boolean;
  /** Further writable directories (must already exist). */
  writable?: string[];
  /** Further read-only paths, e.g. the worker executable's package outside the system dirs. */
  readable?: string[];
}

/** Wraps argv in bwrap; argv unchanged when the sandbox is not active. */
export function sandboxArgv(info: SandboxInfo, runDir: string, argv: string[], opts: SandboxOptions = {}): string[] {
  if (!info.active || !info.bwrap) return argv;
  const args = [info.bwrap, ...baseArgs(runDir, { network: opts.network ?? false })];
  for (const p of opts.readable ?? []) args.push('--ro-bind', p, p);
  for (const p of opts.writable ?? []) args.push('--bind', p, p);
  // No --chdir: bwrap keeps the caller's cwd, which lies inside runDir.
  return [...args, '--', ...argv];
}
