// The identity of the embedded static analyzer, under which what it could not
// satisfy is certified as a negative outcome (SPEC §16a): a digest of its code
// as loaded — every module of `evidence/` and of `core/` (which holds
// definitions the analyzer follows, e.g. what test code is), compiled or
// not — and of the
// tree-sitter grammar package's version. Another analyzer build has another
// identity, so nothing an older analyzer could not do is held against a newer
// one. Computed once per process.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3, canonical, type Digest } from '../core/digest.js';

const CODE = /\.(?:[cm]?js|[cm]?ts)$/;

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return codeFiles(path);
    return e.isFile() && CODE.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

let cached: Digest | null | undefined;

/** Null when the analyzer's code cannot be read; then none of its outcomes is certified as negative. */
export function staticAnalyzerDefinition(): Digest | null {
  if (cached !== undefined) return cached;
  try {
    const dir = fileURLToPath(new URL('../', import.meta.url));
    const files = ['evidence', 'core']
      .flatMap((d) => codeFiles(join(dir, d)))
      .map((f) => relative(dir, f).split('\\').join('/'))
      .sort();
    const require = createRequire(import.meta.url);
    const grammars = JSON.parse(readFileSync(require.resolve('@vscode/tree-sitter-wasm/package.json'), 'utf8')) as { version?: unknown };
    cached = canonical('static-analyzer-definition')
      .list(files, (h, f) => h.text(f).digest(blake3(readFileSync(join(dir, f)))))
      .text(String(grammars.version ?? ''))
      .finish();
  } catch {
    cached = null;
  }
  return cached;
}
