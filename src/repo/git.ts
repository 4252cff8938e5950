// The one way Needle runs git: no shell, bounded output, and an environment
// without the caller's GIT_* variables, so a GIT_DIR, GIT_WORK_TREE or
// GIT_INDEX_FILE inherited from whoever started Needle cannot point our reads
// (or a checkout's commit) at another repository.
import { execFile, execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { REPO } from '../core/limits.js';
import type { AsyncHelperRunner, HelperRunner } from './git-helper.js';

export class RepoError extends Error {
  override readonly name = 'RepoError';
  /** Set when git itself could not be started, so callers do not mistake it for "not a repository". */
  constructor(message: string, readonly missingGit = false) {
    super(message);
  }
}

/** git's listing of a worktree's files: tracked and untracked, not ignored, NUL-separated (what the analyzer's searches and a checkout see). */
export const LIST_WORKTREE_FILES: readonly string[] = ['ls-files', '-z', '--cached', '--others', '--exclude-standard'];

export interface GitOptions {
  readonly input?: Buffer | string;
  /** Exit codes that count as success (default [0]); e.g. [0, 1] for `rev-parse --verify -q`. */
  readonly okCodes?: readonly number[];
  readonly maxBuffer?: number;
  /** Extra variables for this invocation (never GIT_*: those stay stripped). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The environment every git Needle runs gets: the caller's minus GIT_*, with
 * `extra` merged first (so it cannot add GIT_* either). Exported for the test
 * suite's own git helper, which must see the repository exactly as Needle does.
 */
export function gitEnvironment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries({ ...process.env, ...extra })) if (!k.startsWith('GIT_')) env[k] = v;
  // Optional locks off: reading status must never take index.lock or rewrite
  // the user's index while they work. No prompts: a sync call cannot answer one.
  env.GIT_OPTIONAL_LOCKS = '0';
  env.GIT_TERMINAL_PROMPT = '0';
  env.LC_ALL = 'C';
  return env;
}

function oneLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
  return line.length > REPO.errorDetailMaxChars ? `${line.slice(0, REPO.errorDetailMaxChars)}…` : line;
}

/**
 * Starts git for this thread's gitBytes calls instead of a direct child (the
 * analyzer thread installs repo/git-helper.ts). Calls with input or extra
 * environment, and any the runner declines, start git directly.
 */
let runner: HelperRunner | null = null;
export function runGitThrough(r: HelperRunner | null): void {
  runner = r;
}

/** A git that ran and failed: its first line of stderr, else of the spawn's own message. */
function failed(args: readonly string[], status: number | null, stderr: Buffer | null, message: string): RepoError {
  const detail = oneLine(stderr?.toString('utf8') ?? '') || oneLine(message);
  return new RepoError(`${`git ${args[0] ?? ''}`.trim()} failed (exit ${status ?? 'signal'}): ${detail}`);
}

/** Raw stdout bytes; paths and file listings are bytes, not necessarily UTF-8. */
export function gitBytes(cwd: string, args: readonly string[], opts: GitOptions = {}): Buffer {
  const okCodes = opts.okCodes ?? [0];
  const maxBuffer = opts.maxBuffer ?? REPO.gitMaxOutputBytes;
  const helped = runner && opts.input === undefined && opts.env === undefined ? runner(cwd, args, maxBuffer) : null;
  if (helped) {
    if (okCodes.includes(helped.status)) return helped.stdout;
    throw failed(args, helped.status, helped.stderr, `Command failed: git ${args.join(' ')}`);
  }
  try {
    return execFileSync('git', args, {
      cwd,
      env: gitEnvironment(opts.env),
      input: opts.input,
      maxBuffer,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { status?: number | null; stdout?: Buffer; stderr?: Buffer };
    if (typeof err.status === 'number' && okCodes.includes(err.status)) return err.stdout ?? Buffer.alloc(0);
    const what = `git ${args[0] ?? ''}`.trim();
    if (err.code === 'ENOBUFS') throw new RepoError(`${what}: output exceeds ${maxBuffer} bytes`);
    if (err.code === 'ENOENT' && err.status == null) {
      // spawn reports a missing cwd and a missing binary alike.
      if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new RepoError(`${what}: no such directory: ${cwd}`);
      throw new RepoError('git is not installed or not on PATH', true);
    }
    throw failed(args, err.status ?? null, err.stderr ?? null, err.message);
  }
}

export function git(cwd: string, args: string[], opts?: GitOptions): string {
  return gitBytes(cwd, args, opts).toString('utf8');
}

/**
 * Starts git for this thread's gitBytesAsync calls instead of a direct child
 * (the server installs repo/git-helper.ts's asynchronous helper). Calls with
 * extra environment, and any the runner declines, start git directly.
 */
let asyncRunner: AsyncHelperRunner | null = null;
export function runGitAsyncThrough(r: AsyncHelperRunner | null): void {
  asyncRunner = r;
}

/** gitBytes without blocking the event loop (background work such as the worktree watch). */
export async function gitBytesAsync(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<Buffer> {
  const okCodes = opts.okCodes ?? [0];
  const maxBuffer = opts.maxBuffer ?? REPO.gitMaxOutputBytes;
  const what = `git ${args[0] ?? ''}`.trim();
  const helped = asyncRunner && opts.input === undefined && opts.env === undefined ? await asyncRunner(cwd, args, maxBuffer) : null;
  if (helped) {
    if (okCodes.includes(helped.status)) return helped.stdout;
    throw new RepoError(`${what} failed: ${oneLine(helped.stderr.toString('utf8')) || `Command failed: git ${args.join(' ')}`}`);
  }
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, env: gitEnvironment(opts.env), encoding: 'buffer', maxBuffer, windowsHide: true },
      (error, stdout, stderr) => {
        const status = (error as { code?: unknown } | null)?.code;
        if (!error || (typeof status === 'number' && okCodes.includes(status))) resolve(stdout);
        else reject(new RepoError(`${what} failed: ${oneLine(stderr.toString('utf8')) || oneLine(error.message)}`));
      },
    );
  });
}
