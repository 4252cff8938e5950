// Fifth round of shapes met in real CLIs: Python argparse values that travel
// without being spelled as the option — a custom `argparse.Action` subclass
// that reads the default from the environment, and the parsed namespace turned
// into a dict (`vars(args)`) and splatted into a settings constructor.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import type { AnalysisContext } from '../../src/evidence/context.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const PY_UPLOADER: Files = {
  'pyproject.toml': lines('[project]', 'name = "hoist"'),
  'hoist/helpers.py': lines(
    'import argparse', //                                                        1
    'import os', //                                                              2
    '', //                                                                       3
    '', //                                                                       4
    'class FlagFromEnv(argparse.Action):', //                                    5
    '    def __init__(self, env, **kwargs):', //                                 6
    '        default = self.parse_bool(os.environ.get(env))', //                 7
    '        self.env = env', //                                                 8
    '        super().__init__(default=default, nargs=0, **kwargs)', //           9
    '', //                                                                       10
    '    def __call__(self, parser, namespace, values, option_string=None):', // 11
    '        setattr(namespace, self.dest, True)', //                            12
    '', //                                                                       13
    '    @staticmethod', //                                                      14
    '    def parse_bool(raw):', //                                               15
    '        return bool(raw and raw.lower() not in ("0", "off"))', //           16
  ),
  'hoist/options.py': lines(
    'import argparse', //                                                        1
    '', //                                                                       2
    'from hoist import helpers', //                                              3
    '', //                                                                       4
    '', //                                                                       5
    'class Options:', //                                                         6
    '    def __init__(self, target, quiet_mode=False, retries=1):', //           7
    '        self.target = target', //                                           8
    '        self.retries = retries', //                                         9
    '        self.prompter = pick_prompter(not quiet_mode)', //                  10
    '', //                                                                       11
    '    @classmethod', //                                                       12
    '    def from_args(cls, args):', //                                          13
    '        values = vars(args)', //                                            14
    '        values["target"] = values.pop("dest_url")', //                      15
    '        return cls(**values)', //                                           16
    '', //                                                                       17
    '', //                                                                       18
    'def pick_prompter(ask):', //                                                19
    '    if ask:', //                                                            20
    '        return input', //                                                   21
    '    return None', //                                                        22
    '', //                                                                       23
    '', //                                                                       24
    'def build_parser():', //                                                    25
    '    parser = argparse.ArgumentParser()', //                                 26
    '    parser.add_argument("dest_url")', //                                    27
    '    parser.add_argument(', //                                               28
    '        "--quiet-mode",', //                                                29
    '        action=helpers.FlagFromEnv,', //                                    30
    '        env="HOIST_QUIET_MODE",', //                                        31
    '    )', //                                                                  32
    '    parser.add_argument("--retries", type=int, default=1)', //              33
    '    return parser', //                                                      34
  ),
  'hoist/other.py': lines(
    'def show(config):', //                                                      1
    '    return report(**vars(config))', //                                      2
    '', //                                                                       3
    '', //                                                                       4
    'def report(title, width=80):', //                                           5
    '    return title.ljust(width)', //                                          6
  ),
};

const repo = fixtureRepos();
const context = (files: Files): AnalysisContext => repo(files).ctx;
type Flow = Extract<ReturnType<typeof traceFlow>, { kind: 'found' }>['payload'];
const rolesAt = (flow: Flow, path: string, line: number) =>
  flow.steps.filter((s) => s.location.path === path && s.location.start_line <= line && line <= s.location.end_line).map((s) => s.role);

describe('Python argparse values that travel unspelled', () => {
  const primary: Location = { role: 'primary', path: 'hoist/options.py', symbol: null, start_line: 28, end_line: 32 };

  it('cites a custom action class named by `action=` as where the default and the stored value are decided', () => {
    const result = traceFlow(context(PY_UPLOADER), { kind: 'configuration_key', name: 'HOIST_QUIET_MODE' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const action = result.payload.steps.find((s) => s.location.path === 'hoist/helpers.py');
    expect(action).toMatchObject({ role: 'precedence', location: { start_line: 5, end_line: 16 } });
  });

  it('follows the dest through `vars(args)` and `cls(**values)` into the constructor parameter and on to its use', () => {
    const result = traceFlow(context(PY_UPLOADER), { kind: 'configuration_key', name: 'HOIST_QUIET_MODE' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(rolesAt(result.payload, 'hoist/options.py', 14)).toContain('carrier');
    expect(rolesAt(result.payload, 'hoist/options.py', 16)).toContain('carrier');
    expect(rolesAt(result.payload, 'hoist/options.py', 7)).toContain('carrier');
    expect(rolesAt(result.payload, 'hoist/options.py', 10).length).toBeGreaterThan(0);
    expect(rolesAt(result.payload, 'hoist/options.py', 20)).toContain('consumer');
    // A splat into a function without a parameter of that name carries nothing the trace could follow.
    expect(result.payload.steps.some((s) => s.location.path === 'hoist/other.py')).toBe(false);
  });

  it('names no action class for a built-in action string', () => {
    const ctx = context(PY_UPLOADER);
    const retries: Location = { role: 'primary', path: 'hoist/options.py', symbol: null, start_line: 33, end_line: 33 };
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--retries' }, retries);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.steps.some((s) => s.location.path === 'hoist/helpers.py')).toBe(false);
  });
});

const JS_PAINTER: Files = {
  'package.json': lines('{ "name": "painter", "type": "module" }'),
  'src/cli.js': lines(
    "import { program } from 'commander';", //                             1
    "import { readSettings, render } from './render.js';", //               2
    '', //                                                                  3
    'program.option("--trailing-break", "end the output with a newline");', // 4
    '', //                                                                  5
    'export async function action(opts) {', //                              6
    '  let settings = {};', //                                              7
    '  const fromFile = await readSettings(opts.settings);', //             8
    '  if (fromFile) {', //                                                 9
    '    settings = fromFile;', //                                          10
    '  }', //                                                               11
    '  if (opts.trailingBreak) {', //                                       12
    '    settings.output = settings.output || {};', //                      13
    '    settings.output.trailingBreak = true;', //                         14
    '  }', //                                                               15
    '  return render(settings);', //                                        16
    '}', //                                                                 17
  ),
  'src/render.js': lines(
    "import { serialize } from './serialize.js';", //                      1
    '', //                                                                  2
    'export async function readSettings(path) {', //                        3
    '  return path ? JSON.parse(path) : null;', //                          4
    '}', //                                                                 5
    '', //                                                                  6
    'export function render(settings) {', //                                7
    '  const full = {', //                                                  8
    '    ...settings,', //                                                  9
    '    output: {', //                                                     10
    "      newline: 'lf',", //                                              11
    '      ...settings.output,', //                                         12
    '    },', //                                                            13
    '  };', //                                                              14
    "  return serialize('<svg/>', full.output);", //                       15
    '}', //                                                                 16
  ),
  'src/serialize.js': lines(
    'export function serialize(text, output) {', //                         1
    '  if (output.trailingBreak) {', //                                     2
    "    return text + '\\n';", //                                          3
    '  }', //                                                               4
    '  return text;', //                                                    5
    '}', //                                                                 6
  ),
};

describe('values stored into a nested object travel with their container', () => {
  const primary: Location = { role: 'primary', path: 'src/cli.js', symbol: null, start_line: 4, end_line: 4 };

  it('cites the container merged over defaults, handed whole to a call, and the earlier source of the object the option overrides', () => {
    const result = traceFlow(context(JS_PAINTER), { kind: 'cli_option', name: '--trailing-break' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const at = (path: string, start: number) => result.payload.steps.filter((s) => s.location.path === path && s.location.start_line === start).map((s) => `${s.role} ${s.location.start_line}-${s.location.end_line}`);
    // `output: { newline: 'lf', ...settings.output }`: merged with a default key, cited with its key.
    expect(at('src/render.js', 10)).toEqual(['transformation 10-13']);
    // `serialize('<svg/>', full.output)`: the container handed on whole.
    expect(at('src/render.js', 15)).toEqual(['carrier 15-15']);
    // `const fromFile = await readSettings(…)` … `settings = fromFile`: the file's settings the option overrides.
    expect(at('src/cli.js', 8)).toEqual(['precedence 8-10']);
    // Assignments that only make room for the container (`settings.output = settings.output || {}`) hand nothing on.
    expect(at('src/cli.js', 13)).toEqual([]);
  });
});

const JS_LINTER: Files = {
  'package.json': lines('{ "name": "tidy", "type": "module" }'),
  'lib/cli.js': lines(
    "import { parseArgs } from 'node:util';", //                            1
    "import { Runner } from './runner.js';", //                             2
    '', //                                                                  3
    "const { values } = parseArgs({ options: { 'skip-list': { type: 'string' } } });", // 4
    "new Runner({ cwd: '.', skipList: values['skip-list'] }).run();", //    5
  ),
  'lib/runner.js': lines(
    "import { listCommand } from './listCommand.js';", //                   1
    '', //                                                                  2
    'export class Runner {', //                                             3
    '  constructor({ cwd, skipList }) {', //                                4
    '    this.cwd = cwd;', //                                               5
    '    this.skipList = skipList;', //                                     6
    '  }', //                                                               7
    '', //                                                                  8
    '  run() {', //                                                         9
    '    return listCommand(this.cwd, this.skipList);', //                  10
    '  }', //                                                               11
    '}', //                                                                 12
  ),
  'lib/listCommand.js': lines(
    'export const listCommand = (cwd, skipList) => {', //                   1
    "  const skipped = skipList ? skipList.split(',') : [];", //            2
    "  return ['ls', cwd, ...skipped.map((s) => `--skip=${s}`)];", //      3
    '};', //                                                                4
  ),
};

describe('JavaScript parameters declared without a wrapping node', () => {
  it('takes a name destructured from a constructor’s options argument for a parameter, and follows an argument into an arrow function assigned to a const', () => {
    const primary: Location = { role: 'primary', path: 'lib/cli.js', symbol: null, start_line: 4, end_line: 4 };
    const result = traceFlow(context(JS_LINTER), { kind: 'cli_option', name: '--skip-list' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(rolesAt(result.payload, 'lib/runner.js', 4)).toEqual(['carrier']);
    expect(rolesAt(result.payload, 'lib/listCommand.js', 1)).toEqual(['carrier']);
    expect(result.payload.gaps.filter((g) => /not accounted|not followed/.test(g))).toEqual([]);
  });
});

/** A flow with more steps than the contract allows: sixteen checks of the option, three lines apart. */
const manyChecks = (): Files => {
  const body = ['export function main(opts) {'];
  for (let i = 1; i <= 16; i++) body.push(`  if (opts.dryRun) log(${i});`, `  step(${i});`, '  next();');
  body.push('}');
  return {
    'package.json': lines('{ "name": "many", "type": "module" }'),
    'src/cli.js': lines("import { program } from 'commander';", "program.option('--dry-run', 'show only');"),
    'src/main.js': lines(...body),
  };
};

describe('flows past the step limit', () => {
  it('cites neighbouring steps of one role in one file as one range before dropping any', () => {
    const primary: Location = { role: 'primary', path: 'src/cli.js', symbol: null, start_line: 2, end_line: 2 };
    const result = traceFlow(context(manyChecks()), { kind: 'cli_option', name: '--dry-run' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.gaps.filter((g) => g.includes('omitted'))).toEqual([]);
    for (let i = 0; i < 16; i++) expect(rolesAt(result.payload, 'src/main.js', 2 + 3 * i)).toEqual(['consumer']);
  });
});

const GO_PRUNER: Files = {
  'go.mod': lines('module example.com/pruner', '', 'go 1.21'),
  'main.go': lines(
    'package main', //                                                      1
    '', //                                                                  2
    'import "flag"', //                                                     3
    '', //                                                                  4
    'type Options struct {', //                                             5
    '\tKeepLast int', //                                                    6
    '}', //                                                                 7
    '', //                                                                  8
    'type Wide struct {', //                                                9
    ...Array.from({ length: 18 }, (_, i) => `\tPad${i} int`), //             10-27
    '\tMaxAge int', //                                                      28
    '}', //                                                                 29
    '', //                                                                  30
    'func main() {', //                                                     31
    '\tvar o Options', //                                                   32
    '\tvar w Wide', //                                                      33
    '\tflag.IntVar(&o.KeepLast, "keep-last", 3, "snapshots to keep")', //  34
    '\tflag.IntVar(&w.MaxAge, "max-age", 9, "days to keep")', //           35
    '\tflag.Parse()', //                                                    36
    '\tif o.KeepLast > 0 && w.MaxAge > 0 {', //                            37
    '\t\tprintln("pruning")', //                                            38
    '\t}', //                                                               39
    '}', //                                                                 40
  ),
};

describe('field carriers cited with their record', () => {
  it('opens a field’s citation at its type’s header when the header is close above, and not when it is far', () => {
    const ctx = context(GO_PRUNER);
    const keep = traceFlow(ctx, { kind: 'cli_option', name: '--keep-last' }, { role: 'primary', path: 'main.go', symbol: null, start_line: 34, end_line: 34 });
    if (keep.kind !== 'found') throw new Error(keep.reason);
    expect(keep.payload.steps.filter((s) => s.role === 'carrier').map((s) => `${s.location.start_line}-${s.location.end_line}`)).toContain('5-6');
    const age = traceFlow(ctx, { kind: 'cli_option', name: '--max-age' }, { role: 'primary', path: 'main.go', symbol: null, start_line: 35, end_line: 35 });
    if (age.kind !== 'found') throw new Error(age.reason);
    expect(age.payload.steps.filter((s) => s.role === 'carrier').map((s) => `${s.location.start_line}-${s.location.end_line}`)).toContain('28-28');
  });
});

const PY_BEACON: Files = {
  'pyproject.toml': lines('[project]', 'name = "beacon"'),
  'beacon/envtools.py': lines(
    'import os', //                                                         1
    '', //                                                                  2
    '', //                                                                  3
    'def env_or(key, fallback):', //                                        4
    '    value = os.environ.get(key)', //                                   5
    '    if value:', //                                                     6
    '        return value', //                                              7
    '    return fallback', //                                               8
    '', //                                                                  9
    '', //                                                                  10
    'def as_flag(text):', //                                                11
    '    return text.lower() in ("1", "on", "yes")', //                     12
  ),
  'beacon/main.py': lines(
    'from beacon.envtools import as_flag, env_or', //                       1
    '', //                                                                  2
    '', //                                                                  3
    'def settings():', //                                                   4
    '    quiet = as_flag(env_or("BEACON_QUIET", "no"))', //                 5
    '    return {"quiet": quiet}', //                                       6
    '', //                                                                  7
    '', //                                                                  8
    'def run():', //                                                        9
    '    s = settings()', //                                                10
    '    if not s["quiet"]:', //                                            11
    '        print("hello")', //                                            12
  ),
};

describe('keys read through the project’s own helpers', () => {
  it('cites the helper that receives the key (it falls back to a default) and the helper that converts its result', () => {
    const primary: Location = { role: 'primary', path: 'beacon/main.py', symbol: null, start_line: 5, end_line: 5 };
    const result = traceFlow(context(PY_BEACON), { kind: 'configuration_key', name: 'BEACON_QUIET' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const helpers = result.payload.steps.filter((s) => s.location.path === 'beacon/envtools.py').map((s) => `${s.role} ${s.location.start_line}-${s.location.end_line}`);
    expect(helpers).toEqual(['transformation 11-12', 'precedence 4-8']);
  });
});

const RUST_MATCHER: Files = {
  'Cargo.toml': lines('[package]', 'name = "matcher"', 'version = "0.1.0"', 'edition = "2021"'),
  'src/main.rs': lines(
    'use clap::Parser;', //                                                 1
    'mod matcher;', //                                                      2
    '', //                                                                  3
    '#[derive(Parser)]', //                                                 4
    'struct Args {', //                                                     5
    '    #[arg(long = "plain-text")]', //                                   6
    '    plain: bool,', //                                                  7
    '}', //                                                                 8
    '', //                                                                  9
    'fn main() {', //                                                       10
    '    let args = Args::parse();', //                                     11
    '    let m = matcher::Matcher::new(args.plain);', //                    12
    '    m.apply("a.b");', //                                               13
    '}', //                                                                 14
  ),
  'src/matcher.rs': lines(
    'pub struct Matcher {', //                                              1
    '    literal: bool,', //                                                2
    '}', //                                                                 3
    '', //                                                                  4
    'impl Matcher {', //                                                    5
    '    pub fn new(literal: bool) -> Self {', //                           6
    '        Self { literal }', //                                          7
    '    }', //                                                             8
    '', //                                                                  9
    '    pub fn apply(&self, text: &str) -> String {', //                   10
    '        if self.literal {', //                                         11
    '            return text.to_string();', //                              12
    '        }', //                                                         13
    '        text.replace(".", "\\\\.")', //                                14
    '    }', //                                                             15
    '}', //                                                                 16
  ),
};

describe('a constructor storing its parameter with `Self { x }`', () => {
  it('follows the receiver’s field to the `self.x` that decides', () => {
    const primary: Location = { role: 'primary', path: 'src/main.rs', symbol: 'plain', start_line: 6, end_line: 7 };
    const result = traceFlow(context(RUST_MATCHER), { kind: 'cli_option', name: '--plain-text' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(rolesAt(result.payload, 'src/matcher.rs', 11)).toContain('consumer');
  });
});

describe('a symbol handed over as a keyword argument', () => {
  it('cites the whole short call as the use, since its other arguments configure it', () => {
    const result = locateImplementation(context(PY_UPLOADER), { kind: 'symbol', name: 'FlagFromEnv' });
    if (result.kind !== 'found') throw new Error(JSON.stringify(result));
    expect(result.payload.locations[0]).toMatchObject({ role: 'primary', path: 'hoist/helpers.py' });
    expect(result.payload.locations.slice(1).map((l) => `${l.path}:${l.start_line}-${l.end_line}`)).toContain('hoist/options.py:28-32');
  });
});
