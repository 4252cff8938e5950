// The shell that starts git for the analyzer thread (src/repo/git-helper.ts):
// through it, gitBytes gives exactly what a direct git gives — bytes, exit
// statuses, errors — with the same scrubbed environment, and when the shell
// is gone or cannot start, git is started directly and nothing changes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gitBytes, gitEnvironment, runGitThrough } from '../../src/repo/git.js';
import { startGitHelper, type GitHelper } from '../../src/repo/git-helper.js';
import { createRepo } from '../evidence/fixtures/repos.js';

let repo: string;
const helpers: GitHelper[] = [];
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
  for (const h of helpers.splice(0)) h.close();
});

function started(env = gitEnvironment()): GitHelper {
  const helper = startGitHelper(env);
  expect(helper).not.toBeNull();
  helpers.push(helper!);
  return helper!;
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
    // Its output file cannot be written (a directory stands in its place): it declines, and git runs directly.
    rmSync(join(helper.dir, 'out'), { force: true });
    mkdirSync(join(helper.dir, 'out'));
    expect(helper.run(repo, args, 1 << 20)).toBeNull();
    expect(gitBytes(repo, args, { okCodes: [0, 1] }).equals(direct)).toBe(true);
    // …and serves again once it can.
    rmSync(join(helper.dir, 'out'), { recursive: true });
    expect(helper.run(repo, args, 1 << 20)?.stdout.equals(direct)).toBe(true);
  });

  it('does not start without bash, within its bound, and says so by giving nothing', () => {
    const started = performance.now();
    expect(startGitHelper({ ...gitEnvironment(), PATH: '/nonexistent' }, 300)).toBeNull();
    expect(performance.now() - started).toBeLessThan(5_000);
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
