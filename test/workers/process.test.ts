import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSupervised } from '../../src/workers/process.js';
import { workerEnv } from '../../src/workers/env.js';
import { detectSandbox, sandboxArgv } from '../../src/workers/sandbox.js';
import { WORKER } from '../../src/core/limits.js';
import { gone } from './procs.js';

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'needle-proc-'));
  mkdirSync(join(dir, 'home'));
  mkdirSync(join(dir, 'tmp'));
  env = workerEnv({ home: join(dir, 'home'), tmp: join(dir, 'tmp') });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));


describe('workerEnv', () => {
  it('passes nothing from the parent environment but a sanitized PATH', () => {
    process.env.NEEDLE_TEST_SECRET = 'sk-should-not-leak';
    const e = workerEnv({ home: '/h', tmp: '/t' }, { CODEX_HOME: '/c' });
    delete process.env.NEEDLE_TEST_SECRET;
    expect(Object.keys(e).sort()).toEqual(['CODEX_HOME', 'HOME', 'LANG', 'PATH', 'TMPDIR']);
    expect(e.HOME).toBe('/h');
    expect(e.PATH!.split(':').every((p) => p.startsWith('/'))).toBe(true);
  });
});

describe('runSupervised', () => {
  it('runs a command with the given environment and stdin', async () => {
    const r = await runSupervised({ argv: ['sh', '-c', 'cat; echo "$HOME"; env | grep -c . >&2'], cwd: dir, env, stdin: 'hi\n', timeoutMs: 10_000, maxOutputBytes: 4096 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`hi\n${join(dir, 'home')}\n`);
    expect(r.timedOut || r.cancelled || r.truncated).toBe(false);
  });

  it('bounds captured output', async () => {
    const r = await runSupervised({ argv: ['sh', '-c', 'head -c 100000 /dev/zero'], cwd: dir, env, timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(r.stdout.length).toBe(1000);
    expect(r.truncated).toBe(true);
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const pidFile = join(dir, 'gc-timeout.pid');
    const r = await runSupervised({ argv: ['sh', '-c', `sleep 300 & echo $! > ${pidFile}; wait`], cwd: dir, env, timeoutMs: 300, maxOutputBytes: 1000 });
    expect(r.timedOut).toBe(true);
    const gc = Number(readFileSync(pidFile, 'utf8'));
    expect(await gone(gc)).toBe(true);
  });

  it('kills a grandchild that ignores SIGTERM after the grace period', async () => {
    const pidFile = join(dir, 'gc-stubborn.pid');
    const r = await runSupervised({ argv: ['sh', '-c', `sh -c 'trap "" TERM; sleep 300' & echo $! > ${pidFile}; wait`], cwd: dir, env, timeoutMs: 300, maxOutputBytes: 1000 });
    expect(r.timedOut).toBe(true);
    expect(r.durationMs).toBeLessThan(300 + WORKER.killGraceMs + 3000);
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('reaps a background grandchild left behind by a leader that exits', async () => {
    const pidFile = join(dir, 'gc-left.pid');
    const r = await runSupervised({ argv: ['sh', '-c', `sleep 300 >/dev/null 2>&1 & echo $! > ${pidFile}`], cwd: dir, env, timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(r.exitCode).toBe(0);
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('cancels on abort', async () => {
    const ac = new AbortController();
    const p = runSupervised({ argv: ['sleep', '300'], cwd: dir, env, timeoutMs: 60_000, signal: ac.signal, maxOutputBytes: 1000 });
    ac.abort();
    const r = await p;
    expect(r.cancelled).toBe(true);
    expect(r.exitCode).toBeNull();
  });

  it('reports a missing executable as a failed run', async () => {
    const r = await runSupervised({ argv: ['/nonexistent/bin/x'], cwd: dir, env, timeoutMs: 5_000, maxOutputBytes: 1000 });
    expect(r.exitCode).toBeNull();
    expect(r.stderr).toMatch(/cannot start/);
  });
});

const sandbox = detectSandbox();
describe.skipIf(!sandbox.active)('bubblewrap sandbox', () => {
  it('has no network, cannot see or write outside the run directory', async () => {
    const runDir = join(dir, 'run');
    mkdirSync(join(runDir, 'home'), { recursive: true });
    mkdirSync(join(runDir, 'tmp'), { recursive: true });
    const secretDir = mkdtempSync(join(tmpdir(), 'needle-user-'));
    writeFileSync(join(secretDir, 'secret'), 'x');
    const script = [
      `test -e ${secretDir}/secret && echo SEES_USER`,
      `touch ${secretDir}/w 2>/dev/null && echo WROTE_OUTSIDE`,
      `touch ${runDir}/ok && echo WROTE_INSIDE`,
      `cat /proc/net/dev | grep -c : `,
    ].join('; ');
    const r = await runSupervised({
      argv: ['sh', '-c', script],
      cwd: runDir,
      env: workerEnv({ home: join(runDir, 'home'), tmp: join(runDir, 'tmp') }),
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
      sandbox: { info: sandbox, runDir },
    });
    expect(r.stdout).not.toContain('SEES_USER');
    expect(r.stdout).not.toContain('WROTE_OUTSIDE');
    expect(r.stdout).toContain('WROTE_INSIDE');
    // Only the loopback interface exists in a fresh network namespace.
    expect(r.stdout.trim().split('\n').at(-1)).toBe('1');
    expect(existsSync(join(secretDir, 'w'))).toBe(false);
    rmSync(secretDir, { recursive: true, force: true });
  });

  it('leaves argv unchanged when inactive', () => {
    expect(sandboxArgv({ bwrap: null, active: false, reason: 'x' }, '/r', ['a', 'b'])).toEqual(['a', 'b']);
    expect(sandboxArgv(sandbox, '/r', ['a'])).toContain('--unshare-net');
  });
});
