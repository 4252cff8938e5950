// The exact command that runs one test, per ecosystem, from the directory of
// the project file that defines how tests run. argv is a plain vector: no
// shell syntax, no network, nothing workspace-wide, and it names the test.
import type { TestRunner } from '../../core/contracts.js';
import type { AnalysisContext } from '../context.js';
import { cargoTargetFor, parseCargoManifest } from './cargo.js';
import type { TestCase } from './discover.js';
import { cwdOf, joinPath, projectDirs, relativeTo } from './paths.js';
import { escapeRegExp } from '../../core/text.js';

export interface TestCommand {
  readonly runner: TestRunner;
  readonly argv: string[];
  readonly cwd_relative: string;
  readonly identifier: string;
  readonly evidence_paths: string[];
}

export type CommandResult = { kind: 'command'; command: TestCommand } | { kind: 'unresolved'; reason: string };

export function commandFor(ctx: AnalysisContext, test: TestCase): CommandResult {
  switch (test.family) {
    case 'rust':
      return cargoCommand(ctx, test);
    case 'js':
      return jsCommand(ctx, test);
    case 'python':
      return pytestCommand(ctx, test);
    case 'go':
      return goCommand(ctx, test);
  }
}

const unresolved = (reason: string): CommandResult => ({ kind: 'unresolved', reason });

function cargoCommand(ctx: AnalysisContext, test: TestCase): CommandResult {
  // The nearest manifest with a [package]: a workspace root without one does not own the file.
  const crateDir = projectDirs(ctx, test.path, 'Cargo.toml', (t) => /^\s*\[package\]/m.test(t))[0];
  if (crateDir === undefined) return unresolved(`no Cargo.toml with a [package] above ${test.path}`);
  const manifestPath = joinPath(crateDir, 'Cargo.toml');
  const manifest = parseCargoManifest(ctx.read(manifestPath) ?? '');
  const target = cargoTargetFor(ctx, crateDir, manifest, relativeTo(crateDir, test.path));
  if (!target) return unresolved(`${test.path} is not reachable from any target of ${manifestPath}`);
  const identifier = [...target.modules, ...test.scopes, test.name].join('::');
  const rootPath = joinPath(crateDir, target.root);
  return {
    kind: 'command',
    command: {
      runner: 'cargo',
      // Generated cases are named `<test>::case_1…`: the module prefix selects them all and nothing else.
      argv: test.cases ? ['cargo', 'test', ...target.selector, `${identifier}::`] : ['cargo', 'test', ...target.selector, identifier, '--', '--exact'],
      cwd_relative: cwdOf(crateDir),
      identifier,
      evidence_paths: unique([test.path, manifestPath, rootPath]),
    },
  };
}

type JsRunner = 'vitest' | 'jest' | 'mocha' | 'ava' | 'tap' | 'node';

function jsRunnerOf(pkgText: string): JsRunner | null {
  let pkg: { dependencies?: unknown; devDependencies?: unknown; scripts?: unknown };
  try {
    pkg = JSON.parse(pkgText) as typeof pkg;
  } catch {
    return null;
  }
  const names = new Set([...Object.keys(asRecord(pkg.dependencies)), ...Object.keys(asRecord(pkg.devDependencies))]);
  const scripts = Object.values(asRecord(pkg.scripts)).join('\n');
  for (const runner of ['vitest', 'jest', 'mocha', 'ava'] as const) {
    if (names.has(runner) || new RegExp(`\\b${runner}\\b`).test(scripts)) return runner;
  }
  // node-tap: the `tap` package, or `tap` as a script's command word (not `tap-spec`, a reporter of tape).
  if (names.has('tap') || /(^|[\s;&|])tap(\s|$)/m.test(scripts)) return 'tap';
  return /\bnode\s+(--[\w-]+\s+)*--test\b/.test(scripts) ? 'node' : null;
}

function asRecord(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}


function jsCommand(ctx: AnalysisContext, test: TestCase): CommandResult {
  const dirs = projectDirs(ctx, test.path, 'package.json');
  if (dirs.length === 0) return unresolved(`no package.json above ${test.path}`);
  // In a monorepo the runner may be declared by the workspace root rather than the package.
  let found: { dir: string; runner: JsRunner } | null = null;
  for (const dir of dirs) {
    const runner = jsRunnerOf(ctx.read(joinPath(dir, 'package.json')) ?? '');
    if (runner) {
      found = { dir, runner };
      break;
    }
  }
  const testText = ctx.read(test.path) ?? '';
  if (!found && /['"]node:test['"]/.test(testText)) found = { dir: dirs[0]!, runner: 'node' };
  if (!found) return unresolved(`no vitest, jest, mocha, ava, tap or node --test setup found in package.json above ${test.path}`);
  const file = relativeTo(found.dir, test.path);
  const fullName = escapeRegExp([...test.scopes, test.name].join(' '));
  // ava's --match takes the whole title, where `*` is a wildcard and a leading `!` negates: such a title has no exact selector.
  if (found.runner === 'ava' && (test.name.includes('*') || test.name.startsWith('!') || test.scopes.length > 0))
    return unresolved(`ava cannot select the test titled ${JSON.stringify(test.name)} exactly`);
  const argv: Record<JsRunner, string[]> = {
    vitest: ['npx', 'vitest', 'run', file, '-t', fullName],
    jest: ['npx', 'jest', file, '-t', fullName],
    mocha: ['npx', 'mocha', file, '--grep', fullName],
    ava: ['npx', 'ava', file, '--match', test.name],
    // tap's --grep filters one level of subtests each, by regular expression.
    tap: ['npx', 'tap', ...[...test.scopes, test.name].map((t) => `--grep=^${escapeRegExp(t)}$`), file],
    // node's runner filters each test by its own name.
    node: ['node', '--test', '--test-name-pattern', escapeRegExp(test.name), file],
  };
  return {
    kind: 'command',
    command: {
      runner: 'npx',
      argv: argv[found.runner],
      cwd_relative: cwdOf(found.dir),
      identifier: test.name,
      evidence_paths: unique([test.path, joinPath(found.dir, 'package.json')]),
    },
  };
}

const PYTEST_CONFIGS: readonly [string, (text: string) => boolean][] = [
  ['pytest.ini', () => true],
  ['pyproject.toml', (t) => /^\s*\[tool\.pytest/m.test(t)],
  ['tox.ini', (t) => /^\s*\[pytest\]/m.test(t)],
  ['setup.cfg', (t) => /^\s*\[tool:pytest\]/m.test(t)],
];

/** The pytest rootdir: the nearest directory with a pytest configuration, else the nearest Python project file. */
function pytestRoot(ctx: AnalysisContext, path: string): { dir: string; file: string | null } {
  let best: { dir: string; file: string } | null = null;
  for (const [name, accept] of PYTEST_CONFIGS) {
    const dir = projectDirs(ctx, path, name, accept)[0];
    if (dir !== undefined && (!best || dir.length > best.dir.length)) best = { dir, file: joinPath(dir, name) };
  }
  if (best) return best;
  for (const name of ['pyproject.toml', 'setup.py', 'setup.cfg', 'conftest.py']) {
    const dir = projectDirs(ctx, path, name)[0];
    if (dir !== undefined && (!best || dir.length > best.dir.length)) best = { dir, file: joinPath(dir, name) };
  }
  return best ?? { dir: '', file: null };
}

function pytestCommand(ctx: AnalysisContext, test: TestCase): CommandResult {
  const root = pytestRoot(ctx, test.path);
  const identifier = [...test.scopes, test.name].join('::');
  return {
    kind: 'command',
    command: {
      runner: 'pytest',
      argv: ['pytest', `${relativeTo(root.dir, test.path)}::${identifier}`],
      cwd_relative: cwdOf(root.dir),
      identifier,
      evidence_paths: unique(root.file ? [test.path, root.file] : [test.path]),
    },
  };
}

function goCommand(ctx: AnalysisContext, test: TestCase): CommandResult {
  const moduleDir = projectDirs(ctx, test.path, 'go.mod')[0];
  if (moduleDir === undefined) return unresolved(`no go.mod above ${test.path}`);
  const pkgDir = relativeTo(moduleDir, test.path).split('/').slice(0, -1).join('/');
  return {
    kind: 'command',
    command: {
      runner: 'go',
      argv: ['go', 'test', pkgDir === '' ? '.' : `./${pkgDir}`, '-run', `^${test.name}$`],
      cwd_relative: cwdOf(moduleDir),
      identifier: test.name,
      evidence_paths: unique([test.path, joinPath(moduleDir, 'go.mod')]),
    },
  };
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
