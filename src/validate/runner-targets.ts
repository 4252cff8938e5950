// Does the runner's project file resolve the test the plan names? Each check
// reads the project file through the snapshot reader, so the manifest records
// it: editing Cargo.toml, package.json, a pytest config or go.mod stales the plan.
import type { FocusedTests } from '../core/contracts.js';
import { clip, type SnapshotReader } from './snapshot-reader.js';

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

const join = (dir: string, name: string): string => (dir === '.' ? name : `${dir}/${name}`);

function isWithin(path: string, dir: string): boolean {
  return dir === '.' || path === dir || path.startsWith(`${dir}/`);
}

function relativeTo(path: string, dir: string): string {
  return dir === '.' ? path : path.slice(dir.length + 1);
}

/** Directories from `dir` up to the repository root. */
function ancestors(dir: string): string[] {
  const out = [dir];
  let d = dir;
  while (d !== '.') {
    d = dirOf(d);
    out.push(d);
  }
  return out;
}

function textOf(reader: SnapshotReader, path: string): string | null {
  const f = reader.file(path);
  return typeof f === 'string' ? null : f.text;
}

function argAfter(argv: readonly string[], ...flags: string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    for (const f of flags) {
      if (a === f) return argv[i + 1] ?? null;
      if (a.startsWith(`${f}=`)) return a.slice(f.length + 1);
    }
  }
  return null;
}

interface CargoManifest {
  readonly packageName: string | null;
  readonly autotests: boolean;
  readonly libPath: string | null;
  readonly bins: readonly { name: string | null; path: string | null }[];
  readonly tests: readonly { name: string | null; path: string | null }[];
}

/** Just enough TOML for package names and the lib, bin and test targets. */
function parseCargoManifest(text: string): CargoManifest {
  let section = '';
  let packageName: string | null = null;
  let autotests = true;
  let libPath: string | null = null;
  const bins: { name: string | null; path: string | null }[] = [];
  const tests: { name: string | null; path: string | null }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?/.exec(line);
    if (header) {
      section = line.startsWith('[[') ? `[[${header[1]}]]` : header[1]!;
      if (section === '[[test]]') tests.push({ name: null, path: null });
      if (section === '[[bin]]') bins.push({ name: null, path: null });
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(line);
    if (!kv) continue;
    const value = kv[2] ?? kv[3] ?? kv[4] ?? '';
    if (section === 'package' && kv[1] === 'name') packageName = value;
    if (section === 'package' && kv[1] === 'autotests') autotests = value !== 'false';
    if (section === 'lib' && kv[1] === 'path') libPath = value;
    const table = section === '[[test]]' ? tests : section === '[[bin]]' ? bins : null;
    if (table && (kv[1] === 'name' || kv[1] === 'path')) table[table.length - 1]![kv[1]] = value;
  }
  return { packageName, autotests, libPath, bins, tests };
}

/**
 * The crate root files of the target argv selects (without a selector, cargo
 * runs the unit tests of the library and every binary), or why it names none.
 */
function cargoTargetRoots(reader: SnapshotReader, argv: readonly string[], pkgDir: string, manifest: CargoManifest): { roots: string[] } | { reason: string } {
  const test = argAfter(argv, '--test');
  const bin = argAfter(argv, '--bin');
  const testsDir = join(pkgDir, 'tests');
  if (test !== null) {
    const declared = manifest.tests.filter((t) => t.name === test);
    if (declared.length > 1) return { reason: `Cargo.toml declares [[test]] ${test} more than once` };
    if (declared.length === 1) {
      const root = join(pkgDir, declared[0]!.path ?? `tests/${test}.rs`);
      return reader.exists(root) ? { roots: [root] } : { reason: `[[test]] ${test} points at ${clip(root)}, which is not a snapshot file` };
    }
    if (!manifest.autotests) return { reason: `autotests is off and Cargo.toml declares no [[test]] ${test}` };
    const found = [join(testsDir, `${test}.rs`), join(testsDir, `${test}/main.rs`)].filter((p) => reader.exists(p));
    if (found.length !== 1) return { reason: found.length === 0 ? `no test target ${test} in ${join(pkgDir, 'Cargo.toml')}` : `test target ${test} is ambiguous` };
    return { roots: [found[0]!] };
  }
  if (bin !== null) {
    const declared = manifest.bins.filter((b) => b.name === bin);
    if (declared.length > 1) return { reason: `Cargo.toml declares [[bin]] ${bin} more than once` };
    const auto = [
      ...(bin === manifest.packageName ? ['src/main.rs'] : []),
      `src/bin/${bin}.rs`,
      `src/bin/${bin}/main.rs`,
    ];
    const paths = declared.length === 1 ? [declared[0]!.path ?? auto[0]!] : auto;
    const found = paths.map((p) => join(pkgDir, p)).filter((p) => reader.exists(p));
    return found.length === 1 ? { roots: [found[0]!] } : { reason: `no binary target ${bin} in ${join(pkgDir, 'Cargo.toml')}` };
  }
  const lib = join(pkgDir, manifest.libPath ?? 'src/lib.rs');
  if (argv.includes('--lib')) return reader.exists(lib) ? { roots: [lib] } : { reason: `${join(pkgDir, 'Cargo.toml')} has no library target` };
  const bins = [...manifest.bins.map((b) => b.path ?? `src/bin/${b.name}.rs`), 'src/main.rs'].map((p) => join(pkgDir, p));
  return { roots: [...new Set([lib, ...bins])].filter((p) => reader.exists(p)) };
}

const declaresModule = (text: string, name: string): boolean =>
  new RegExp(`^\\s*(pub(\\([^)]*\\))?\\s+)?mod\\s+${name.replace(/[^\w]/g, '')}\\s*;`, 'm').test(text);

/**
 * The module path that links a crate root to `loc` through `mod name;`
 * declarations, or null when none does. A crate root resolves its modules
 * beside itself (tests/it.rs → tests/x.rs), like a mod.rs file.
 */
function cargoModulePath(reader: SnapshotReader, root: string, loc: string): string[] | null {
  if (loc === root) return [];
  const rootDir = dirOf(root);
  if (!isWithin(loc, rootDir)) return null;
  const segments = relativeTo(loc, rootDir).replace(/\.rs$/, '').split('/');
  if (segments.at(-1) === 'mod') segments.pop();
  let parent = root;
  for (let i = 0; i < segments.length; i++) {
    const text = textOf(reader, parent);
    if (text === null || !declaresModule(text, segments[i]!)) return null;
    const dir = join(rootDir, segments.slice(0, i + 1).join('/'));
    parent = reader.exists(`${dir}.rs`) ? `${dir}.rs` : `${dir}/mod.rs`;
  }
  return segments;
}

function checkCargo(reader: SnapshotReader, plan: FocusedTests): string[] {
  const loc = plan.location.path;
  if (!loc.endsWith('.rs')) return [`location ${clip(loc)} is not a Rust file`];
  let pkgDir: string | null = null;
  let manifest: CargoManifest | null = null;
  for (const dir of ancestors(dirOf(loc))) {
    const text = textOf(reader, join(dir, 'Cargo.toml'));
    if (text === null) continue;
    const parsed = parseCargoManifest(text);
    if (parsed.packageName !== null) {
      pkgDir = dir;
      manifest = parsed;
      break;
    }
  }
  if (pkgDir === null || manifest === null) return [`no Cargo.toml with a [package] encloses ${clip(loc)}`];
  const reasons: string[] = [];
  const cwd = plan.cwd_relative;
  if (!isWithin(pkgDir, cwd)) reasons.push(`cwd ${cwd} is not at or above the package directory ${pkgDir}`);
  else if (cwd !== pkgDir && argAfter(plan.argv, '-p', '--package') !== manifest.packageName)
    reasons.push(`run from ${cwd}, the plan must select the package with -p ${manifest.packageName}`);

  const target = cargoTargetRoots(reader, plan.argv, pkgDir, manifest);
  if ('reason' in target) return [...reasons, target.reason];
  const modules = target.roots.map((root) => cargoModulePath(reader, root, loc)).find((m) => m !== null);
  if (!modules) return [...reasons, `${clip(loc)} is not part of ${target.roots.length === 1 ? `the target rooted at ${clip(target.roots[0]!)}` : 'any library or binary target'}`];
  const prefix = modules.join('::');
  if (prefix !== '' && !plan.identifier.startsWith(`${prefix}::`))
    reasons.push(`identifier ${clip(plan.identifier, 80)} does not start with the module path ${prefix}`);
  return reasons;
}

function checkJavaScript(reader: SnapshotReader, plan: FocusedTests): string[] {
  const cwd = plan.cwd_relative;
  const loc = plan.location.path;
  if (!isWithin(loc, cwd)) return [`location ${clip(loc)} is outside cwd ${cwd}`];
  const text = textOf(reader, join(cwd, 'package.json'));
  const [a0, a1, a2] = plan.argv;
  if (a0 === 'node' && a1 === '--test') {
    return plan.argv.includes(relativeTo(loc, cwd)) ? [] : [`node --test must name the file ${relativeTo(loc, cwd)}`];
  }
  if (text === null) return [`no package.json in ${cwd}`];
  let pkg: { scripts?: Record<string, unknown>; dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
  try {
    pkg = JSON.parse(text) as typeof pkg;
  } catch {
    return [`${join(cwd, 'package.json')} is not valid JSON`];
  }
  const scripts = pkg.scripts && typeof pkg.scripts === 'object' ? pkg.scripts : {};
  if (a0 === 'npm') {
    const script = a1 === 'run' ? a2! : 'test';
    return typeof scripts[script] === 'string' ? [] : [`package.json has no "${script}" script`];
  }
  const tool = a1!;
  const declared =
    Object.prototype.hasOwnProperty.call(pkg.devDependencies ?? {}, tool) ||
    Object.prototype.hasOwnProperty.call(pkg.dependencies ?? {}, tool) ||
    Object.values(scripts).some((s) => typeof s === 'string' && s.includes(tool));
  const reasons = declared ? [] : [`package.json neither depends on nor scripts ${tool}`];
  const rel = relativeTo(loc, cwd);
  if (!plan.argv.slice(2).some((a) => !a.startsWith('-') && /[./]/.test(a) && rel.includes(a)))
    reasons.push(`argv does not select the test file ${clip(rel)}`);
  return reasons;
}

const PYTEST_CONFIGS: readonly [string, string | null][] = [
  ['pytest.ini', null],
  ['pyproject.toml', '[tool.pytest'],
  ['setup.cfg', '[tool:pytest]'],
  ['tox.ini', '[pytest]'],
  ['conftest.py', null],
];

function checkPytest(reader: SnapshotReader, plan: FocusedTests): string[] {
  const cwd = plan.cwd_relative;
  const loc = plan.location.path;
  if (!loc.endsWith('.py')) return [`location ${clip(loc)} is not a Python file`];
  if (!isWithin(loc, cwd)) return [`location ${clip(loc)} is outside cwd ${cwd}`];
  const base = loc.slice(loc.lastIndexOf('/') + 1);
  const configured = PYTEST_CONFIGS.some(([file, marker]) => {
    const text = textOf(reader, join(cwd, file));
    return text !== null && (marker === null || text.includes(marker));
  });
  const reasons: string[] = [];
  if (!configured && !/^test_.*\.py$|_test\.py$/.test(base))
    reasons.push(`no pytest configuration in ${cwd} and ${base} is not a default-discovered test module`);
  const rel = relativeTo(loc, cwd);
  if (!plan.argv.some((a) => a === rel || a.startsWith(`${rel}::`))) reasons.push(`argv does not select ${clip(rel)}`);
  return reasons;
}

function checkGo(reader: SnapshotReader, plan: FocusedTests): string[] {
  const cwd = plan.cwd_relative;
  const loc = plan.location.path;
  if (!loc.endsWith('_test.go')) return [`location ${clip(loc)} is not a Go test file`];
  const dir = dirOf(loc);
  const moduleRoot = ancestors(dir).find((d) => reader.exists(join(d, 'go.mod')));
  if (moduleRoot === undefined) return [`no go.mod encloses ${clip(loc)}`];
  const reasons: string[] = [];
  if (!isWithin(cwd, moduleRoot) || !isWithin(dir, cwd)) reasons.push(`cwd ${cwd} must be inside module ${moduleRoot} and above ${dir}`);
  const pkgArg = dir === cwd ? '.' : `./${relativeTo(dir, cwd)}`;
  if (!plan.argv.includes(pkgArg) && !(pkgArg === '.' && plan.argv.includes('./'))) reasons.push(`argv does not select package ${pkgArg}`);
  if (argAfter(plan.argv, '-run') === null) reasons.push('argv has no -run selection');
  return reasons;
}

/** Reasons the plan's runner cannot resolve its target; empty when it can. */
export function checkRunnerTarget(reader: SnapshotReader, plan: FocusedTests): string[] {
  if (plan.cwd_relative !== '.' && !reader.isDirectory(plan.cwd_relative))
    return [`cwd_relative ${clip(plan.cwd_relative)} is not a directory of the repository`];
  switch (plan.runner) {
    case 'cargo':
      return checkCargo(reader, plan);
    case 'npm':
    case 'npx':
      return checkJavaScript(reader, plan);
    case 'pytest':
      return checkPytest(reader, plan);
    case 'go':
      return checkGo(reader, plan);
  }
}
