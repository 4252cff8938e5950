// Eighth round of shapes met in real CLIs. A Node program's command line is
// often parsed by minimist (or mri, or yargs without `.option`), which takes no
// declarations: the option's name appears only where the parsed object is read
// (`argv.cors`, `argv['proxy-options']`), and such programs keep that code in
// a script without an extension (`bin/serve`, `#!/usr/bin/env node`), which
// no `*.js` pathspec reaches. Their suites often run on node-tap
// (`npx tap --grep=^title$ file`). Among tests alike in every other sign, a
// title that sets the option to `false` checks the default, not the option.
// A string that spells the option in PascalCase is a label (`'Proxy'`), not a
// name a parser or the environment knows; and a consumer that spells the
// subject only in a comment is not where the option acts. Plain JavaScript
// keeps settings in objects no type declares (`this.options.requireUpstream`):
// such a read is the key's weakest declaration, and a preset that only assigns
// the key (`options.git.requireUpstream = false`) does not act on it. A Go
// flag may be bound through a wrapper (`boolVar(&processor.MaxMean)`) into a
// variable of another package, read bare inside that package; vendored code is
// never cited. rstest's `#[case(…)]` functions are tests whose cases the runner
// names `name::case_1…`. A title that speaks of a one-word option as a
// setting (`…_with_aggressive`, `…_raw_flag`) ties its test to the option.
// clap's `env = "X"` makes the flag the precedence over the variable, whose
// focused test — when no test sets the variable — is the flag's; a value
// handed to `println!` is written out, not left unexplained. Build output a
// repository commits and marks in `.gitattributes` (`linguist-generated`) is
// never cited or followed; a word inside a regular expression is no use of the
// option. A parametrized pytest case named after the option
// (`pytest.param(['-o', 'out'], id='outdir')`) is its focused test. citty's
// `args` table declares options, and a JavaScript template's text is prose.
// Go's flag package writes one-letter flags as `-z` (declared as `"z"`); a
// `select` case binds what it receives; a variable named like the option
// that a declaring call's value is bound to is its carrier.
import { describe, expect, it } from 'vitest';
import type { FocusedTests, ImplementationLocation, Location, RuntimeFlow } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import { languageForShebang, lacksExtension } from '../../src/evidence/parse/treesitter.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { withBehaviourSite } from '../../src/evidence/behaviour.js';
import { checkArgv } from '../../src/validate/test-command.js';
import { namesAsSetting } from '../../src/evidence/tests/relevance.js';
import { notCodeMarks } from '../../src/evidence/generated-marks.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { flowVerdict } from './fixtures/flow-verdict.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();
const worker = createStaticWorker();

function need(name: string): CompiledNeed {
  return compileNeed(
    { route: 'trace.state-flow', subject: { kind: 'cli_option', name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `trace ${name}` },
    lineageDigest(['0'.repeat(40)]),
  );
}

/** Runs the static worker on every obligation of `n` over a fixture repository; `verdict` validates its focused test. */
async function workerRun(files: Files, n: CompiledNeed) {
  const { root } = repo(files);
  const out = await worker.run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
  const plan = out.proposals.find((p) => p.predicate === 'focused_tests')?.payload as FocusedTests | undefined;
  const verdict = (): string => {
    const v = validateProposal(new SnapshotReader(root), n, [...n.required, ...n.preferred], { predicate: 'focused_tests', payload: plan! });
    return v.ok ? 'ok' : v.reasons.join('; ');
  };
  return { root, out, plan, verdict };
}

/** Locates `subject` in a fixture repository and traces it from the primary location; both must be found. */
function locatedAndTraced(files: Files, subject: { readonly kind: 'cli_option' | 'configuration_key'; readonly name: string }) {
  const { root, ctx } = repo(files);
  const result = locateImplementation(ctx, subject);
  if (result.kind !== 'found') throw new Error(JSON.stringify(result));
  const traced = traceFlow(ctx, subject, result.payload.locations[0]!);
  if (traced.kind !== 'found') throw new Error(traced.reason);
  return { root, ctx, located: result, flow: traced };
}

const roles = (flow: RuntimeFlow): string[] => flow.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}`);

// A static file server whose command line is parsed by minimist in an extensionless script, tested with tap.
const JS_STATIC: Files = {
  'package.json': `${JSON.stringify({ name: 'statik', bin: { statik: './bin/statik' }, scripts: { test: 'tap test/*.test.js' }, dependencies: { minimist: '^1.2.8' }, devDependencies: { tap: '^21.0.0' } }, null, 2)}\n`,
  'bin/statik': lines(
    '#!/usr/bin/env node', //                                                              1
    "'use strict';", //                                                                    2
    "const chalk = require('chalk');", //                                                  3
    "const statik = require('../lib/statik');", //                                         4
    "const argv = require('minimist')(process.argv.slice(2), { boolean: ['quiet'] });", // 5
    '', //                                                                                 6
    'const options = { root: argv._[0] };', //                                             7
    'const proxy = argv.P || argv.proxy;', //                                              8
    'if (argv.cors) {', //                                                                 9
    '  options.cors = true;', //                                                           10
    '}', //                                                                                11
    'if (proxy) {', //                                                                     12
    "  console.log(chalk.magenta('Proxy'), proxy);", //                                    13
    '  options.proxy = proxy;', //                                                         14
    '}', //                                                                                15
    'statik.listen(options);', //                                                          16
  ),
  'lib/statik.js': lines(
    "'use strict';", //                                                                    1
    'exports.listen = function listen(options) {', //                                      2
    '  const headers = {};', //                                                            3
    '  if (options.cors) {', //                                                            4
    "    headers['Access-Control-Allow-Origin'] = '*';", //                                5
    '  }', //                                                                              6
    '  return headers;', //                                                                7
    '};', //                                                                               8
  ),
  'test/cors.test.js': lines(
    "const test = require('tap').test;", //                                                1
    "const statik = require('../lib/statik');", //                                         2
    '', //                                                                                 3
    "test('cors set to false', (t) => {", //                                               4
    '  const headers = statik.listen({ cors: false });', //                                5
    "  t.equal(headers['Access-Control-Allow-Origin'], undefined);", //                    6
    '  t.end();', //                                                                       7
    '});', //                                                                              8
    '', //                                                                                 9
    "test('cors set to true', (t) => {", //                                                10
    '  const headers = statik.listen({ cors: true });', //                                 11
    "  t.equal(headers['Access-Control-Allow-Origin'], '*');", //                          12
    '  t.end();', //                                                                       13
    '});', //                                                                              14
  ),
};

describe('a command line parsed by minimist in an extensionless Node script, tested with tap', () => {
  it('knows a script by its #! line only when its name has no extension', () => {
    expect(languageForShebang('#!/usr/bin/env node\n')).toBe('javascript');
    expect(languageForShebang('#!/usr/local/bin/node --harmony\n')).toBe('javascript');
    expect(languageForShebang('#!/usr/bin/env -S deno run\n')).toBe('typescript');
    expect(languageForShebang('#!/usr/bin/python3.11 -u\n')).toBe('python');
    expect(languageForShebang('#!/bin/sh\n')).toBeNull();
    expect(languageForShebang('node\n')).toBeNull();
    expect(lacksExtension('bin/statik')).toBe(true);
    expect(lacksExtension('bin/statik.sh')).toBe(false);
    expect(lacksExtension('.github/CODEOWNERS')).toBe(true);
  });

  it('locates the option where the parsed arguments are read, and traces it from that read to the branch it decides', async () => {
    const { root, ctx } = repo(JS_STATIC);
    const located = locateImplementation(ctx, { kind: 'cli_option', name: '--cors' });
    expect(located.kind).toBe('found');
    const primary = located.kind === 'found' ? located.payload.locations[0]! : null;
    expect(primary && `${primary.path}:${primary.start_line}`).toBe('bin/statik:9');
    const flow = traceFlow(ctx, { kind: 'cli_option', name: '--cors' }, primary);
    if (flow.kind !== 'found') throw new Error(flow.reason);
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['producer bin/statik:9', 'consumer lib/statik.js:4']));
    expect(flow.payload.steps.find((s) => s.role === 'producer')?.description).toContain('read from the command line parsed into `argv`');
    expect(flowVerdict(root, { kind: 'cli_option', name: '--cors' }, flow.payload)).toBe('ok');
  });

  it('takes a short alias read beside the long one for the same option, and no label string for its producer', () => {
    const { ctx } = repo(JS_STATIC);
    const located = locateImplementation(ctx, { kind: 'cli_option', name: '--proxy' });
    const primary = located.kind === 'found' ? located.payload.locations[0]! : null;
    expect(primary && `${primary.path}:${primary.start_line}`).toBe('bin/statik:8');
    const flow = traceFlow(ctx, { kind: 'cli_option', name: '--proxy' }, primary);
    if (flow.kind !== 'found') throw new Error(flow.reason);
    const producers = flow.payload.steps.filter((s) => s.role === 'producer').map((s) => `${s.location.path}:${s.location.start_line}`);
    expect(producers).toEqual(['bin/statik:8']);
  });

  it('names the tap test that turns the option on, with a command tap runs and the validator accepts', async () => {
    const n = need('--cors');
    const { plan, verdict } = await workerRun(JS_STATIC, n);
    expect(plan?.identifier).toBe('cors set to true');
    expect(plan?.argv).toEqual(['npx', 'tap', '--grep=^cors set to true$', 'test/cors.test.js']);
    expect(verdict()).toBe('ok');
  });

  it('refuses a tap plan that does not name its test, and a runner it does not know', () => {
    const plan = (argv: string[]): FocusedTests =>
      ({ runner: 'npx', argv, cwd_relative: '.', identifier: 'cors set to true', selection: 'representative', location: { role: 'primary', path: 'test/cors.test.js', symbol: null, start_line: 10, end_line: 14 }, evidence_paths: ['test/cors.test.js'] }) as FocusedTests;
    expect(checkArgv(plan(['npx', 'tap', '--grep=^cors set to true$', 'test/cors.test.js']))).toEqual([]);
    expect(checkArgv(plan(['npx', 'tap', 'test/cors.test.js']))).toEqual(['argv does not name the identifier cors set to true']);
    expect(checkArgv(plan(['npx', 'tape', 'test/cors.test.js', 'cors set to true']))[0]).toContain('an npx plan must run vitest, jest, mocha, ava, tap or `node --test`');
  });
});

// A formatter whose `--required-version` is also read, under the same name, from pyproject.toml by a CI helper.
const PY_FORMAT: Files = {
  'pyproject.toml': lines('[project]', 'name = "fmt"'),
  'fmt/__init__.py': lines(
    'import click', //                                                                     1
    '', //                                                                                 2
    '__version__ = "1.2.0"', //                                                            3
    '', //                                                                                 4
    '', //                                                                                 5
    '@click.command()', //                                                                 6
    '@click.option("--required-version", type=str, help="Require this version.")', //     7
    'def main(required_version):', //                                                      8
    '    if required_version and required_version != __version__:', //                    9
    '        print(f"required {required_version}, running {__version__}")', //            10
    '        raise SystemExit(1)', //                                                      11
    '    print("formatting")', //                                                          12
  ),
  'action/main.py': lines(
    'import tomllib', //                                                                   1
    '', //                                                                                 2
    '', //                                                                                 3
    'def read_version(path):', //                                                          4
    '    with open(path, "rb") as f:', //                                                  5
    '        data = tomllib.load(f)', //                                                   6
    '    version = data.get("tool", {}).get("fmt", {}).get("required-version")', //        7
    '    if version is not None:', //                                                      8
    '        # Match both usages of `required-version`: exact and major only', //          9
    '        return version', //                                                           10
    '    return None', //                                                                  11
  ),
};

describe('a consumer that spells the option only in a comment', () => {
  it('is not chosen as the behaviour site over one that spells it in code', () => {
    const { ctx } = repo(PY_FORMAT);
    const subject = { kind: 'cli_option' as const, name: '--required-version' };
    const located = locateImplementation(ctx, subject);
    if (located.kind !== 'found') throw new Error(JSON.stringify(located));
    const declaration: Location = located.payload.locations[0]!;
    const flow = traceFlow(ctx, subject, declaration);
    if (flow.kind !== 'found') throw new Error(flow.reason);
    // Both branches are consumers of the value; only one of them is about the option in code.
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['consumer fmt/__init__.py:9', 'consumer action/main.py:8']));
    const site = withBehaviourSite(ctx, subject.name, located.payload, flow.payload, flow.carriers) as { payload: ImplementationLocation } | null;
    const primary = site?.payload.locations[0];
    expect(primary && `${primary.path}:${primary.start_line}`).toBe('fmt/__init__.py:9');
  });
});

// A release tool in plain JavaScript: no type declares its settings; a plugin reads `this.options.requireUpstream`,
// and a preset for snapshot releases forces it off.
const JS_RELEASE: Files = {
  'package.json': `${JSON.stringify({ name: 'shipit', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'lib/config.js': lines(
    'export function presets(options, snapshot) {', //                                   1
    "  if (typeof snapshot === 'string') {", //                                           2
    "    options.git.tagMatch = `0.0.0-${snapshot}`;", //                                 3
    '    options.git.requireUpstream = false;', //                                        4
    '  }', //                                                                             5
    '  return options;', //                                                               6
    '}', //                                                                               7
  ),
  'lib/git.js': lines(
    'export class Git {', //                                                              1
    '  constructor(options) {', //                                                       2
    '    this.options = options;', //                                                     3
    '  }', //                                                                             4
    '', //                                                                                5
    '  async init() {', //                                                                6
    '    if (this.options.requireUpstream && !(await this.hasUpstream())) {', //          7
    "      throw new Error('No upstream configured for the current branch.');", //        8
    '    }', //                                                                           9
    '  }', //                                                                             10
    '', //                                                                                11
    '  async hasUpstream() {', //                                                         12
    '    return false;', //                                                               13
    '  }', //                                                                             14
    '}', //                                                                               15
  ),
};

describe('a configuration key read from a settings object no type declares', () => {
  it('is located where the settings object is read, and a preset that only assigns it is not its behaviour', () => {
    const subject = { kind: 'configuration_key' as const, name: 'requireUpstream' };
    const { located, flow, ctx } = locatedAndTraced(JS_RELEASE, subject);
    expect(`${located.payload.locations[0]!.path}:${located.payload.locations[0]!.start_line}`).toBe('lib/git.js:7');
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['precedence lib/config.js:4', 'consumer lib/git.js:7']));
    const site = withBehaviourSite(ctx, subject.name, located.payload, flow.payload, flow.carriers);
    const primary = site.payload.locations[0]!;
    expect(`${primary.path}:${primary.start_line}`).toBe('lib/git.js:7');
  });
});

// A Go line counter: its flags are bound through a wrapper (`boolVar(&processor.MaxMean)`) into variables of
// another package, which that package reads bare; a vendored library happens to use the same word.
const GO_COUNT: Files = {
  'go.mod': lines('module example.com/count', '', 'go 1.21', '', 'require github.com/spf13/pflag v1.0.5'),
  'config.go': lines(
    'package main', //                                                                   1
    '', //                                                                               2
    'import (', //                                                                       3
    '\t"example.com/count/processor"', //                                                4
    '\t"github.com/spf13/pflag"', //                                                     5
    ')', //                                                                              6
    '', //                                                                               7
    'func boolVar(p *bool) *bool { return p }', //                                       8
    '', //                                                                               9
    'func registerFlags(flags *pflag.FlagSet) {', //                                     10
    '\tflags.BoolVarP(boolVar(&processor.MaxMean), "character", "m", false, "calculate max and mean characters per line")', // 11
    '}', //                                                                              12
  ),
  'processor/processor.go': lines(
    'package processor', //                                                              1
    '', //                                                                               2
    'var MaxMean = false', //                                                            3
  ),
  'processor/workers.go': lines(
    'package processor; import "strconv"', //                                            1
    '', //                                                                               2
    'func CountStats(lines []string) (int, int) {', //                                   3
    '\tlongest, total := 0, 0', //                                                       4
    '\tif MaxMean {', //                                                                 5
    '\t\tfor _, l := range lines {', //                                                  6
    '\t\t\ttotal += len(l)', //                                                          7
    '\t\t\tif len(l) > longest {', //                                                    8
    '\t\t\t\tlongest = len(l)', //                                                      9
    '\t\t\t}', //                                                                        10
    '\t\t}', //                                                                          11
    '\t}', //                                                                            12
    '\treturn longest, total', //                                                        13
    '}', //                                                                              14
    '', //                                                                               15
    'func Describe() string {', //                                                       16
    '\treturn strconv.FormatBool(MaxMean)', //                                           17
    '}', //                                                                              18
  ),
  'vendor/github.com/some/scanner/scanner.go': lines(
    'package scanner', //                                                                1
    '', //                                                                               2
    'func Scan(character rune) bool { return character == 0 }', //                       3
  ),
};

describe('a Go flag bound through a wrapper into another package’s variable', () => {
  it('follows the variable bare inside its package, names the binding its carrier, and cites nothing vendored', () => {
    const subject = { kind: 'cli_option' as const, name: '--character' };
    const { located, flow, root } = locatedAndTraced(GO_COUNT, subject);
    expect(located.payload.locations.map((l) => `${l.role} ${l.path}:${l.start_line}`)).toEqual(['primary config.go:11']);
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['producer config.go:11', 'carrier config.go:11', 'consumer processor/workers.go:5']));
    expect(flow.payload.steps.some((s) => s.location.path.startsWith('vendor/'))).toBe(false);
    expect(flowVerdict(root, subject, flow.payload)).toBe('ok');
  });
});

// A file server whose integration tests are rstest cases passing the flag in a `#[case]` attribute.
const RUST_SERVE: Files = {
  'Cargo.toml': lines('[package]', 'name = "serve"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }', '', '[dev-dependencies]', 'rstest = "0.18"'),
  'src/main.rs': lines(
    'use clap::Parser;', //                                                              1
    '', //                                                                               2
    '#[derive(Parser)]', //                                                              3
    'struct Args {', //                                                                  4
    '    /// Do not follow symbolic links', //                                           5
    '    #[arg(short = \'P\', long = "no-symlinks")]', //                                6
    '    no_symlinks: bool,', //                                                         7
    '}', //                                                                              8
    '', //                                                                               9
    'fn main() {', //                                                                    10
    '    let args = Args::parse();', //                                                  11
    '    if args.no_symlinks {', //                                                      12
    '        println!("symlinks are not followed");', //                                 13
    '    }', //                                                                          14
    '}', //                                                                              15
  ),
  'tests/serve_request.rs': lines(
    'use rstest::rstest;', //                                                            1
    '', //                                                                               2
    'fn serve(args: &[&str]) -> Vec<String> { args.iter().map(|a| a.to_string()).collect() }', // 3
    '', //                                                                               4
    '#[rstest]', //                                                                      5
    '#[case(serve(&[]), true)]', //                                                      6
    '#[case(serve(&["--no-symlinks"]), false)]', //                                      7
    'fn serves_symlinks(#[case] server: Vec<String>, #[case] followed: bool) {', //       8
    '    assert_eq!(server.is_empty(), followed);', //                                   9
    '}', //                                                                              10
    '', //                                                                               11
    '#[test]', //                                                                        12
    'fn serves_index() {', //                                                            13
    '    assert!(serve(&["index.html"]).len() == 1);', //                                14
    '}', //                                                                              15
  ),
};

describe('rstest cases that pass the option in their #[case] attributes', () => {
  it('are a focused test, run by the prefix that selects every generated case', async () => {
    const n = need('--no-symlinks');
    const { plan, verdict } = await workerRun(RUST_SERVE, n);
    expect(plan?.identifier).toBe('serves_symlinks');
    // rstest names the cases `serves_symlinks::case_1`, `…::case_2`: `--exact` would select none of them.
    expect(plan?.argv).toEqual(['cargo', 'test', '--test', 'serve_request', 'serves_symlinks::']);
    expect(plan?.location.start_line).toBe(8);
    expect(verdict()).toBe('ok');
  });
});

// A formatter whose one-word `--aggressive` is passed by many tests; one title speaks of it as a setting.
const PY_FIXER: Files = {
  'pyproject.toml': lines('[project]', 'name = "fixer"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'fixer/__init__.py': '',
  'fixer/cli.py': lines(
    'import argparse', //                                                                1
    '', //                                                                               2
    '', //                                                                               3
    'def parse(argv):', //                                                               4
    '    parser = argparse.ArgumentParser()', //                                         5
    '    parser.add_argument("--aggressive", action="store_true", help="fix more")', //  6
    '    return parser.parse_args(argv)', //                                             7
    '', //                                                                               8
    '', //                                                                               9
    'def fix(source, argv):', //                                                         10
    '    args = parse(argv)', //                                                         11
    '    if args.aggressive:', //                                                        12
    '        source = source.replace("== None", "is None")', //                          13
    '    return source', //                                                              14
  ),
  'tests/test_fix.py': lines(
    'from fixer.cli import fix', //                                                      1
    '', //                                                                               2
    '', //                                                                               3
    'def test_long_line_with_aggressive():', //                                          4
    '    source = "a == None"', //                                                       5
    '    fixed = "a is None"', //                                                        6
    '    assert fix(source, ["--aggressive"]) == fixed', //                              7
    '', //                                                                               8
    '', //                                                                               9
    'def test_equality_comparison():', //                                                10
    '    source = "a == None"', //                                                       11
    '    assert fix(source, ["--aggressive"]) == "a is None"', //                        12
  ),
};

describe('a one-word option a test title speaks of as a setting', () => {
  it('ties the test to the option (`…_with_aggressive`), where the bare word would not (`runs_successfully` for `--runs`)', async () => {
    const n = need('--aggressive');
    const { plan } = await workerRun(PY_FIXER, n);
    expect(plan?.identifier).toBe('test_long_line_with_aggressive');
    expect(namesAsSetting(['test', 'e501', 'with', 'aggressive'], 'aggressive')).toBe(true);
    expect(namesAsSetting(['test', 'raw', 'flag'], 'raw')).toBe(true);
    expect(namesAsSetting(['runs', 'successfully'], 'runs')).toBe(false);
  });
});

// A server whose `--route-prefix` can also come from `SERVE_ROUTE_PREFIX` (clap's `env =`); tests pass the flag.
const RUST_PREFIX: Files = {
  'Cargo.toml': lines('[package]', 'name = "serve"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive", "env"] }'),
  'src/main.rs': lines(
    'use clap::Parser;', //                                                              1
    '', //                                                                               2
    '#[derive(Parser)]', //                                                              3
    'struct Args {', //                                                                  4
    '    /// Serve everything under this path', //                                       5
    '    #[arg(long = "route-prefix", env = "SERVE_ROUTE_PREFIX", default_value = "")]', // 6
    '    route_prefix: String,', //                                                      7
    '}', //                                                                              8
    '', //                                                                               9
    'fn scoped(prefix: &str, path: &str) -> String {', //                                10
    '    format!("/{}/{}", prefix.trim_matches(\'/\'), path)', //                          11
    '}', //                                                                              12
    '', //                                                                               13
    'fn main() {', //                                                                    14
    '    let args = Args::parse();', //                                                  15
    '    if !args.route_prefix.is_empty() {', //                                         16
    '        let url = scoped(&args.route_prefix, "index.html");', //                    17
    '        println!("{}", url);', //                                                   18
    '    }', //                                                                          19
    '}', //                                                                              20
  ),
  'tests/serve.rs': lines(
    'use std::process::Command;', //                                                     1
    '', //                                                                               2
    '#[test]', //                                                                        3
    'fn serves_under_route_prefix() {', //                                               4
    '    let out = Command::new(env!("CARGO_BIN_EXE_serve")).args(["--route-prefix", "app"]).output().unwrap();', // 5
    '    assert!(String::from_utf8_lossy(&out.stdout).contains("/app/index.html"));', //  6
    '}', //                                                                              7
  ),
};

describe('an environment variable a clap argument reads when its flag is absent', () => {
  it('has the flag as its precedence, and the flag’s test as its focused test when no test sets the variable', async () => {
    const n = compileNeed(
      { route: 'trace.state-flow', subject: { kind: 'configuration_key', name: 'SERVE_ROUTE_PREFIX' }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'trace SERVE_ROUTE_PREFIX' },
      lineageDigest(['0'.repeat(40)]),
    );
    const { root, out, plan, verdict } = await workerRun(RUST_PREFIX, n);
    const flow = out.proposals.find((p) => p.predicate === 'runtime_flow')?.payload as RuntimeFlow | undefined;
    expect(flow?.steps.find((s) => s.role === 'precedence' && s.description.includes('SERVE_ROUTE_PREFIX'))?.location.start_line).toBe(6);
    expect(flowVerdict(root, { kind: 'configuration_key', name: 'SERVE_ROUTE_PREFIX' }, flow!)).toBe('ok');
    expect(plan?.identifier).toBe('serves_under_route_prefix');
    // The declaration names both the variable and the flag the test passes: it is part of the evidence.
    expect(plan?.evidence_paths).toContain('src/main.rs');
    expect(verdict()).toBe('ok');
  });
});

// A script runner that commits its compiled output (marked generated in `.gitattributes`) and names shells in a regex.
const JS_RUNNER: Files = {
  '.gitattributes': lines('# compiled by the release script', 'build/** linguist-generated=true', 'docs/*.md linguist-documentation'),
  'package.json': `${JSON.stringify({ name: 'runner', type: 'module', dependencies: { minimist: '^1.2.8' } }, null, 2)}\n`,
  'src/cli.ts': lines(
    "import minimist from 'minimist';", //                                              1
    "import { run } from './core.ts';", //                                              2
    '', //                                                                              3
    "const argv = minimist(process.argv.slice(2), { string: ['shell'] });", //         4
    'if (argv.shell) run(argv.shell);', //                                              5
  ),
  'src/core.ts': lines(
    'export function run(shell: string): string {', //                                 1
    '  return `${shell} -c script`;', //                                               2
    '}', //                                                                             3
  ),
  'src/md.ts': lines(
    'export const fenceRe = /^```(?<bash>sh|shell|bash)$/;', //                         1
  ),
  'build/cli.cjs': lines(
    '"use strict";', //                                                                 1
    "const argv = require('minimist')(process.argv.slice(2), { string: ['shell'] });", // 2
    'if (argv.shell) { console.log(argv.shell); }', //                                  3
  ),
};

describe('code the repository marks as not its own, and words inside a regular expression', () => {
  it('reads `.gitattributes` marks the way gitignore patterns match', () => {
    const marks = notCodeMarks(lines('build/** linguist-generated', '*.min.js linguist-vendored=true', '/docs linguist-documentation', 'lib/** -linguist-generated', 'src/** text eol=lf'))!;
    expect(marks('build/cli.cjs')).toBe(true);
    expect(marks('build/nested/x.js')).toBe(true);
    expect(marks('web/app.min.js')).toBe(true);
    expect(marks('docs/guide.js')).toBe(true);
    expect(marks('src/docs/guide.js')).toBe(false);
    expect(marks('lib/x.js')).toBe(false);
    expect(marks('src/cli.ts')).toBe(false);
    expect(notCodeMarks(lines('* text=auto', '*.png binary'))).toBeNull();
  });

  it('neither cites nor follows committed build output, and takes no pattern text for a use of the option', () => {
    const subject = { kind: 'cli_option' as const, name: '--shell' };
    const { located, flow } = locatedAndTraced(JS_RUNNER, subject);
    expect(located.payload.locations.every((l) => l.path.startsWith('src/'))).toBe(true);
    const paths = new Set(flow.payload.steps.map((s) => s.location.path));
    expect(paths.has('build/cli.cjs')).toBe(false);
    expect(paths.has('src/md.ts')).toBe(false);
    expect(paths.has('src/cli.ts')).toBe(true);
  });
});

// A packaging front end whose argument parsing is one parametrized test, a case per option, named by `id=`.
const PY_BUILD: Files = {
  'pyproject.toml': lines('[project]', 'name = "pack"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'pack/__init__.py': '',
  'pack/__main__.py': lines(
    'import argparse', //                                                                1
    '', //                                                                               2
    '', //                                                                               3
    'def build(srcdir, outdir):', //                                                     4
    '    return f"{srcdir} -> {outdir}"', //                                             5
    '', //                                                                               6
    '', //                                                                               7
    'def main(argv):', //                                                                8
    '    parser = argparse.ArgumentParser()', //                                         9
    '    parser.add_argument("srcdir", nargs="?", default=".")', //                      10
    '    parser.add_argument("--outdir", "-o", help="output directory")', //             11
    '    args = parser.parse_args(argv)', //                                             12
    '    outdir = "dist" if args.outdir is None else args.outdir', //                    13
    '    return build(args.srcdir, outdir)', //                                          14
  ),
  'tests/test_main.py': lines(
    'import pytest', //                                                                  1
    '', //                                                                               2
    'from pack.__main__ import main', //                                                 3
    '', //                                                                               4
    '', //                                                                               5
    '@pytest.mark.parametrize(', //                                                      6
    "    ('cli_args', 'expected'),", //                                                  7
    '    [', //                                                                          8
    "        pytest.param([], '. -> dist', id='defaults'),", //                          9
    "        pytest.param(['-o', 'out'], '. -> out', id='outdir'),", //                  10
    "        pytest.param(['src'], 'src -> dist', id='srcdir'),", //                     11
    '    ],', //                                                                         12
    ')', //                                                                              13
    'def test_parse_args(cli_args, expected):', //                                       14
    '    assert main(cli_args) == expected', //                                          15
    '', //                                                                               16
    '', //                                                                               17
    'def test_logging_output(capsys):', //                                               18
    "    main(['src', '--outdir', 'out'])", //                                           19
    '    assert capsys.readouterr().out == ""', //                                       20
  ),
};

describe('a pytest case named by its parameters', () => {
  it('is the focused test when its id is the option, run by its node id and accepted by the validator', async () => {
    const n = need('--outdir');
    const { plan, verdict } = await workerRun(PY_BUILD, n);
    expect(plan?.argv).toEqual(['pytest', 'tests/test_main.py::test_parse_args[outdir]']);
    // Cited from its decorators, where the case is, through the function the file defines.
    expect(plan?.location).toMatchObject({ symbol: 'test_parse_args', start_line: 6, end_line: 15 });
    expect(verdict()).toBe('ok');
  });
});

describe('a key read through configparser', () => {
  it('is the option after the section (`cfg.getboolean("tool:fmt", "strict")`), not the same word as data', () => {
    const { ctx } = repo({
      'fmt/settings.py': lines(
        'import configparser', //                                                        1
        '', //                                                                           2
        '', //                                                                           3
        'def load(path):', //                                                            4
        '    cfg = configparser.ConfigParser()', //                                      5
        '    cfg.read(path)', //                                                         6
        '    return cfg.getboolean("tool:fmt", "strict", fallback=False)', //            7
      ),
      // The word as data elsewhere: only a read of it as a key locates the key.
      'fmt/modes.py': lines('MODES = ["strict", "lenient"]', 'DEFAULT = MODES[1]'),
    });
    const located = locateImplementation(ctx, { kind: 'configuration_key', name: 'strict' });
    if (located.kind !== 'found') throw new Error(JSON.stringify(located));
    expect(`${located.payload.locations[0]!.path}:${located.payload.locations[0]!.start_line}`).toBe('fmt/settings.py:7');
  });
});

// A template fetcher declared with citty, whose help and errors are JavaScript template literals.
const JS_FETCH: Files = {
  'package.json': `${JSON.stringify({ name: 'fetcher', type: 'module', dependencies: { citty: '^0.1.6' } }, null, 2)}\n`,
  'src/cli.ts': lines(
    "import { defineCommand, runMain } from 'citty';", //                               1
    "import { download } from './download.ts';", //                                     2
    '', //                                                                              3
    'const main = defineCommand({', //                                                  4
    '  args: {', //                                                                     5
    "    offline: { type: 'boolean', description: 'Do not attempt to download' },", //  6
    "    dir: { type: 'string', alias: 'd' },", //                                      7
    '  },', //                                                                          8
    '  async run({ args }) {', //                                                       9
    '    await download(args.dir, { offline: args.offline });', //                    10
    '  },', //                                                                          11
    '});', //                                                                           12
    'runMain(main);', //                                                                13
  ),
  'src/download.ts': lines(
    'export async function download(dir: string, options: { offline?: boolean }) {', // 1
    '  const cached = `${dir}/.cache`;', //                                             2
    '  if (options.offline) {', //                                                      3
    '    if (!cached) throw new Error(`Tarball not found (offline: ${options.offline})`);', // 4
    '    return cached;', //                                                            5
    '  }', //                                                                           6
    '  return `${dir}/fresh`;', //                                                      7
    '}', //                                                                             8
  ),
};

describe('a citty `args` table and JavaScript template literals', () => {
  it('declares each option, and a template’s text is prose while its `${…}` is code', () => {
    const subject = { kind: 'cli_option' as const, name: '--offline' };
    const { located, flow } = locatedAndTraced(JS_FETCH, subject);
    expect(`${located.payload.locations[0]!.path}:${located.payload.locations[0]!.start_line}`).toBe('src/cli.ts:6');
    // `(offline: ${options.offline})` reads the value in its substitution, spelled in its text: no unexplained occurrence.
    expect(flow.payload.gaps?.filter((g) => g.includes('not accounted for'))).toEqual([]);
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['consumer src/download.ts:3']));
  });
});

// A load generator on Go's flag package: one-letter flags are written `-z` like any other, and results arrive on a channel.
const GO_LOAD: Files = {
  'go.mod': lines('module example.com/load', '', 'go 1.21'),
  'main.go': lines(
    'package main', //                                                                   1
    '', //                                                                               2
    'import (', //                                                                       3
    '\t"flag"', //                                                                       4
    '\t"fmt"', //                                                                        5
    '\t"time"', //                                                                       6
    ')', //                                                                              7
    '', //                                                                               8
    'var (', //                                                                          9
    '\tz = flag.Duration("z", 0, "duration of application to send requests")', //       10
    ')', //                                                                              11
    '', //                                                                               12
    'func attack(d time.Duration) chan int {', //                                        13
    '\tres := make(chan int, 1)', //                                                     14
    '\tres <- int(d.Seconds())', //                                                      15
    '\treturn res', //                                                                   16
    '}', //                                                                              17
    '', //                                                                               18
    'func main() {', //                                                                  19
    '\tflag.Parse()', //                                                                 20
    '\tdur := *z', //                                                                    21
    '\tif dur > 0 {', //                                                                 22
    '\t\tres := attack(dur)', //                                                         23
    '\t\tselect {', //                                                                   24
    '\t\tcase secs := <-res:', //                                                        25
    '\t\t\tfmt.Println(secs)', //                                                        26
    '\t\t}', //                                                                          27
    '\t}', //                                                                            28
    '}', //                                                                              29
  ),
  // The letter as data elsewhere: only the flag's declaration declares `-z`.
  'zone.go': lines('package main', '', 'func zoneSuffix(utc bool) string {', '\tif utc {', '\t\treturn "z"', '\t}', '\treturn ""', '}'),
};

describe('a one-letter Go flag and a value received from a channel', () => {
  it('locates `-z` by its one-letter name and follows what the channel delivers without an unexplained receive', () => {
    const subject = { kind: 'cli_option' as const, name: '-z' };
    const { located, flow, root } = locatedAndTraced(GO_LOAD, subject);
    expect(`${located.payload.locations[0]!.path}:${located.payload.locations[0]!.start_line}`).toBe('main.go:10');
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['producer main.go:10', 'transformation main.go:23', 'consumer main.go:22']));
    expect(flow.payload.gaps?.filter((g) => g.includes('<-res'))).toEqual([]);
    expect(flowVerdict(root, subject, flow.payload)).toBe('ok');
  });
});

describe('a Go flag bound to a variable named like it', () => {
  it('has that variable as its carrier, so the flow is complete without a renamed field', () => {
    const { root, ctx } = repo({
      'go.mod': lines('module example.com/nap', '', 'go 1.21'),
      'main.go': lines(
        'package main', //                                                               1
        '', //                                                                           2
        'import (', //                                                                   3
        '\t"flag"', //                                                                   4
        '\t"time"', //                                                                   5
        ')', //                                                                          6
        '', //                                                                           7
        'var delay = flag.Duration("delay", 0, "wait before starting")', //              8
        '', //                                                                           9
        'func main() {', //                                                              10
        '\tflag.Parse()', //                                                             11
        '\tif *delay > 0 {', //                                                          12
        '\t\ttime.Sleep(*delay)', //                                                     13
        '\t}', //                                                                        14
        '}', //                                                                          15
      ),
    });
    const subject = { kind: 'cli_option' as const, name: '--delay' };
    const located = locateImplementation(ctx, subject);
    if (located.kind !== 'found') throw new Error(JSON.stringify(located));
    const flow = traceFlow(ctx, subject, located.payload.locations[0]!);
    if (flow.kind !== 'found') throw new Error(flow.reason);
    expect(roles(flow.payload)).toEqual(expect.arrayContaining(['producer main.go:8', 'carrier main.go:8', 'consumer main.go:12']));
    expect(flowVerdict(root, subject, flow.payload)).toBe('ok');
  });
});
