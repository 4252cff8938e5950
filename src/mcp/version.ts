// The package's own package.json, read once from where this module ships
// (src/ under vitest, dist/src/ or its bundle when built): the version, so
// --version and serverInfo agree, and the `needle` binary it declares, which
// the clients' settings run (`needle enable`).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface NeedlePackage {
  readonly version: string;
  readonly bin: string;
}

function findPackage(): NeedlePackage {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string; bin?: { needle?: unknown } };
      if (pkg.name === 'needle' && typeof pkg.version === 'string' && typeof pkg.bin?.needle === 'string')
        return { version: pkg.version, bin: resolve(dir, pkg.bin.needle) };
    } catch {
      // not here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the needle package.json');
    dir = parent;
  }
}

const NEEDLE_PACKAGE = findPackage();
export const NEEDLE_VERSION = NEEDLE_PACKAGE.version;
/** Absolute path of the `needle` binary this installation declares (package.json `bin`). */
export const NEEDLE_BIN = NEEDLE_PACKAGE.bin;
