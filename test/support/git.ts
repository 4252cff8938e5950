// The one way the tests run git in their fixture repositories: the product's
// own environment (src/repo/git.ts — no inherited GIT_*, LC_ALL=C, no
// prompts, optional locks off) plus a fixed identity and date. Optional locks
// matter: a plain `git status` refreshes the index's stat data and rewrites
// `.git/index` whenever file timestamps moved since the last refresh, so a
// test that compares `.git` byte for byte would otherwise measure its own
// reads instead of what Needle wrote.
import { execFile, execFileSync } from 'node:child_process';
import { gitEnvironment } from '../../src/repo/git.js';

const IDENTITY = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

/**
 * The environment of every test git call. GIT_OPTIONAL_LOCKS is set here too,
 * not only inherited from the product's list, so the tests keep their hands
 * off the index even when Needle's own setting is what a test is checking.
 */
export const TEST_GIT_ENV: NodeJS.ProcessEnv = { ...gitEnvironment(), ...IDENTITY, GIT_OPTIONAL_LOCKS: '0' };

/** Runs git in `cwd` and returns stdout; throws (with git's stderr) on a non-zero exit. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: TEST_GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface GitRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** git without blocking the test's event loop (e.g. a user committing while Needle works); never rejects. */
export function gitAsync(cwd: string, ...args: string[]): Promise<GitRun> {
  return new Promise((resolve) => {
    const child = execFile('git', args, { cwd, env: TEST_GIT_ENV, encoding: 'utf8', timeout: 30_000 }, (_err, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}
