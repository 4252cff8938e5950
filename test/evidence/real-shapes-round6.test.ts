// Sixth round of shapes met in real CLIs: a TypeScript environment variable
// read as a member (`process.env.APP_X`, where Python writes
// `os.environ['APP_X']`) into a settings record that a getter returns, and a
// consumer that destructures the field it needs (`const { quietBell } =
// await loadSettings()`) before deciding on it. Both used to leave the flow
// without a producer or without its consumer, and the validator refused it.
// And Go's pointer-returning flag declarations (`flag.String("hide-mp", "",
// usage)`, pflag's `IntP("depth", "d", 3, usage)`), whose declared default is
// the flow's precedence as it is for the `…Var` forms; so is `default=` in a
// Python declaring call (`click.option("--max-rounds", default=10)`) or a
// `default:` key in a JavaScript one, and a click option shared as a decorator
// (`@options.max_rounds`) is the carrier into the command's parameter. A
// discard (`_ = viper.BindPFlag("x", …)`) hands the value to nothing: the
// trace no longer follows every other `_` of the package. A value that is a
// parameter's default (`def __init__(self, directory=DEFAULT_DIR)`, `function
// load(dir = DEFAULT_DIR)`) is a precedence, followed into the parameter; a
// method called on the value as a statement of its own (`directory.mkdir()`)
// acts on it — a consumer, not an unaccounted line.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { flowVerdict } from './fixtures/flow-verdict.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const TS_CHIME: Files = {
  'package.json': lines('{ "name": "chime", "type": "module" }'),
  'src/settings.ts': lines(
    'export interface Settings {', //                                      1
    '  volume: number', //                                                  2
    '  quietBell: boolean', //                                              3
    '}', //                                                                 4
    '', //                                                                  5
    'const defaults: Settings = {', //                                      6
    '  volume: 5,', //                                                      7
    '  quietBell: false,', //                                               8
    '}', //                                                                 9
    '', //                                                                  10
    'let cached: Settings | undefined', //                                  11
    '', //                                                                  12
    'export async function loadSettings(): Promise<Settings> {', //         13
    '  if (!cached) {', //                                                  14
    '    cached = { ...defaults }', //                                      15
    '    if (process.env.CHIME_QUIET_BELL !== undefined)', //               16
    "      cached.quietBell = process.env.CHIME_QUIET_BELL === 'true'", //  17
    '  }', //                                                               18
    '  return cached', //                                                   19
    '}', //                                                                 20
  ),
  'src/ring.ts': lines(
    "import { loadSettings } from './settings'", //                         1
    '', //                                                                  2
    'export async function ring(times: number): Promise<string[]> {', //    3
    '  const { quietBell, volume } = await loadSettings()', //              4
    '  const out: string[] = []', //                                        5
    '  for (let i = 0; i < times; i++) {', //                               6
    '    if (!quietBell) {', //                                             7
    '      out.push(`ding ${volume}`)', //                                  8
    '    }', //                                                             9
    '  }', //                                                               10
    '  return out', //                                                      11
    '}', //                                                                 12
  ),
  // A namesake: a parameter called `quietBell` that nothing destructured from the settings.
  'src/other.ts': lines(
    'export function describe(quietBell: boolean): string {', //            1
    "  if (quietBell) return 'silent'", //                                  2
    "  return 'loud'", //                                                   3
    '}', //                                                                 4
  ),
};

const repo = fixtureRepos();

const subject = { kind: 'configuration_key', name: 'CHIME_QUIET_BELL' } as const;
const primary: Location = { role: 'primary', path: 'src/settings.ts', symbol: null, start_line: 16, end_line: 17 };

describe('an environment variable read as a member and a field destructured by its consumer', () => {
  it('cites the member read as the producer and follows the destructured field to the branch it decides', () => {
    const { ctx } = repo(TS_CHIME);
    const result = traceFlow(ctx, subject, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const at = (path: string, line: number) =>
      result.payload.steps.filter((s) => s.location.path === path && s.location.start_line <= line && line <= s.location.end_line).map((s) => s.role);
    expect(result.payload.steps[0]!.role).toBe('producer');
    expect(at('src/settings.ts', 17)).toContain('producer');
    expect(at('src/ring.ts', 4)).toEqual(['transformation']);
    expect(at('src/ring.ts', 7)).toEqual(['consumer']);
    expect(result.payload.steps.at(-1)!.role).toBe('consumer');
    // Only the field the value travels in is followed: neither `volume` nor a parameter that happens to be called `quietBell`.
    expect(result.payload.steps.filter((s) => s.location.path === 'src/ring.ts' && s.location.start_line === 8)).toEqual([]);
    expect(result.payload.steps.some((s) => s.location.path === 'src/other.ts')).toBe(false);
  });

  it('is a flow the validator certifies as complete', () => {
    const { root, ctx } = repo(TS_CHIME);
    const result = traceFlow(ctx, subject, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(flowVerdict(root, subject, result.payload)).toBe('ok');
  });
});

const GO_DISKS: Files = {
  'go.mod': lines('module example.com/disks', '', 'go 1.21'),
  'main.go': lines(
    'package main', //                                                                   1
    '', //                                                                               2
    'import (', //                                                                       3
    '\t"fmt"', //                                                                        4
    '\t"strings"', //                                                                    5
    '', //                                                                               6
    '\tflag "github.com/spf13/pflag"', //                                                7
    ')', //                                                                              8
    '', //                                                                               9
    'var (', //                                                                          10
    '\thideMp  = flag.String("hide-mp", "", "hide mount points, separated with commas")', // 11
    '\tdepth   = flag.IntP("depth", "d", 3, "how deep to list")', //                     12
    '\tverbose = flag.CountP("verbose", "v", "more output")', //                         13
    ')', //                                                                              14
    '', //                                                                               15
    'type Filters struct {', //                                                          16
    '\tHidden []string', //                                                              17
    '}', //                                                                              18
    '', //                                                                               19
    'func main() {', //                                                                  20
    '\tflag.Parse()', //                                                                 21
    '\tfilters := Filters{Hidden: strings.Split(*hideMp, ",")}', //                      22
    '\tfor _, m := range []string{"/", "/boot"} {', //                                   23
    '\t\tif !isHidden(m, filters.Hidden) && *depth > 0 && *verbose >= 0 {', //          24
    '\t\t\tfmt.Println(m)', //                                                          25
    '\t\t}', //                                                                         26
    '\t}', //                                                                            27
    '}', //                                                                              28
    '', //                                                                               29
    'func isHidden(m string, hidden []string) bool {', //                                30
    '\tfor _, h := range hidden {', //                                                   31
    '\t\tif h == m {', //                                                               32
    '\t\t\treturn true', //                                                             33
    '\t\t}', //                                                                         34
    '\t}', //                                                                            35
    '\treturn false', //                                                                 36
    '}', //                                                                              37
  ),
};

describe('Go flags declared by a call that returns a pointer', () => {
  const at = (line: number): Location => ({ role: 'primary', path: 'main.go', symbol: null, start_line: line, end_line: line });
  // A short `var ( … )` block is cited whole: the line holding the declaration lies in the step.
  const precedence = (flow: { steps: readonly { role: string; description: string; location: Location }[] }, line: number) =>
    flow.steps.filter((s) => s.role === 'precedence').map((s) => `${s.location.start_line <= line && line <= s.location.end_line} ${s.description}`);

  it('cites the declared default as the precedence, with the short-flag form too', () => {
    const { ctx } = repo(GO_DISKS);
    const hide = traceFlow(ctx, { kind: 'cli_option', name: '--hide-mp' }, at(11));
    if (hide.kind !== 'found') throw new Error(hide.reason);
    expect(precedence(hide.payload, 11)).toEqual(['true flag `hide-mp` defaults to `""`']);
    const depth = traceFlow(ctx, { kind: 'cli_option', name: '--depth' }, at(12));
    if (depth.kind !== 'found') throw new Error(depth.reason);
    expect(precedence(depth.payload, 12)).toEqual(['true flag `depth` defaults to `3`']);
  });

  it('names no default where the declaration has none (a counter)', () => {
    const { ctx } = repo(GO_DISKS);
    const verbose = traceFlow(ctx, { kind: 'cli_option', name: '--verbose' }, at(13));
    if (verbose.kind !== 'found') throw new Error(verbose.reason);
    expect(precedence(verbose.payload, 13)).toEqual([]);
  });

  it('makes the flag from declaration to the branch a flow the validator certifies', () => {
    const { root, ctx } = repo(GO_DISKS);
    const hide = traceFlow(ctx, { kind: 'cli_option', name: '--hide-mp' }, at(11));
    if (hide.kind !== 'found') throw new Error(hide.reason);
    expect(flowVerdict(root, { kind: 'cli_option', name: '--hide-mp' }, hide.payload)).toBe('ok');
  });
});

const PY_RESOLVER: Files = {
  'pyproject.toml': lines('[project]', 'name = "pins"'),
  'pins/__init__.py': '',
  'pins/options.py': lines(
    'import click', //                                                         1
    '', //                                                                     2
    'max_rounds = click.option(', //                                           3
    '    "--max-rounds",', //                                                  4
    '    default=10,', //                                                      5
    '    help="Rounds before giving up.",', //                                 6
    ')', //                                                                    7
  ),
  'pins/cli.py': lines(
    'import click', //                                                         1
    '', //                                                                     2
    'from pins import options', //                                             3
    'from pins.resolver import resolve', //                                    4
    '', //                                                                     5
    '', //                                                                     6
    '@click.command()', //                                                     7
    '@options.max_rounds', //                                                  8
    'def cli(max_rounds: int) -> None:', //                                    9
    '    resolve(["a", "b"], max_rounds=max_rounds)', //                       10
  ),
  'pins/resolver.py': lines(
    'def resolve(wanted, max_rounds):', //                                     1
    '    rounds = 0', //                                                       2
    '    while wanted:', //                                                    3
    '        rounds += 1', //                                                  4
    '        if rounds > max_rounds:', //                                      5
    '            raise RuntimeError("no stable set")', //                      6
    '        wanted = wanted[1:]', //                                          7
    '    return rounds', //                                                    8
  ),
};

const JS_TREE: Files = {
  'package.json': lines('{ "name": "treeview", "type": "module" }'),
  'src/cli.js': lines(
    "import yargs from 'yargs';", //                                           1
    "import { draw } from './draw.js';", //                                    2
    '', //                                                                     3
    "const argv = yargs(process.argv.slice(2)).option('max-depth', { type: 'number', default: 3 }).parse();", // 4
    'const maxDepth = argv.maxDepth;', //                                      5
    'draw(maxDepth);', //                                                      6
  ),
  'src/draw.js': lines(
    'export function draw(limit) {', //                                        1
    '  for (let depth = 0; depth < 10; depth++) {', //                          2
    '    if (depth >= limit) {', //                                             3
    '      return depth;', //                                                   4
    '    }', //                                                                 5
    '  }', //                                                                   6
    '  return 10;', //                                                          7
    '}', //                                                                     8
  ),
};

describe('declared defaults and shared option decorators', () => {
  it('cites `default=` of a click option as the precedence and the decorator that applies it as a carrier; the flow is complete', () => {
    const { root, ctx } = repo(PY_RESOLVER);
    const subject = { kind: 'cli_option', name: '--max-rounds' } as const;
    const result = traceFlow(ctx, subject, { role: 'primary', path: 'pins/options.py', symbol: null, start_line: 3, end_line: 7 });
    if (result.kind !== 'found') throw new Error(result.reason);
    const steps = result.payload.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}`);
    expect(result.payload.steps.filter((s) => s.role === 'precedence').map((s) => s.description)).toEqual(['flag `--max-rounds` defaults to `10`']);
    expect(steps).toContain('carrier pins/cli.py:8');
    expect(steps).toContain('consumer pins/resolver.py:5');
    expect(result.payload.gaps).toEqual([]);
    expect(flowVerdict(root, subject, result.payload)).toBe('ok');
  });

  it('cites a `default:` key of a JavaScript declaring call as the precedence', () => {
    const { ctx } = repo(JS_TREE);
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--max-depth' }, { role: 'primary', path: 'src/cli.js', symbol: null, start_line: 4, end_line: 4 });
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.steps.filter((s) => s.role === 'precedence').map((s) => `${s.location.start_line} ${s.description}`)).toEqual(['4 flag `max-depth` defaults to `3`']);
  });
});

const GO_VIEWER: Files = {
  'go.mod': lines('module example.com/viewer', '', 'go 1.21'),
  'main.go': lines(
    'package main', //                                                                          1
    '', //                                                                                      2
    'import (', //                                                                              3
    '\t"fmt"', //                                                                               4
    '\t"os"', //                                                                                5
    '', //                                                                                      6
    '\t"github.com/spf13/cobra"', //                                                            7
    '\t"github.com/spf13/viper"', //                                                            8
    ')', //                                                                                     9
    '', //                                                                                      10
    'var keepBlank bool', //                                                                    11
    '', //                                                                                      12
    'var rootCmd = &cobra.Command{Use: "viewer"}', //                                           13
    '', //                                                                                      14
    'func render(text string) string {', //                                                     15
    '\tif keepBlank {', //                                                                      16
    '\t\treturn text', //                                                                       17
    '\t}', //                                                                                   18
    '\treturn text + "\\n"', //                                                                 19
    '}', //                                                                                     20
    '', //                                                                                      21
    'func main() {', //                                                                         22
    '\tfor _, arg := range os.Args[1:] {', //                                                   23
    '\t\tfmt.Print(render(arg))', //                                                            24
    '\t}', //                                                                                   25
    '\t_, _ = fmt.Println("done")', //                                                          26
    '}', //                                                                                     27
    '', //                                                                                      28
    'func init() {', //                                                                         29
    '\trootCmd.Flags().BoolVarP(&keepBlank, "keep-blank", "k", false, "keep blank lines")', // 30
    '\t_ = viper.BindPFlag("keepBlank", rootCmd.Flags().Lookup("keep-blank"))', //             31
    '}', //                                                                                     32
  ),
};

describe('a value handed to a discard', () => {
  it('is not followed into `_`: no other discard of the package enters the flow or its gaps', () => {
    const { ctx } = repo(GO_VIEWER);
    const subject = { kind: 'cli_option', name: '--keep-blank' } as const;
    const result = traceFlow(ctx, subject, { role: 'primary', path: 'main.go', symbol: null, start_line: 30, end_line: 30 });
    if (result.kind !== 'found') throw new Error(result.reason);
    const lines = result.payload.steps.map((s) => s.location.start_line);
    expect(lines).not.toContain(23);
    expect(lines).not.toContain(26);
    // The flag goes straight to its variable: no transformation exists, and that is the only gap.
    expect(result.payload.gaps).toEqual(['no transformation of `keep_blank` found in non-test source']);
    expect(result.payload.steps.filter((s) => s.role === 'consumer').map((s) => s.location.start_line)).toEqual([16]);
  });
});

const PY_STORE: Files = {
  'pyproject.toml': lines('[project]', 'name = "keep"'),
  'keep/__init__.py': '',
  'keep/config.py': lines(
    'import os', //                                                              1
    'from pathlib import Path', //                                               2
    '', //                                                                       3
    '', //                                                                       4
    'def default_dir():', //                                                     5
    '    env_dir = os.environ.get("KEEP_HOME")', //                              6
    '    if env_dir:', //                                                        7
    '        return Path(env_dir)', //                                           8
    '    return Path.home() / ".keep"', //                                       9
    '', //                                                                       10
    '', //                                                                       11
    'DEFAULT_DIR = default_dir()', //                                            12
    '', //                                                                       13
    '', //                                                                       14
    'class Store:', //                                                           15
    '    def __init__(self, directory=DEFAULT_DIR):', //                         16
    '        if not directory.exists():', //                                     17
    '            raise FileNotFoundError(directory)', //                         18
    '        self.directory = directory', //                                     19
  ),
};

const JS_STORE: Files = {
  'package.json': lines('{ "name": "keep", "type": "module" }'),
  'src/store.js': lines(
    'export const DEFAULT_DIR = process.env.KEEP_HOME', //                        1
    '', //                                                                       2
    'export function open(dir = DEFAULT_DIR) {', //                              3
    '  if (dir.startsWith("/")) {', //                                           4
    '    return dir', //                                                         5
    '  }', //                                                                    6
    '  return `./${dir}`', //                                                    7
    '}', //                                                                      8
  ),
};

describe('a value that is a parameter default', () => {
  it('is the precedence of the parameter, which the trace follows into its function (Python, JavaScript)', () => {
    const py = traceFlow(repo(PY_STORE).ctx, { kind: 'configuration_key', name: 'KEEP_HOME' }, { role: 'primary', path: 'keep/config.py', symbol: null, start_line: 6, end_line: 6 });
    if (py.kind !== 'found') throw new Error(py.reason);
    const pySteps = py.payload.steps.map((s) => `${s.role} ${s.location.start_line}`);
    expect(py.payload.steps.find((s) => s.role === 'precedence' && s.location.start_line === 16)?.description).toBe('`DEFAULT_DIR` is the default of parameter `directory` of `__init__`');
    expect(pySteps).toContain('consumer 17');
    expect(py.payload.gaps.filter((g) => /not accounted/.test(g))).toEqual([]);

    const js = traceFlow(repo(JS_STORE).ctx, { kind: 'configuration_key', name: 'KEEP_HOME' }, { role: 'primary', path: 'src/store.js', symbol: null, start_line: 1, end_line: 1 });
    if (js.kind !== 'found') throw new Error(js.reason);
    expect(js.payload.steps.find((s) => s.role === 'precedence' && s.location.start_line === 3)?.description).toBe('`DEFAULT_DIR` is the default of parameter `dir` of `open`');
    expect(js.payload.steps.map((s) => `${s.role} ${s.location.start_line}`)).toContain('consumer 4');
  });
});

describe('a method called on the value as a statement', () => {
  it('is a consumer of the value, not a gap, while a call whose result is kept is not', () => {
    const files: Files = {
      ...PY_STORE,
      'keep/config.py': PY_STORE['keep/config.py']!.replace('            raise FileNotFoundError(directory)', '            directory.mkdir()').replace('        self.directory = directory', '        self.directory = directory.resolve()'),
    };
    const py = traceFlow(repo(files).ctx, { kind: 'configuration_key', name: 'KEEP_HOME' }, { role: 'primary', path: 'keep/config.py', symbol: null, start_line: 6, end_line: 6 });
    if (py.kind !== 'found') throw new Error(py.reason);
    const at = (line: number) => py.payload.steps.filter((s) => s.location.start_line === line).map((s) => `${s.role} ${s.description}`);
    expect(at(18)).toEqual(['consumer `directory.mkdir()` acts on the value (in `__init__`)']);
    expect(at(19).map((s) => s.split(' ')[0])).not.toContain('consumer');
    expect(py.payload.gaps.filter((g) => /not accounted/.test(g))).toEqual([]);
  });
});
