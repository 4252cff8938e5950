// The package version, read once from the package.json this module ships in
// (src/ under vitest, dist/src/ when built), so --version and serverInfo agree.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'needle' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the needle package.json');
    dir = parent;
  }
}

export const NEEDLE_VERSION = findVersion();
