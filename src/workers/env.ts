// The environment of every worker process (SPEC §7): nothing is inherited from
// Needle's own environment except a sanitized PATH, so API keys, tokens and
// shell customisation cannot leak into a worker or the commands it runs.
import { statSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';

const FALLBACK_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * PATH with only absolute, existing directories (a relative or empty entry
 * would resolve inside the worker's cwd, i.e. repository content), the running
 * node's directory first so `#!/usr/bin/env node` launchers resolve.
 */
export function sanitizedPath(raw: string | undefined = process.env.PATH): string {
  const entries = [dirname(process.execPath), ...(raw ?? '').split(':'), ...FALLBACK_PATH];
  const seen = new Set<string>();
  for (const e of entries) {
    if (!e || !isAbsolute(e) || seen.has(e) || !isDirectory(e)) continue;
    seen.add(e);
  }
  return [...seen].join(':');
}

export function workerEnv(dirs: { home: string; tmp: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: sanitizedPath(),
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    LANG: 'C.UTF-8',
    ...extra,
  };
}
