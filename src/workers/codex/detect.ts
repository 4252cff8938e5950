// Feature detection of the installed `codex` binary (SPEC §7): the App Server
// shapes Needle relies on exist from 0.144.0 on; anything else is refused with
// a message that says what was found and what is needed.
import { WORKER } from '../../core/limits.js';
import { runSupervised } from '../process.js';

export const MIN_CODEX_VERSION = [0, 144, 0] as const;
const REQUIRED_FLAGS = ['--listen', '--strict-config'] as const;

export interface CodexBinary {
  readonly path: string;
  readonly version: string;
}

export class CodexUnsupportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodexUnsupportedError';
  }
}

function olderThan(v: number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    if ((v[i] ?? 0) !== min[i]) return (v[i] ?? 0) < min[i]!;
  }
  return false;
}

const cache = new Map<string, Promise<CodexBinary>>();

/** Probes once per executable path and process. */
export function detectCodex(path: string, env: Record<string, string>, cwd: string): Promise<CodexBinary> {
  let p = cache.get(path);
  if (!p) {
    p = probe(path, env, cwd);
    cache.set(path, p);
    p.catch(() => cache.delete(path));
  }
  return p;
}

async function probe(path: string, env: Record<string, string>, cwd: string): Promise<CodexBinary> {
  const run = (args: string[]) => runSupervised({ argv: [path, ...args], cwd, env, timeoutMs: WORKER.probeTimeoutMs, maxOutputBytes: 64 * 1024 });
  const [version, help] = await Promise.all([run(['--version']), run(['app-server', '--help'])]);
  if (version.exitCode !== 0)
    throw new CodexUnsupportedError(`cannot run ${path} --version (${version.timedOut ? 'timed out' : (version.stderr.trim().split('\n')[0] ?? `exit ${version.exitCode}`).slice(0, 200)})`);
  const m = /^codex-cli (\d+)\.(\d+)\.(\d+)\S*\s*$/m.exec(version.stdout);
  if (!m) throw new CodexUnsupportedError(`${path} --version printed ${JSON.stringify(version.stdout.trim().slice(0, 80))}, not "codex-cli X.Y.Z"`);
  const v = [Number(m[1]), Number(m[2]), Number(m[3])];
  const found = v.join('.');
  if (olderThan(v, MIN_CODEX_VERSION))
    throw new CodexUnsupportedError(`codex ${found} at ${path} is too old: needle needs codex ${MIN_CODEX_VERSION.join('.')} or newer (npm install @openai/codex)`);
  const missing = REQUIRED_FLAGS.filter((f) => !help.stdout.includes(f));
  if (help.exitCode !== 0 || missing.length)
    throw new CodexUnsupportedError(`codex ${found} at ${path} has no usable app-server (missing ${missing.join(', ') || 'app-server'}); needle needs \`codex app-server\` with ${REQUIRED_FLAGS.join(' and ')}`);
  return { path, version: found };
}
