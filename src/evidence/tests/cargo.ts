// Which Cargo target compiles a test file, and under which module path: the
// pieces `cargo test --test cli flags::name -- --exact` is made of. Targets
// come from Cargo.toml (`[lib]`, `[[bin]]`, `[[test]]`) and Cargo's
// auto-discovery; module paths are proven by the `mod` declarations that link
// the target's root file to the test file.
import { TEST_FINDER } from '../../core/limits.js';
import type { AnalysisContext } from '../context.js';
import { dirOf, joinPath } from './paths.js';

export interface CargoManifest {
  readonly packageName: string | null;
  readonly autotests: boolean;
  readonly lib: { readonly path: string } | null;
  readonly bins: readonly { readonly name: string; readonly path: string }[];
  readonly tests: readonly { readonly name: string; readonly path: string }[];
}

export interface CargoTarget {
  /** `--lib`, `--bin NAME` or `--test NAME`. */
  readonly selector: readonly string[];
  /** Crate-relative root file of the target. */
  readonly root: string;
  /** Module path from the root to the test file (empty for the root itself). */
  readonly modules: readonly string[];
}

/** The few Cargo.toml keys that decide targets; a full TOML parser would buy nothing here. */
export function parseCargoManifest(text: string): CargoManifest {
  let section = '';
  let current: Record<string, string> | null = null;
  const tables: { section: string; values: Record<string, string> }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+#.*$/, '').trim();
    const header = /^(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?$/.exec(line);
    if (header) {
      section = header[2]!;
      current = {};
      tables.push({ section, values: current });
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (kv && current) current[kv[1]!] = unquote(kv[2]!);
  }
  const one = (name: string) => tables.find((t) => t.section === name)?.values ?? null;
  const pkg = one('package');
  const lib = one('lib');
  const entries = (name: string, defaultPath: (n: string) => string) =>
    tables
      .filter((t) => t.section === name && t.values.name)
      .map((t) => ({ name: t.values.name!, path: t.values.path ?? defaultPath(t.values.name!) }));
  return {
    packageName: pkg?.name ?? null,
    autotests: pkg?.autotests !== 'false',
    lib: lib ? { path: lib.path ?? 'src/lib.rs' } : null,
    bins: entries('bin', (n) => `src/bin/${n}.rs`),
    tests: entries('test', (n) => `tests/${n}.rs`),
  };
}

function unquote(v: string): string {
  const m = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(v);
  return m ? (m[1] ?? m[2] ?? '') : v;
}

/** The target that builds `file` (crate-relative), trying integration tests, then the library, then binaries. */
export function cargoTargetFor(
  ctx: AnalysisContext,
  crateDir: string,
  manifest: CargoManifest,
  file: string,
): CargoTarget | null {
  const exists = (rel: string) => ctx.read(joinPath(crateDir, rel)) !== null;
  const candidates: { selector: string[]; root: string }[] = [];
  for (const t of manifest.tests) candidates.push({ selector: ['--test', t.name], root: t.path });
  if (manifest.autotests) {
    const auto = /^tests\/([^/]+)\.rs$/.exec(file) ?? /^tests\/([^/]+)\/main\.rs$/.exec(file);
    const dir = /^tests\/([^/]+)\//.exec(file);
    if (auto) candidates.push({ selector: ['--test', auto[1]!], root: file });
    if (dir) candidates.push({ selector: ['--test', dir[1]!], root: `tests/${dir[1]}/main.rs` });
  }
  const libPath = manifest.lib?.path ?? 'src/lib.rs';
  candidates.push({ selector: ['--lib'], root: libPath });
  const bins = [...manifest.bins];
  if (manifest.packageName && !bins.some((b) => b.path === 'src/main.rs')) bins.push({ name: manifest.packageName, path: 'src/main.rs' });
  const autoBin = /^src\/bin\/([^/]+?)(\.rs|\/main\.rs)$/.exec(file);
  if (autoBin && !bins.some((b) => b.name === autoBin[1])) bins.push({ name: autoBin[1]!, path: file });
  for (const b of bins) candidates.push({ selector: ['--bin', b.name], root: b.path });

  const seen = new Set<string>();
  for (const c of candidates) {
    const key = `${c.selector.join(' ')}\0${c.root}`;
    if (seen.has(key) || !exists(c.root)) continue;
    seen.add(key);
    const modules = modulePath(ctx, crateDir, c.root, file);
    if (modules) return { selector: c.selector, root: c.root, modules };
  }
  return null;
}

/**
 * The module path from `root` to `file`, or null when no chain of `mod name;`
 * declarations links them. `#[path]` attributes are not followed.
 */
function modulePath(ctx: AnalysisContext, crateDir: string, root: string, file: string): string[] | null {
  if (root === file) return [];
  const rootDir = dirOf(root);
  const prefix = rootDir === '' ? '' : `${rootDir}/`;
  if (!file.startsWith(prefix)) return null;
  const segments = file.slice(prefix.length).replace(/\.rs$/, '').split('/');
  if (segments.at(-1) === 'mod') segments.pop();
  if (segments.length === 0 || segments.length > TEST_FINDER.maxModuleDepth) return null;
  let parent = root;
  for (let i = 0; i < segments.length; i++) {
    const text = ctx.read(joinPath(crateDir, parent));
    if (text === null || !declaresModule(text, segments[i]!)) return null;
    const dir = [rootDir, ...segments.slice(0, i + 1)].filter(Boolean).join('/');
    parent = ctx.read(joinPath(crateDir, `${dir}.rs`)) !== null ? `${dir}.rs` : `${dir}/mod.rs`;
  }
  return segments;
}

function declaresModule(text: string, name: string): boolean {
  return new RegExp(`^\\s*(pub(\\([^)]*\\))?\\s+)?mod\\s+${name}\\s*;`, 'm').test(text);
}
