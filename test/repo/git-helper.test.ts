// The shell that starts git for the server and the analyzer thread
// (src/repo/git-helper.ts): through it, gitBytes and gitBytesAsync give
// exactly what a direct git gives — bytes, exit statuses, errors — with the
// same scrubbed environment, and when the shell is gone or cannot start, git
// is started directly and nothing changes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitBytes, gitBytesAsync, gitEnvironment, runGitAsyncThrough, runGitThrough } from '../../src/repo/git.js';
import { startGitHelpers, type AsyncGitHelper, type GitHelper } from '../../src/repo/git-helper.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { WorktreeWatch } from '../../src/repo/worktree-watch.js';
import { createRepo } from '../evidence/fixtures/repos.js';

let repo: string;
const helpers: { sync: GitHelper; async: AsyncGitHelper }[] = [];
beforeAll(() => {
  repo = createRepo({
    'src/a.ts': 'export const alpha = 1;\nexport function beta() {\n  return alpha;\n}\n',
    'src/b.ts': 'import { alpha } from "./a";\nconsole.log(alpha);\n',
    'big.txt': `${'x'.repeat(99)}\n`.repeat(20_000),
    'dir with space/ünï.py': 'alpha = 2\n',
  });
});
afterEach(() => {
  runGitThrough(null);
  runGitAsyncThrough(null);
  for (const h of helpers.splice(0)) {
    h.sync.close();
    h.async.close();
  }
});

function startedBoth(env = gitEnvironment()): { sync: GitHelper; async: AsyncGitHelper } {
  const both = startGitHelpers(env);
  expect(both).not.toBeNull();
  helpers.push(both!);
  return both!;
}

/** The synchronous side, connected. */
function started(env = gitEnvironment()): GitHelper {
  const { sync } = startedBoth(env);
  expect(sync.connected()).toBe(true);
  return sync;
}

/** What gitBytes gives or throws, directly and through the helper. */
function bothWays(cwd: string, args: string[], opts: Parameters<typeof gitBytes>[2] = {}): [unknown, unknown] {
  const outcome = () => {
    try {
      return gitBytes(cwd, args, opts);
    } catch (e) {
      return e;
    }
  };
  runGitThrough(null);
  const direct = outcome();
  runGitThrough(started().run);
  return [direct, outcome()];
}

describe('the git helper', () => {
  it('gives the bytes and exit status a direct git gives: matches, no match, NUL-separated listings, a megabyte', () => {
    const helper = started();
    for (const args of [
      ['grep', '--untracked', '-n', '-I', '-z', '-F', '-e', 'alpha', '--'],
      ['grep', '-n', '-w', '-e', 'no_such_word', '--'],
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      ['show', 'HEAD:big.txt'],
    ]) {
      let status = 0;
      let stdout: Buffer;
      try {
        stdout = execFileSync('git', args, { cwd: repo, env: gitEnvironment(), maxBuffer: 64 << 20 });
      } catch (e) {
        status = (e as { status: number }).status;
        stdout = (e as { stdout: Buffer }).stdout;
      }
      const run = helper.run(repo, args, 64 << 20);
      expect(run?.status, args.join(' ')).toBe(status);
      expect(run!.stdout.equals(stdout), args.join(' ')).toBe(true);
    }
    expect(helper.run(repo, ['show', 'HEAD:big.txt'], 64 << 20)!.stdout.length).toBe(2_000_000);
  });

  it('makes gitBytes answer and fail exactly as a direct git does', () => {
    const cases: [string, string[], Parameters<typeof gitBytes>[2]][] = [
      [repo, ['grep', '-n', '-e', 'alpha', '--', '*.py'], {}],
      [repo, ['grep', '-n', '-e', 'nothing here', '--'], { okCodes: [0, 1] }],
      [repo, ['rev-parse', '--verify', 'no-such-branch'], {}],
      [repo, ['show', 'HEAD:big.txt'], { maxBuffer: 1_000 }],
      [join(repo, 'no-such-dir'), ['status', '--porcelain'], {}],
      [repo, ['grep', '-n', '-e', '', '--', 'src/b.ts'], {}],
      [repo, ['hash-object', '--stdin'], { input: 'piped\n' }],
    ];
    for (const [cwd, args, opts] of cases) {
      const [direct, helped] = bothWays(cwd, args, opts);
      expect(helped, args.join(' ')).toEqual(direct);
    }
    const [, missing] = bothWays(join(repo, 'no-such-dir'), ['status'], {});
    expect(String(missing)).toMatch(/no such directory/);
  });

  it('runs only its own script: a BASH_ENV startup file and an exported `git` function in the environment change nothing', () => {
    const rc = join(repo, '.git', 'hostile-rc');
    writeFileSync(rc, 'exit 3\n');
    const helper = started(gitEnvironment({ BASH_ENV: rc, 'BASH_FUNC_git%%': '() { echo hijacked; }' }));
    const run = helper.run(repo, ['rev-parse', '--show-toplevel'], 1 << 20);
    expect(run?.status).toBe(0);
    expect(run!.stdout.toString().trim()).toBe(execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: repo, env: gitEnvironment() }).toString().trim());
  });

  it('once closed (or gone), declines, and gitBytes starts git directly with the same answer', () => {
    const helper = started();
    runGitThrough(helper.run);
    const before = gitBytes(repo, ['ls-files']);
    helper.close();
    expect(helper.run(repo, ['ls-files'], 1 << 20)).toBeNull();
    expect(gitBytes(repo, ['ls-files']).equals(before)).toBe(true);
  });

  it('never passes an output it could not capture for git\'s own answer: a grep with no match stays distinguishable', () => {
    const helper = started();
    runGitThrough(helper.run);
    const args = ['grep', '-n', '-e', 'alpha', '--'];
    const direct = execFileSync('git', args, { cwd: repo, env: gitEnvironment() });
    // Its output file (one name, reused by the synchronous side) cannot be
    // written: a directory stands in its place; it declines, and git runs directly.
    rmSync(join(helper.dir, 's.out'), { force: true });
    mkdirSync(join(helper.dir, 's.out'));
    expect(helper.run(repo, args, 1 << 20)).toBeNull();
    expect(gitBytes(repo, args, { okCodes: [0, 1] }).equals(direct)).toBe(true);
    // …and serves again once it can.
    rmSync(join(helper.dir, 's.out'), { recursive: true });
    expect(helper.run(repo, args, 1 << 20)?.stdout.equals(direct)).toBe(true);
  });

  it('without bash, declines every run — the synchronous side after waiting its bound once — and git runs directly', async () => {
    const both = startGitHelpers({ ...gitEnvironment(), PATH: '/nonexistent' }, 300);
    expect(both).not.toBeNull();
    helpers.push(both!);
    const started = performance.now();
    expect(both!.sync.connected()).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(both!.sync.run(repo, ['rev-parse', 'HEAD'], 1 << 20)).toBeNull();
    expect(await both!.async.run(repo, ['rev-parse', 'HEAD'], 1 << 20)).toBeNull();
    runGitThrough(both!.sync.run);
    runGitAsyncThrough(both!.async.run);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, env: gitEnvironment() });
    expect(gitBytes(repo, ['rev-parse', 'HEAD']).equals(head)).toBe(true);
    expect((await gitBytesAsync(repo, ['rev-parse', 'HEAD'])).equals(head)).toBe(true);
  });

  it('declines what its framing cannot carry: an empty argument, a relative directory', () => {
    const helper = started();
    expect(helper.run(repo, ['grep', '-e', '', '--'], 1 << 20)).toBeNull();
    expect(helper.run('relative/dir', ['status'], 1 << 20)).toBeNull();
    // …and keeps serving.
    expect(helper.run(repo, ['rev-parse', 'HEAD'], 1 << 20)?.status).toBe(0);
    writeFileSync(join(repo, 'untracked.ts'), 'export const gamma = 3;\n');
    expect(helper.run(repo, ['grep', '--untracked', '-l', '-e', 'gamma', '--'], 1 << 20)?.stdout.toString()).toBe('untracked.ts\n');
  });
});

/** Process ids whose command line holds `arg` (Linux /proc). */
function processesWithArgument(arg: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** What gitBytesAsync gives or rejects with, directly and through the helper's asynchronous side. */
async function bothWaysAsync(cwd: string, args: string[], opts: Parameters<typeof gitBytesAsync>[2] = {}): Promise<[unknown, unknown]> {
  const outcome = () => gitBytesAsync(cwd, args, opts).catch((e: unknown) => e);
  runGitAsyncThrough(null);
  const direct = await outcome();
  runGitAsyncThrough(startedBoth().async.run);
  return [direct, await outcome()];
}

describe('the git helper, asynchronous side', () => {
  it('makes gitBytesAsync answer and fail exactly as a direct git does', async () => {
    const cases: [string, string[], Parameters<typeof gitBytesAsync>[2]][] = [
      [repo, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {}],
      [repo, ['show', 'HEAD:big.txt'], {}],
      [repo, ['grep', '-n', '-e', 'nothing here', '--'], { okCodes: [0, 1] }],
      [repo, ['grep', '-n', '-e', 'nothing here', '--'], {}],
      [repo, ['rev-parse', '--verify', 'no-such-branch'], {}],
      [repo, ['show', 'HEAD:big.txt'], { maxBuffer: 1_000 }],
      [join(repo, 'no-such-dir'), ['status', '--porcelain'], {}],
    ];
    for (const [cwd, args, opts] of cases) {
      const [direct, helped] = await bothWaysAsync(cwd, args, opts);
      // Buffers by their bytes (a deep comparison of 2 MB is slow); errors by class and message.
      if (Buffer.isBuffer(direct)) expect(Buffer.isBuffer(helped) && helped.equals(direct), args.join(' ')).toBe(true);
      else expect(helped, args.join(' ')).toEqual(direct);
    }
  });

  it('runs several at once and gives each its own answer, whatever order they finish in', async () => {
    const { async: helper } = startedBoth();
    const asks = ['src/a.ts', 'src/b.ts', 'big.txt', 'dir with space/ünï.py'].flatMap((path) => [
      ['show', `HEAD:${path}`],
      ['log', '-1', '--format=%H', '--', path],
    ]);
    const runs = await Promise.all(asks.map((args) => helper.run(repo, args, 64 << 20)));
    asks.forEach((args, i) => {
      const direct = execFileSync('git', args, { cwd: repo, env: gitEnvironment(), maxBuffer: 64 << 20 });
      expect(runs[i]?.status, args.join(' ')).toBe(0);
      expect(runs[i]!.stdout.equals(direct), args.join(' ')).toBe(true);
    });
    // Every run's output files are removed once read.
    expect(readdirSync(helper.dir).filter((f) => f.endsWith('.out') || f.endsWith('.err'))).toEqual([]);
  });

  it('once closed, declines; the shell ends and removes its directory; gitBytesAsync starts git directly', async () => {
    const both = startedBoth();
    expect(both.sync.connected()).toBe(true);
    runGitAsyncThrough(both.async.run);
    const before = await gitBytesAsync(repo, ['ls-files']);
    both.async.close();
    both.sync.close();
    expect(await both.async.run(repo, ['ls-files'], 1 << 20)).toBeNull();
    expect((await gitBytesAsync(repo, ['ls-files'])).equals(before)).toBe(true);
    for (let i = 0; i < 500 && existsSync(both.async.dir); i++) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(both.async.dir)).toBe(false);
  });

  it('a shell killed under it declines the runs in flight and later ones; gitBytesAsync starts git directly', async () => {
    const both = startedBoth();
    runGitAsyncThrough(both.async.run);
    const direct = execFileSync('git', ['ls-files'], { cwd: repo, env: gitEnvironment() });
    expect((await gitBytesAsync(repo, ['ls-files'])).equals(direct)).toBe(true);
    // Its private directory is on its command line (the shell's and its FIFO side's): that names this shell alone.
    for (const pid of processesWithArgument(both.async.dir)) process.kill(pid, 'SIGKILL');
    const inFlight = both.async.run(repo, ['ls-files'], 1 << 20);
    expect(await inFlight).toBeNull();
    expect(await both.async.run(repo, ['ls-files'], 1 << 20)).toBeNull();
    expect((await gitBytesAsync(repo, ['ls-files'])).equals(direct)).toBe(true);
    // The synchronous side of the same shell declines too, and gitBytes answers directly.
    expect(both.sync.connected()).toBe(false);
    runGitThrough(both.sync.run);
    expect(gitBytes(repo, ['ls-files']).equals(direct)).toBe(true);
  });

  it('an idle helper does not keep a process alive, and a server-like caller still sees every answer', () => {
    // A child Node process starts the helpers, uses both sides, and exits on its own without closing them.
    const script = `
      const { startGitHelpers } = await import(${JSON.stringify(resolve('dist/src/repo/git-helper.js'))});
      const h = startGitHelpers(process.env);
      const a = await h.async.run(${JSON.stringify(repo)}, ['rev-parse', 'HEAD'], 1 << 20);
      const s = h.sync.run(${JSON.stringify(repo)}, ['rev-parse', 'HEAD'], 1 << 20);
      console.log(a.stdout.toString().trim() === s.stdout.toString().trim() ? 'same' : 'differ');
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    expect(out.toString().trim()).toBe('same');
  });

  it('runs the worktree watch\'s snapshots: the digest it reports is the one git computes directly', async () => {
    const { async: helper } = startedBoth();
    let runs = 0;
    runGitAsyncThrough((cwd, args, max) => {
      runs++;
      return helper.run(cwd, args, max);
    });
    const watch = new WorktreeWatch(repo).start();
    try {
      for (let i = 0; i < 6_000 && watch.current() === null; i++) await new Promise((r) => setTimeout(r, 5));
      expect(watch.current()).toBe(captureSnapshot(repo).sourceDigest);
      expect(runs).toBeGreaterThan(0);
    } finally {
      watch.close();
    }
  });
});
