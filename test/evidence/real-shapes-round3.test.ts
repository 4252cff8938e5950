// Third round of shapes met in real CLIs: an `arg` spec object with aliases and
// a top-level local in an ES module, a negated `--no-x` option that lands in
// `x`, a flag copied into a field named like a common method, type annotations
// named like the option, and Go package variables declared without a value
// while another package has an unrelated field of the same name, and a smoke
// test whose name starts with the word `runs`.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { findFocusedTests } from '../../src/evidence/tests/find.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const TS_STATIC_SERVER: Files = {
  'package.json': lines('{ "name": "statik", "type": "module" }'),
  'src/cli.ts': lines(
    "import parse from 'arg';", //                                       1
    '', //                                                               2
    'const spec = {', //                                                 3
    "  '--port': Number,", //                                            4
    "  '--no-clipboard': Boolean,", //                                   5
    "  '-p': '--port',", //                                              6
    "  '-n': '--no-clipboard',", //                                      7
    '};', //                                                             8
    '', //                                                               9
    'export const parseArguments = () => parse(spec);', //               10
  ),
  'src/types.ts': lines('export interface Arguments {', "  '--port'?: number;", "  '--no-clipboard'?: boolean;", '}'),
  'src/main.ts': lines(
    "import { parseArguments } from './cli.js';", //                     1
    "import { copy } from './copy.js';", //                              2
    '', //                                                               3
    'const args = parseArguments();', //                                 4
    "const copyAddress = !args['--no-clipboard'];", //                   5
    "const address = 'http://localhost';", //                           6
    'if (copyAddress) {', //                                             7
    '  await copy(address);', //                                         8
    '}', //                                                              9
  ),
};

const TS_BUNDLER: Files = {
  'package.json': lines('{ "name": "bundle", "type": "module" }'),
  'src/cli.ts': lines(
    "import { cac } from 'cac';", //                                     1
    "import { build } from './build.js';", //                            2
    '', //                                                               3
    'const cli = cac();', //                                             4
    "cli.command('[...files]')", //                                      5
    "  .option('--no-splitting', 'Disable code splitting')", //          6
    "  .option('--dts-resolve', 'Resolve types')", //                    7
    '  .action((files: string[], flags) => {', //                       8
    '    const options = { ...flags, dts: { resolve: false } };', //     9
    '    if (flags.dtsResolve) {', //                                    10
    '      options.dts.resolve = flags.dtsResolve;', //                  11
    '    }', //                                                          12
    '    build(options);', //                                            13
    '  });', //                                                          14
  ),
  'src/options.ts': lines(
    "import type { Metafile } from 'esbuild';", //                       1
    '', //                                                               2
    'export interface Options {', //                                     3
    '  splitting?: boolean;', //                                         4
    '  metafile?: Metafile;', //                                         5
    '  dts?: { resolve?: boolean };', //                                 6
    '}', //                                                              7
  ),
  'src/build.ts': lines(
    "import path from 'node:path';", //                                  1
    "import type { Options } from './options.js';", //                   2
    '', //                                                               3
    'export function build(options: Options) {', //                     4
    "  const out = path.resolve('dist');", //                            5
    '  if (options.splitting) {', //                                     6
    '    console.log(out);', //                                          7
    '  }', //                                                            8
    '  if (options.dts?.resolve) {', //                                  9
    "    console.log('resolving');", //                                  10
    '  }', //                                                            11
    '}', //                                                              12
  ),
};

const GO_READER: Files = {
  'go.mod': lines('module example.com/reader', '', 'go 1.22'),
  'main.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'import (', //                                                       3
    '\t"flag"', //                                                       4
    '', //                                                               5
    '\t"example.com/reader/ui"', //                                      6
    ')', //                                                              7
    '', //                                                               8
    'var (', //                                                          9
    '\tpager bool', //                                                   10
    '\twidth uint', //                                                   11
    ')', //                                                              12
    '', //                                                               13
    'func main() {', //                                                  14
    '\tflag.BoolVar(&pager, "pager", false, "page output")', //          15
    '\tflag.UintVar(&width, "width", 80, "word wrap")', //               16
    '\tflag.Parse()', //                                                 17
    '\tif pager {', //                                                   18
    '\t\tui.Run(int(width))', //                                         19
    '\t}', //                                                            20
    '}', //                                                              21
  ),
  'ui/ui.go': lines(
    'package ui', //                                                     1
    '', //                                                               2
    'type pagerModel struct{ lines []string }', //                       3
    '', //                                                               4
    'func (p pagerModel) unload() {}', //                                5
    '', //                                                               6
    'type model struct {', //                                            7
    '\tpager pagerModel', //                                             8
    '}', //                                                              9
    '', //                                                               10
    'func Run(columns int) {', //                                        11
    '\tm := model{}', //                                                 12
    '\tm.pager.unload()', //                                             13
    '\t_ = columns', //                                                  14
    '}', //                                                              15
  ),
};

const GO_BENCH: Files = {
  'go.mod': lines('module example.com/bench', '', 'go 1.22'),
  'cli.go': lines('package bench', '', 'import "flag"', '', 'var runs = flag.Int("runs", 10, "exact number of runs")'),
  'cli_test.go': lines(
    'package bench', //                                                  1
    '', //                                                               2
    'import "testing"', //                                               3
    '', //                                                               4
    'func TestRunsSuccessfully(t *testing.T) {', //                      5
    '\tif err := bench([]string{"echo"}); err != nil {', //              6
    '\t\tt.Fatal(err)', //                                               7
    '\t}', //                                                            8
    '}', //                                                              9
  ),
};

const repo = fixtureRepos();
const context = (files: Files): AnalysisContext => repo(files).ctx;

type Flow = { steps: readonly { role: string; location: { path: string; start_line: number; end_line: number } }[] };

const stepsOf = (flow: Flow) => flow.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}`);

/** Roles of the steps whose range covers `path:line` (a short statement is cited whole). */
const rolesAt = (flow: Flow, path: string, line: number) =>
  flow.steps.filter((s) => s.location.path === path && s.location.start_line <= line && line <= s.location.end_line).map((s) => s.role);

describe('TypeScript `arg` spec objects', () => {
  it('locates `--no-clipboard` and its alias `-n` at the typed key of the spec, not at reads or the type', () => {
    const ctx = context(TS_STATIC_SERVER);
    for (const name of ['--no-clipboard', '-n']) {
      const result = locateImplementation(ctx, { kind: 'cli_option', name });
      if (result.kind !== 'found') throw new Error(JSON.stringify(result));
      expect(result.payload.locations[0]).toMatchObject({ role: 'primary', path: 'src/cli.ts', start_line: 5, end_line: 5 });
    }
  });

  it('calls the alias a declaration and follows a module-level local to the branch it decides', () => {
    const ctx = context(TS_STATIC_SERVER);
    const primary: Location = { role: 'primary', path: 'src/cli.ts', symbol: null, start_line: 5, end_line: 5 };
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--no-clipboard' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(stepsOf(result.payload)).toEqual(expect.arrayContaining(['carrier src/types.ts:1', 'transformation src/main.ts:5', 'consumer src/main.ts:7']));
    expect(rolesAt(result.payload, 'src/cli.ts', 5)).toContain('producer');
    expect(rolesAt(result.payload, 'src/cli.ts', 7)).toEqual(['producer']);
    expect(result.payload.gaps.filter((g) => g.includes('not accounted for'))).toEqual([]);
  });
});

describe('TypeScript option flows', () => {
  it('follows a negated `--no-splitting` into the `splitting` its declaration names', () => {
    const ctx = context(TS_BUNDLER);
    const primary: Location = { role: 'primary', path: 'src/cli.ts', symbol: 'splitting', start_line: 6, end_line: 6 };
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--no-splitting' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(rolesAt(result.payload, 'src/cli.ts', 6)).toEqual(['producer']);
    expect(stepsOf(result.payload)).toEqual(expect.arrayContaining(['carrier src/options.ts:3', 'consumer src/build.ts:6']));
  });

  it('follows a flag copied into `dts.resolve` to its reads, not to `path.resolve()` calls', () => {
    const ctx = context(TS_BUNDLER);
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--dts-resolve' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    const steps = stepsOf(result.payload);
    expect(steps).toEqual(expect.arrayContaining(['transformation src/cli.ts:11', 'consumer src/build.ts:9']));
    expect(steps.filter((s) => s.endsWith('src/build.ts:5'))).toEqual([]);
  });

  it('does not ask to account for a type annotation or an import spelled like the option', () => {
    const ctx = context(TS_BUNDLER);
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--metafile' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.gaps.filter((g) => g.includes('not accounted for'))).toEqual([]);
    expect(stepsOf(result.payload)).toContain('carrier src/options.ts:3');
  });
});

describe('Go package variables', () => {
  it('takes `var ( width uint )` as the carrier and leaves another package`s `m.pager` alone', () => {
    const ctx = context(GO_READER);
    const width = traceFlow(ctx, { kind: 'cli_option', name: '--width' }, { role: 'primary', path: 'main.go', symbol: 'width', start_line: 16, end_line: 16 });
    if (width.kind !== 'found') throw new Error(width.reason);
    expect(stepsOf(width.payload)).toContain('carrier main.go:11');
    expect(width.payload.gaps.filter((g) => g.includes('not accounted for'))).toEqual([]);

    const pager = traceFlow(ctx, { kind: 'cli_option', name: '--pager' }, { role: 'primary', path: 'main.go', symbol: 'pager', start_line: 15, end_line: 15 });
    if (pager.kind !== 'found') throw new Error(pager.reason);
    const steps = stepsOf(pager.payload);
    expect(steps).toEqual(expect.arrayContaining(['carrier main.go:10', 'consumer main.go:18']));
    expect(steps.filter((s) => s.includes('ui/'))).toEqual([]);
    expect(pager.payload.gaps.filter((g) => g.includes('ui/'))).toEqual([]);
  });
});

describe('focused tests for a one-word option', () => {
  it('does not take a test for `--runs` because its name starts with the word `runs`; a test passing `--runs` is taken', () => {
    const primary: Location = { role: 'primary', path: 'cli.go', symbol: 'runs', start_line: 5, end_line: 5 };
    expect(findFocusedTests(context(GO_BENCH), { kind: 'cli_option', name: '--runs' }, primary).kind).toBe('unresolved');

    const withPassing = context({
      ...GO_BENCH,
      'run_test.go': lines('package bench', '', 'import "testing"', '', 'func TestOneRun(t *testing.T) {', '\t_ = bench([]string{"--runs=1", "echo"})', '}'),
    });
    const result = findFocusedTests(withPassing, { kind: 'cli_option', name: '--runs' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.argv).toEqual(['go', 'test', '.', '-run', '^TestOneRun$']);
  });
});
