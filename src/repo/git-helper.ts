// A small long-lived shell that starts git for a large process. Node starts a
// child by fork() (libuv 1.46 on Linux), which copies the page tables of the
// whole process: measured on this machine, starting `git --version` takes
// ~2 ms from a fresh Node process and 6–11 ms from one of 130–350 MB, which a
// server with its analyzer thread is, and the event loop of the thread that
// starts it stands still meanwhile (a worktree snapshot starts seven). The
// shell's own fork is cheap; it runs each git with the environment it was
// given (gitEnvironment(): no GIT_*), in the directory asked, and hands back
// the exit status; the output goes through files in a private directory, so
// any bytes and any size cross intact.
//
// Synchronous callers (the analyzer, a cold need run in process) talk to the
// shell through two FIFOs, read and written synchronously, one run at a time.
// Only connecting polls: until the shell has opened its ends, an open or read
// would block forever if it never came up. A shell that dies closes its end of
// the reply FIFO: the caller reads end-of-file and runs git itself from then
// on. Asynchronous callers (the server's worktree watch and snapshots) talk to
// it through its standard input and output, several runs in flight. The
// server starts one shell serving both as soon as it starts, while it is
// still small (startServerGitHelpers); the analyzer thread starts its own.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
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

/** The same for asynchronous callers. */
export type AsyncHelperRunner = (cwd: string, args: readonly string[], maxBuffer: number) => Promise<HelperRun | null>;

export interface GitHelper {
  readonly run: HelperRunner;
  /** Connects now if it has not yet (blocking, bounded like a first run); whether it serves. */
  connected(): boolean;
  /** Its private directory (git's output files, the FIFOs). */
  readonly dir: string;
  /** Ends the shell (or its synchronous side) and removes its directory. */
  close(): void;
}

export interface AsyncGitHelper {
  readonly run: AsyncHelperRunner;
  /** Its private directory (git's output files). */
  readonly dir: string;
  /** Ends the shell once its runs are done; runs asked later are declined. */
  close(): void;
}

// $1 and $2: the request and reply FIFOs the shell creates and serves, one
// run at a time, in a subshell; $3: the private directory. Standard input and
// output are served too, each run in a subshell of its own, so that a slow
// git does not hold up the next (a snapshot asks two at once). A request is an
// id, the directory, then the arguments, each NUL-terminated, then an empty
// string. The reply is one line: the id, then git's exit status, `cd` when the
// directory is missing, `io` when git's output could not be captured.
const SCRIPT = `
priv=$3
trap 'rm -rf -- "$priv"' EXIT
run_one() {
  if ! cd -- "$dir" 2>/dev/null; then printf '%s cd\\n' "$id" >&4; return; fi
  # A status only from a git that ran with its output captured: a failed
  # redirection must not pass for git's exit 1 (grep's "no match").
  if ! { : >"$priv/$id.out" && : >"$priv/$id.err"; } 2>/dev/null; then printf '%s io\\n' "$id" >&4; return; fi
  command git "\${args[@]}" >>"$priv/$id.out" 2>>"$priv/$id.err" </dev/null
  printf '%s %d\\n' "$id" "$?" >&4
}
serve() {
  while :; do
    IFS= read -r -d '' id <&3 || return
    IFS= read -r -d '' dir <&3 || return
    args=()
    while IFS= read -r -d '' a <&3 && [ -n "$a" ]; do args+=("$a"); done
    if [ "$1" = apart ]; then run_one 3<&- & else run_one; fi
  done
}
mkfifo -m 600 -- "$1" "$2" || exit 1
( trap - EXIT; exec 3<"$1" 4>"$2" </dev/null >/dev/null; printf 'ready\\n' >&4; serve ) &
fifos=$!
exec 3<&0 4>&1 </dev/null >/dev/null
serve apart
# Standard input closed (its caller is gone): the FIFO side, which may still
# wait for its caller to connect, is ended; the runs in flight are waited for.
kill "$fifos" 2>/dev/null
wait
`;

/** A synchronous caller has one run at a time: one id, whose output files are reused. */
const SYNC_ID = 's';

/** The request's bytes, or null for what its framing cannot carry (NUL ends a string, an empty one ends the list) or a relative directory. */
function framed(id: string, cwd: string, args: readonly string[]): Buffer | null {
  if (args.some((a) => a.includes('\0') || a === '') || cwd.includes('\0') || !isAbsolute(cwd)) return null;
  return Buffer.from(`${[id, cwd, ...args].join('\0')}\0\0`);
}

/**
 * A reply line: its id, and git's exit status when git ran with its output
 * captured and said something of its own (not 127, git could not be started;
 * not above 128, git died on a signal); null when the line is not a reply.
 */
function parseReply(line: string): { readonly id: string; readonly status: number | null } | null {
  const m = /^(\S+) (\d+|cd|io)$/.exec(line);
  if (!m) return null;
  const status = /^\d+$/.test(m[2]!) ? Number(m[2]) : null;
  return { id: m[1]!, status: status === null || status === 127 || status > 128 ? null : status };
}

const outputFiles = (dir: string, id: string): [string, string] => [join(dir, `${id}.out`), join(dir, `${id}.err`)];

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread for `ms` (only while connecting). */
const pause = (ms: number): void => void Atomics.wait(sleepCell, 0, 0, ms);

/** Opens a FIFO without ever blocking for good: retries a non-blocking open until the deadline. */
function openWhenReady(path: string, flags: number, deadline: number, gone: () => boolean): number | null {
  for (;;) {
    try {
      return openSync(path, flags | constants.O_NONBLOCK);
    } catch (e) {
      // ENOENT: the shell has not made the FIFO yet; ENXIO: no reader yet on a FIFO opened for writing.
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENXIO') || gone() || Date.now() > deadline) return null;
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

interface Shell {
  readonly process: ChildProcessByStdio<Writable, Readable, null>;
  readonly dir: string;
  /** True once the shell could not start or has ended. */
  readonly gone: () => boolean;
}

/** Spawns the shell in a new private directory; null without one. */
function spawnShell(env: NodeJS.ProcessEnv): Shell | null {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'needle-git-'));
  } catch {
    return null;
  }
  let ended = false;
  let child: Shell['process'];
  try {
    child = spawn('bash', ['--noprofile', '--norc', '-c', SCRIPT, 'needle-git-helper', join(dir, 'request'), join(dir, 'reply'), dir], {
      env: shellEnvironment(env),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
  } catch {
    // Anything unforeseen while spawning (an fd limit): without it.
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const end = (): void => {
    ended = true;
    rmSync(dir, { recursive: true, force: true });
  };
  child.on('error', end); // no bash
  child.on('exit', end);
  return { process: child, dir, gone: () => ended };
}

/**
 * The synchronous side of `shell`: it connects on its first run (polled
 * until `startMs` has passed) and, when that fails, declines from then on.
 */
function syncSide(shell: Shell, startMs: number): GitHelper {
  const { dir } = shell;
  let fds: { readonly req: number; readonly rep: number } | null = null;
  let alive = true;
  const connect = (): boolean => {
    const deadline = Date.now() + startMs;
    const request = join(dir, 'request');
    const reply = join(dir, 'reply');
    // The reply FIFO first, non-blocking, so that the shell's open for writing returns.
    const probe = openWhenReady(reply, constants.O_RDONLY, deadline, shell.gone);
    const probeRequest = probe === null ? null : openWhenReady(request, constants.O_WRONLY, deadline, shell.gone);
    const ready = probeRequest !== null && awaitReady(probe!, deadline);
    if (ready) {
      // The shell holds both other ends now, so blocking opens return at once;
      // from here on reads and writes block like a child's pipes.
      fds = { req: openSync(request, constants.O_WRONLY), rep: openSync(reply, constants.O_RDONLY) };
    }
    if (probe !== null) closeSync(probe);
    if (probeRequest !== null) closeSync(probeRequest);
    return ready;
  };

  /** Whether it serves, connecting first if it has not yet; one that never came up declines from then on. */
  const connected = (): boolean => {
    try {
      if (alive && fds === null && !connect()) alive = false;
    } catch {
      alive = false; // anything unforeseen while connecting (an fd limit, a vanished directory)
    }
    return alive;
  };

  const run: HelperRunner = (cwd, args, maxBuffer) => {
    const request = alive ? framed(SYNC_ID, cwd, args) : null;
    if (request === null || !connected()) return null;
    let line: string | null;
    try {
      writeSync(fds!.req, request);
      line = readLine(fds!.rep);
    } catch {
      line = null;
    }
    if (line === null) {
      alive = false; // gone: git is started directly from now on
      return null;
    }
    const reply = parseReply(line);
    if (reply?.id !== SYNC_ID || reply.status === null) return null;
    const [out, err] = outputFiles(dir, SYNC_ID);
    try {
      if (statSync(out).size > maxBuffer) return null;
      return { status: reply.status, stdout: readFileSync(out), stderr: readFileSync(err) };
    } catch {
      return null; // its output cannot be read back: git runs directly
    }
  };
  return {
    run,
    dir,
    connected,
    close: () => {
      if (!alive) return;
      alive = false;
      // Never connected: the shell ends its FIFO side when its standard input closes.
      if (fds === null) return;
      // End-of-file on its requests ends the FIFO side.
      closeSync(fds.req);
      closeSync(fds.rep);
    },
  };
}

/** The asynchronous side of `shell` (spawned with standard input and output). */
function asyncSide(shell: Shell): AsyncGitHelper {
  const { dir } = shell;
  const child = shell.process;
  const pending = new Map<string, { readonly maxBuffer: number; readonly resolve: (run: HelperRun | null) => void }>();
  let alive = true;
  let next = 0;
  // Only a run in flight keeps the process alive; an idle helper never does.
  const hold = (on: boolean): void => {
    for (const handle of [child, child.stdin, child.stdout] as { ref(): void; unref(): void }[]) {
      if (on) handle.ref();
      else handle.unref();
    }
  };
  const gone = (): void => {
    alive = false;
    for (const p of pending.values()) p.resolve(null);
    pending.clear();
    hold(false);
  };
  child.on('error', gone);
  child.on('close', gone);
  child.stdin.on('error', () => {}); // EPIPE once it is gone: 'close' declines what was pending
  createInterface({ input: child.stdout }).on('line', (line) => {
    const reply = parseReply(line);
    const waiting = reply ? pending.get(reply.id) : undefined;
    if (!reply || !waiting) return;
    pending.delete(reply.id);
    if (pending.size === 0) hold(false);
    void collect(dir, reply.id, reply.status, waiting.maxBuffer).then(waiting.resolve);
  });
  hold(false);

  const run: AsyncHelperRunner = (cwd, args, maxBuffer) => {
    const id = String(++next);
    const request = alive && !shell.gone() ? framed(id, cwd, args) : null;
    if (request === null) return Promise.resolve(null);
    return new Promise((resolve) => {
      pending.set(id, { maxBuffer, resolve });
      hold(true);
      child.stdin.write(request);
    });
  };
  return {
    run,
    dir,
    close: () => {
      if (!alive) return;
      alive = false;
      // End-of-file on its requests: the shell ends its FIFO side, waits for its runs, ends and removes the directory.
      child.stdin.end();
    },
  };
}

/** One asynchronous run's output, read back and removed. */
async function collect(dir: string, id: string, status: number | null, maxBuffer: number): Promise<HelperRun | null> {
  const [out, err] = outputFiles(dir, id);
  try {
    if (status === null || (await stat(out)).size > maxBuffer) return null;
    return { status, stdout: await readFile(out), stderr: await readFile(err) };
  } catch {
    return null; // its output cannot be read back: git runs directly
  } finally {
    await Promise.all([rm(out, { force: true }), rm(err, { force: true })]);
  }
}

/**
 * Starts the helper with `env` (gitEnvironment(): the one environment every
 * git Needle runs gets): one shell serving both the asynchronous callers of
 * this thread (a server's worktree watch and snapshots, the analyzer's
 * start-up listing) and the synchronous ones (the analyzer's searches, a cold
 * need run in process), which connect on their first run. Started as soon as
 * the process or thread starts, while it is small, and the connecting then
 * finds it long up. Without it (measured on a generated repository), every
 * watch snapshot forked the whole server seven times, its event loop standing
 * still 3–7 ms each. Null when no private directory can be made; a shell that
 * cannot start (no bash, no mkfifo) or dies declines every run, the
 * synchronous side after waiting `startMs` once, and git is started directly.
 */
export function startGitHelpers(env: NodeJS.ProcessEnv, startMs: number = GIT_HELPER.startMs): { sync: GitHelper; async: AsyncGitHelper } | null {
  const shell = spawnShell(env);
  return shell && { sync: syncSide(shell, startMs), async: asyncSide(shell) };
}
