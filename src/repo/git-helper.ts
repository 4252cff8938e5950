// A small long-lived shell that starts git for a large process. Node starts a
// child by fork() (libuv 1.46 on Linux), which copies the page tables of the
// whole process: measured on this machine, starting `git --version` takes
// ~2 ms from a fresh Node process and 6–11 ms from one of 130–350 MB, which a
// server with its analyzer thread is. Every `git grep` of a cold resolution
// paid that. The shell's own fork is cheap; it runs each git with the
// environment it was given (gitEnvironment(): no GIT_*), in the directory
// asked, and hands back the exit status; the output goes through files in a
// private directory, so any bytes and any size cross intact.
//
// Requests and replies go through two FIFOs, read and written synchronously
// (callers, like the analyzer, are synchronous). Only starting up polls: until
// the shell has opened its ends, an open or read would block forever if it
// never came up. A shell that dies closes its end of the reply FIFO: the
// caller reads end-of-file and runs git itself from then on.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { GIT_HELPER } from '../core/limits.js';

/** What one git run gave: its exit status and output, as execFileSync would report them. */
export interface HelperRun {
  readonly status: number;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

/**
 * Runs git through the helper; null when the helper cannot say what git did
 * (it is gone, the directory is missing, git could not start, git died on a
 * signal, the output exceeds `maxBuffer`): the caller runs git itself, which
 * reports each of those in its own words.
 */
export type HelperRunner = (cwd: string, args: readonly string[], maxBuffer: number) => HelperRun | null;

export interface GitHelper {
  readonly run: HelperRunner;
  /** Its private directory (git's output files, the FIFOs). */
  readonly dir: string;
  /** Ends the shell and removes its directory. */
  close(): void;
}

// $1 request FIFO, $2 reply FIFO, $3 the private directory. A request is the
// directory then the arguments, each NUL-terminated, then an empty string.
// The reply is one line: git's exit status, `cd` when the directory is
// missing, `io` when git's output could not be captured.
const SCRIPT = `
trap 'rm -rf -- "$3"' EXIT
exec 3<"$1" 4>"$2"
printf 'ready\\n' >&4
while :; do
  IFS= read -r -d '' dir <&3 || exit 0
  args=()
  while IFS= read -r -d '' a <&3 && [ -n "$a" ]; do args+=("$a"); done
  if ! cd -- "$dir" 2>/dev/null; then printf 'cd\\n' >&4; continue; fi
  # A status only from a git that ran with its output captured: a failed
  # redirection must not pass for git's exit 1 (grep's "no match").
  if ! { : >"$3/out" && : >"$3/err"; } 2>/dev/null; then printf 'io\\n' >&4; continue; fi
  command git "\${args[@]}" >>"$3/out" 2>>"$3/err" </dev/null
  printf '%d\\n' "$?" >&4
done
`;

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread for `ms` (only while the shell starts). */
const pause = (ms: number): void => void Atomics.wait(sleepCell, 0, 0, ms);

/** Opens a FIFO without ever blocking for good: retries a non-blocking open until the deadline. */
function openWhenReady(path: string, flags: number, deadline: number): number | null {
  for (;;) {
    try {
      return openSync(path, flags | constants.O_NONBLOCK);
    } catch (e) {
      // ENXIO: no reader yet on a FIFO opened for writing.
      if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || Date.now() > deadline) return null;
      pause(GIT_HELPER.pollMs);
    }
  }
}

/** Reads one reply line from a blocking fd; null on end-of-file (the shell is gone). */
function readLine(fd: number): string | null {
  const buf = Buffer.alloc(64);
  let n = 0;
  while (n === 0 || buf[n - 1] !== 0x0a) {
    if (n === buf.length) return null;
    const got = readSync(fd, buf, n, buf.length - n, null);
    if (got === 0) return null;
    n += got;
  }
  return buf.toString('utf8', 0, n - 1);
}

/** Waits for the shell's `ready` on a non-blocking fd, until the deadline. */
function awaitReady(fd: number, deadline: number): boolean {
  const buf = Buffer.alloc(6);
  let n = 0;
  while (Date.now() <= deadline) {
    try {
      n += readSync(fd, buf, n, buf.length - n, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
    }
    if (n === buf.length) return buf.toString() === 'ready\n';
    pause(GIT_HELPER.pollMs);
  }
  return false;
}

/** `env` without what would make bash run anything but the script: a startup file, exported functions (a `git` function). */
function shellEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (k !== 'BASH_ENV' && k !== 'ENV' && !k.startsWith('BASH_FUNC_')) out[k] = v;
  return out;
}

/**
 * Starts the helper with `env` (gitEnvironment(): the one environment every
 * git Needle runs gets); null when it cannot start (no bash, no mkfifo, no
 * temporary directory): git is then started directly, as without it.
 */
export function startGitHelper(env: NodeJS.ProcessEnv, startMs: number = GIT_HELPER.startMs): GitHelper | null {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'needle-git-'));
  } catch {
    return null;
  }
  try {
    return started(env, dir, startMs);
  } catch {
    // Anything unforeseen while starting (an fd limit, a vanished directory): without it.
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

function started(env: NodeJS.ProcessEnv, dir: string, startMs: number): GitHelper | null {
  const request = join(dir, 'request');
  const reply = join(dir, 'reply');
  const give = (): null => {
    rmSync(dir, { recursive: true, force: true });
    return null;
  };
  if (spawnSync('mkfifo', ['-m', '600', request, reply], { stdio: 'ignore' }).status !== 0) return give();
  const shell = spawn('bash', ['--noprofile', '--norc', '-c', SCRIPT, 'needle-git-helper', request, reply, dir], { env: shellEnvironment(env), stdio: 'ignore' });
  shell.on('error', () => {}); // no bash: the opens below time out
  // A server that is done does not wait for its helper; the helper ends when this process's ends of the FIFOs close.
  shell.unref();
  const deadline = Date.now() + startMs;
  // The reply FIFO first, non-blocking, so that the shell's open for writing returns.
  const probe = openSync(reply, constants.O_RDONLY | constants.O_NONBLOCK);
  const probeRequest = openWhenReady(request, constants.O_WRONLY, deadline);
  if (probeRequest === null || !awaitReady(probe, deadline)) {
    shell.kill();
    closeSync(probe);
    if (probeRequest !== null) closeSync(probeRequest);
    return give();
  }
  // The shell holds both other ends now, so blocking opens return at once;
  // from here on reads and writes block like a child's pipes.
  const req = openSync(request, constants.O_WRONLY);
  const rep = openSync(reply, constants.O_RDONLY);
  closeSync(probe);
  closeSync(probeRequest);
  let alive = true;

  const run: HelperRunner = (cwd, args, maxBuffer) => {
    // The request's own framing: NUL ends a string, an empty one ends the list; the shell keeps its directory between requests.
    if (!alive || args.some((a) => a.includes('\0') || a === '') || cwd.includes('\0') || !isAbsolute(cwd)) return null;
    let line: string | null;
    try {
      writeSync(req, Buffer.from(`${[cwd, ...args].join('\0')}\0\0`));
      line = readLine(rep);
    } catch {
      line = null;
    }
    if (line === null) {
      alive = false; // gone: git is started directly from now on
      return null;
    }
    const status = Number(line);
    // 127: git could not be started; above 128: git died on a signal.
    if (!/^\d+$/.test(line) || status === 127 || status > 128) return null;
    try {
      if (statSync(join(dir, 'out')).size > maxBuffer) return null;
      return { status, stdout: readFileSync(join(dir, 'out')), stderr: readFileSync(join(dir, 'err')) };
    } catch {
      return null; // its output cannot be read back: git runs directly
    }
  };
  return {
    run,
    dir,
    close: () => {
      if (!alive) return;
      alive = false;
      // End-of-file on its requests ends the shell, which removes the directory.
      closeSync(req);
      closeSync(rep);
    },
  };
}
