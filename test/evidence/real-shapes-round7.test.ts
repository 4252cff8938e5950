// Seventh round of shapes met in real CLIs. A configuration key written with
// a leading underscore (`_APP_MAXAGE`) was searched only under its case forms
// (`APP_MAXAGE`, `app_maxage`), which a word search never finds inside
// `_APP_MAXAGE`. A getter that returns the environment read
// (`fn maxage() -> u32 { env::var("…").map_or(10_000, …) }`) hands the value
// to its callers, and `map_or`'s first argument is the default when nothing
// is read. A value that adjusts another in place (`self.rank *= factor`)
// acts on it; the adjusted field keeps its own meaning and writers, which the
// trace used to pull in until the step limit rejected the flow. Go's
// `flag.BoolVar(&noSortFlag, "no-sort", false, "")` reached its destination
// only when the destination was spelled like the option. A boolean that
// decides an `if` converts into the setting the branch assigns (`opts = opts
// | optNoSort`), cited when nothing else shows a conversion. A read in the
// condition itself (`if parsed_args.get("system_site_packages"):`) decides
// the branch; argparse's `action="store_true"` defaults to False; a `for`
// over the value uses it. yargs' `.options({ … })` table and meow's `flags`
// table declare options; a help group listing option names returns the parser,
// and a `default` key is a default, not a field to follow. A hand-written
// parser (`if (arg === '--x') … else if`, Go's `case "--x":`) is where the
// value enters: its branch is cited alone, what it assigns is the producer —
// and an `if`'s initializer is not guarded by its condition. An environment
// read handed straight to a call (`int(os.environ.get(…))`,
// `splitWords(os.Getenv(…))`) is followed into the callee or its result.
import { describe, expect, it } from 'vitest';
import type { Location, RuntimeFlow } from '../../src/core/contracts.js';
import { identifierSpellings } from '../../src/core/semantic.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { flowVerdict, type ValueSubject } from './fixtures/flow-verdict.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();

type Subject = ValueSubject;


/** `role path:line` for each step, in flow order. */
const roles = (flow: RuntimeFlow): string[] => flow.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}`);

const at = (path: string, line: number): Location => ({ role: 'primary', path, symbol: null, start_line: line, end_line: line });

function traced(ctx: Parameters<typeof traceFlow>[0], subject: Subject, primary: Location): RuntimeFlow {
  const result = traceFlow(ctx, subject, primary);
  if (result.kind !== 'found') throw new Error(result.reason);
  return result.payload;
}

const RUST_JUMP: Files = {
  'Cargo.toml': lines('[package]', 'name = "jump"', 'version = "0.1.0"', 'edition = "2021"'),
  'src/config.rs': lines(
    'use std::env;', //                                                              1
    '', //                                                                           2
    'pub fn maxage() -> u32 {', //                                                   3
    '    env::var_os("_JUMP_MAXAGE").map_or(10_000, |raw| {', //                     4
    '        raw.to_str().and_then(|s| s.parse().ok()).unwrap_or(10_000)', //        5
    '    })', //                                                                     6
    '}', //                                                                          7
  ),
  'src/db.rs': lines(
    'pub struct Dir {', //                                                           1
    '    pub rank: f64,', //                                                         2
    '}', //                                                                          3
    '', //                                                                           4
    'pub struct Database {', //                                                      5
    '    pub dirs: Vec<Dir>,', //                                                    6
    '}', //                                                                          7
    '', //                                                                           8
    'impl Database {', //                                                            9
    '    pub fn bump(&mut self, idx: usize) {', //                                   10
    '        self.dirs[idx].rank = self.dirs[idx].rank + 1.0;', //                   11
    '    }', //                                                                      12
    '', //                                                                           13
    '    pub fn age(&mut self, max_age: u32) {', //                                  14
    '        let total: f64 = self.dirs.iter().map(|d| d.rank).sum();', //           15
    '        if total > max_age as f64 {', //                                        16
    '            let factor = 0.9 * max_age as f64 / total;', //                     17
    '            for dir in self.dirs.iter_mut() {', //                              18
    '                dir.rank *= factor;', //                                        19
    '            }', //                                                              20
    '        }', //                                                                  21
    '    }', //                                                                      22
    '}', //                                                                          23
  ),
  'src/main.rs': lines(
    'mod config;', //                                                                1
    'mod db;', //                                                                    2
    '', //                                                                           3
    'fn main() {', //                                                                4
    '    let mut db = db::Database { dirs: Vec::new() };', //                        5
    '    let max_age = config::maxage();', //                                        6
    '    db.age(max_age);', //                                                       7
    '}', //                                                                          8
  ),
};

describe('a key with a leading underscore, read in a getter whose callers use it', () => {
  const subject = { kind: 'configuration_key', name: '_JUMP_MAXAGE' } as const;

  it('searches the key as written as well as its case forms', () => {
    expect(identifierSpellings('_JUMP_MAXAGE')).toContain('_JUMP_MAXAGE');
    expect(identifierSpellings('JUMP_MAXAGE')).toEqual(['jump_maxage', 'JumpMaxage', 'jumpMaxage', 'JUMP_MAXAGE', 'jump-maxage']);
    // A dashed option is no identifier: nothing is added.
    expect(identifierSpellings('--dry-run')).toEqual(['dry_run', 'DryRun', 'dryRun', 'DRY_RUN', 'dry-run']);
  });

  it("follows the getter's result to its caller, cites `map_or`'s default, and stops at the field the value adjusts", () => {
    const { ctx } = repo(RUST_JUMP);
    const flow = traced(ctx, subject, at('src/config.rs', 4));
    const steps = roles(flow);
    // The getter is cited from its signature, where the name its callers use stands.
    expect(steps[0]).toBe('producer src/config.rs:3');
    expect(steps).toContain('precedence src/config.rs:4');
    expect(flow.steps.find((s) => s.role === 'precedence')!.description).toContain('`map_or` falls back to `10_000`');
    expect(steps).toContain('transformation src/main.rs:6');
    expect(steps).toContain('carrier src/db.rs:14');
    expect(steps).toContain('consumer src/db.rs:16');
    expect(steps).toContain('consumer src/db.rs:19');
    // `rank`'s own writer is not the key's value.
    expect(steps.filter((s) => s.endsWith('src/db.rs:11'))).toEqual([]);
    expect(flow.gaps).toEqual([]);
  });

  it('is a flow the validator certifies as complete', () => {
    const { root, ctx } = repo(RUST_JUMP);
    expect(flowVerdict(root, subject, traced(ctx, subject, at('src/config.rs', 4)))).toBe('ok');
  });
});

const GO_GRON: Files = {
  'go.mod': lines('module example.com/gron', '', 'go 1.21'),
  'main.go': lines(
    'package main', //                                                         1
    '', //                                                                     2
    'import (', //                                                             3
    '\t"flag"', //                                                             4
    '\t"fmt"', //                                                              5
    ')', //                                                                    6
    '', //                                                                     7
    'const (', //                                                              8
    '\toptMonochrome = 1 << iota', //                                          9
    '\toptNoSort', //                                                          10
    ')', //                                                                    11
    '', //                                                                     12
    'func main() {', //                                                        13
    '\tvar (', //                                                              14
    '\t\tnoSortFlag bool', //                                                  15
    '\t\tdepthFlag  int', //                                                   16
    '\t)', //                                                                  17
    '\tflag.BoolVar(&noSortFlag, "no-sort", false, "")', //                    18
    '\tflag.IntVar(&depthFlag, "depth", 3, "")', //                            19
    '\tflag.Parse()', //                                                       20
    '', //                                                                     21
    '\topts := 0', //                                                          22
    '\tif noSortFlag {', //                                                    23
    '\t\topts = opts | optNoSort', //                                          24
    '\t}', //                                                                  25
    '\tlimit := depthFlag * 2', //                                             26
    '\tif limit > 0 {', //                                                     27
    '\t\topts = opts | optMonochrome', //                                      28
    '\t}', //                                                                  29
    '\tfmt.Println(opts)', //                                                  30
    '}', //                                                                    31
  ),
};

describe('a Go flag bound to a variable named apart from the option', () => {
  it('is followed from the flag declaration into its destination and the branch that converts it', () => {
    const { root, ctx } = repo(GO_GRON);
    const subject = { kind: 'cli_option', name: '--no-sort' } as const;
    const flow = traced(ctx, subject, at('main.go', 18));
    expect(roles(flow)).toEqual([
      'producer main.go:18',
      'carrier main.go:15',
      'transformation main.go:24',
      'precedence main.go:18',
      'consumer main.go:23',
    ]);
    expect(flow.steps[2]!.description).toBe('`noSortFlag` sets `opts = opts | optNoSort` in `main`');
    expect(flowVerdict(root, subject, flow)).toBe('ok');
  });

  it("cites the branch's assignment only when no other step shows a conversion", () => {
    const { ctx } = repo(GO_GRON);
    const flow = traced(ctx, { kind: 'cli_option', name: '--depth' }, at('main.go', 19));
    const steps = roles(flow);
    expect(steps).toContain('transformation main.go:26');
    expect(steps).toContain('consumer main.go:27');
    expect(steps).not.toContain('transformation main.go:28');
  });
});

const PY_PIPX: Files = {
  'pyproject.toml': lines('[project]', 'name = "venvs"'),
  'venvs/__init__.py': '',
  'venvs/main.py': lines(
    'import argparse', //                                                             1
    '', //                                                                            2
    '', //                                                                            3
    'def build_parser():', //                                                         4
    '    parser = argparse.ArgumentParser()', //                                      5
    '    parser.add_argument(', //                                                    6
    '        "--system-site-packages",', //                                           7
    '        action="store_true",', //                                                8
    '    )', //                                                                       9
    '    parser.add_argument("--preinstall", action="append")', //                   10
    '    return parser', //                                                           11
    '', //                                                                            12
    '', //                                                                            13
    'def get_venv_args(parsed_args):', //                                             14
    '    venv_args = []', //                                                          15
    '    if parsed_args.get("system_site_packages"):', //                            16
    '        venv_args += ["--system-site-packages"]', //                             17
    '    return venv_args', //                                                        18
    '', //                                                                            19
    '', //                                                                            20
    'def install(preinstall):', //                                                    21
    '    for package in preinstall or []:', //                                        22
    '        print("installing", package)', //                                        23
    '', //                                                                            24
    '', //                                                                            25
    'def main():', //                                                                 26
    '    args = build_parser().parse_args()', //                                      27
    '    print(get_venv_args(vars(args)))', //                                        28
    '    install(args.preinstall)', //                                                29
  ),
};

describe('a switch read in the condition it decides, and a list iterated over', () => {
  it('records the read as deciding the branch, and `store_true` as defaulting to False', () => {
    const { ctx } = repo(PY_PIPX);
    const flow = traced(ctx, { kind: 'cli_option', name: '--system-site-packages' }, at('venvs/main.py', 7));
    const steps = roles(flow);
    expect(steps).toContain('producer venvs/main.py:16');
    expect(steps).toContain('consumer venvs/main.py:16');
    expect(flow.steps.filter((s) => s.role === 'precedence').map((s) => s.description)).toEqual(['flag `--system-site-packages` defaults to `False` (in `build_parser`)']);
    // The option's own name passed on to another program is not an adjustment made with the value.
    expect(flow.steps.some((s) => s.description.includes('adjusts'))).toBe(false);
  });

  it('takes a `for` over the value as a use of it, not an unaccounted line', () => {
    const { ctx } = repo(PY_PIPX);
    const flow = traced(ctx, { kind: 'cli_option', name: '--preinstall' }, at('venvs/main.py', 10));
    expect(roles(flow)).toContain('consumer venvs/main.py:22');
    expect(flow.gaps.filter((g) => g.includes('is not accounted for'))).toEqual([]);
  });
});

const TS_RUNNER: Files = {
  'package.json': lines('{ "name": "runner", "type": "module", "dependencies": { "yargs": "17.0.0" } }'),
  'bin/cli.ts': lines(
    "import yargs from 'yargs'", //                                                    1
    "import { run } from '../src/run'", //                                             2
    '', //                                                                             3
    'const program = yargs(process.argv.slice(2))', //                                 4
    '  .options({', //                                                                 5
    "    'kill-timeout': {", //                                                        6
    "      describe: 'ms to wait before forcing the others to stop',", //             7
    "      type: 'number',", //                                                        8
    "      alias: 'k',", //                                                            9
    '    },', //                                                                       10
    "    timings: { type: 'boolean', default: false },", //                            11
    "    names: { type: 'string', default: '' },", //                                  12
    '  })', //                                                                         13
    "  .group(['kill-timeout', 'timings'], 'Killing')", //                            14
    "  .epilogue('see the docs')", //                                                  15
    '', //                                                                             16
    'const args = program.parseSync()', //                                             17
    'run({ killTimeout: args.killTimeout, timings: args.timings, names: args.names })', // 18
  ),
  'src/run.ts': lines(
    'export interface RunOptions {', //                                                1
    '  killTimeout?: number', //                                                       2
    '  timings: boolean', //                                                           3
    '  names: string', //                                                              4
    '}', //                                                                            5
    '', //                                                                             6
    'export function run(options: RunOptions): void {', //                             7
    '  const timeoutMs = options.killTimeout', //                                      8
    '  if (timeoutMs) {', //                                                           9
    '    setTimeout(() => process.exit(1), timeoutMs)', //                             10
    '  }', //                                                                          11
    '  if (options.timings) {', //                                                     12
    "    console.log('timings on')", //                                                13
    '  }', //                                                                          14
    "  console.log(options.names.split(','))", //                                      15
    '}', //                                                                            16
  ),
};

describe("yargs' table of options", () => {
  it('declares each option where its entry stands, also when a help group lists it again', () => {
    const { ctx } = repo(TS_RUNNER);
    const kill = locateImplementation(ctx, { kind: 'cli_option', name: '--kill-timeout' });
    if (kill.kind !== 'found') throw new Error(`${kill.kind}: ${JSON.stringify(kill)}`);
    expect(kill.payload.locations.find((l) => l.role === 'primary')).toMatchObject({ path: 'bin/cli.ts', start_line: 6, end_line: 10 });
    const short = locateImplementation(ctx, { kind: 'cli_option', name: '-k' });
    expect(short.kind === 'found' && short.payload.locations.find((l) => l.role === 'primary')).toMatchObject({ path: 'bin/cli.ts', start_line: 6 });
    // An unquoted key declares too.
    const timings = locateImplementation(ctx, { kind: 'cli_option', name: '--timings' });
    expect(timings.kind === 'found' && timings.payload.locations.find((l) => l.role === 'primary')).toMatchObject({ path: 'bin/cli.ts', start_line: 11 });
  });

  it('does not follow the parser the help group returns, nor every `default` key of the table', () => {
    const { root, ctx } = repo(TS_RUNNER);
    const subject = { kind: 'cli_option', name: '--kill-timeout' } as const;
    const kill = traced(ctx, subject, at('bin/cli.ts', 6));
    const steps = roles(kill);
    expect(steps).toContain('transformation src/run.ts:8');
    expect(steps).toContain('consumer src/run.ts:9');
    // `program` and `args` are the parser: none of the other options' reads enter the flow.
    expect(kill.steps.filter((s) => /program|args\.(timings|names)/.test(s.description))).toEqual([]);
    expect(flowVerdict(root, subject, kill)).toContain('missing roles: precedence');

    const timings = traced(ctx, { kind: 'cli_option', name: '--timings' }, at('bin/cli.ts', 11));
    // The `default` of the option's own entry (the short statement is cited whole).
    const covers = (line: number) => (s: RuntimeFlow['steps'][number]) => s.location.start_line <= line && line <= s.location.end_line;
    expect(timings.steps.filter((s) => s.role === 'precedence').map((s) => `${covers(11)(s)} ${s.description}`)).toEqual(['true `timings` defaults to `false`']);
    // `names`' own default (line 12) is another option's: no step is about it.
    expect(timings.steps.filter((s) => s.description.includes("''"))).toEqual([]);
    expect(roles(timings)).toContain('consumer src/run.ts:12');
  });

  it("takes a `default` key whose value spells the option as the declared default, not a field to follow", () => {
    const cli = TS_RUNNER['bin/cli.ts']!
      .replace("import { run } from '../src/run'", "import { run } from '../src/run'\nimport * as defaults from '../src/defaults'")
      .replace("timings: { type: 'boolean', default: false },", "timings: { type: 'boolean', default: defaults.timings },")
      .replace("names: { type: 'string', default: '' },", "names: { type: 'string', default: defaults.names },");
    const { ctx } = repo({ ...TS_RUNNER, 'bin/cli.ts': cli, 'src/defaults.ts': lines('export const timings = false', "export const names = ''") });
    const timings = traced(ctx, { kind: 'cli_option', name: '--timings' }, at('bin/cli.ts', 12));
    expect(timings.steps.filter((s) => s.role === 'precedence').map((s) => s.description)).toContain('`defaults.timings` is the declared default');
    expect(timings.steps.filter((s) => s.description.includes('into `default`') || s.description.includes('defaults.names'))).toEqual([]);
  });
});

const JS_WATCHER: Files = {
  'package.json': lines('{ "name": "watcher" }'),
  'lib/parse.js': lines(
    'function option(options, arg, eatNext) {', //                     1
    "  if (arg === '--delay' || arg === '-d') {", //                   2
    '    options.delay = Number(eatNext());', //                      3
    "  } else if (arg === '--exitcrash') {", //                        4
    '    options.exitCrash = true;', //                               5
    "  } else if (arg === '--quiet') {", //                            6
    '    options.quiet = true;', //                                   7
    '  } else {', //                                                  8
    '    return false;', //                                           9
    '  }', //                                                         10
    '  return true;', //                                              11
    '}', //                                                           12
    '', //                                                            13
    'module.exports = { option };', //                                14
  ),
  'lib/run.js': lines(
    'function finish(options, code) {', //                             1
    '  if (options.exitCrash && code !== 0) {', //                     2
    '    process.exit(code);', //                                     3
    '  }', //                                                         4
    '  setTimeout(() => {}, options.delay || 0);', //                 5
    '}', //                                                           6
    '', //                                                            7
    'module.exports = { finish };', //                                8
  ),
  // A chain that picks one value from several sources is cited whole.
  'lib/dir.js': lines(
    'function cacheDir(env, config) {', //                             1
    '  let dir;', //                                                  2
    '  if (env.WATCHER_CACHE_DIR) {', //                              3
    '    dir = env.WATCHER_CACHE_DIR;', //                            4
    '  } else if (config.cacheDir) {', //                             5
    '    dir = config.cacheDir;', //                                  6
    '  }', //                                                         7
    '  return dir;', //                                               8
    '}', //                                                           9
    '', //                                                            10
    'module.exports = { cacheDir };', //                              11
  ),
};

describe("a hand-written parser's else-if chain", () => {
  it("cites one option's branch, not the rest of the chain, as its declaration", () => {
    const { ctx } = repo(JS_WATCHER);
    const delay = locateImplementation(ctx, { kind: 'cli_option', name: '--delay' });
    expect(delay.kind === 'found' && delay.payload.locations.find((l) => l.path === 'lib/parse.js')).toMatchObject({ start_line: 2, end_line: 4 });
  });

  it('takes what the branch assigns as where the value enters, and follows a target spelled apart from the option', () => {
    const { ctx } = repo(JS_WATCHER);
    const crash = traced(ctx, { kind: 'cli_option', name: '--exitcrash' }, at('lib/parse.js', 4));
    const steps = roles(crash);
    expect(steps).toContain('producer lib/parse.js:5');
    expect(steps).toContain('consumer lib/run.js:2');
    // The branch is the option's parse, not a decision the value makes; nor is the assignment a precedence.
    expect(steps.filter((s) => s.endsWith('lib/parse.js:4') || s.startsWith('precedence lib/parse.js'))).toEqual([]);
    const delay = traced(ctx, { kind: 'cli_option', name: '--delay' }, at('lib/parse.js', 2));
    expect(delay.steps.find((s) => s.location.start_line === 3)?.role).toBe('producer');
  });

  it("keeps a lookup of the parsed value by the option's name (`args['--verbose']`) a decision, not a parse", () => {
    const files = {
      ...JS_WATCHER,
      'lib/log.js': lines(
        "const arg = require('arg');", //                                 1
        "const args = arg({ '--verbose': Boolean });", //                 2
        'let level = 1;', //                                             3
        "if (args['--verbose']) {", //                                    4
        '  level = 2;', //                                               5
        '}', //                                                          6
        'module.exports = { level };', //                                7
      ),
    };
    const { ctx } = repo(files);
    const verbose = traced(ctx, { kind: 'cli_option', name: '--verbose' }, at('lib/log.js', 2));
    expect(roles(verbose)).toContain('consumer lib/log.js:4');
    expect(verbose.steps.find((s) => s.location.start_line === 5)).toMatchObject({ role: 'transformation', description: "`'--verbose'` sets `level = 2`" });
    expect(verbose.steps.filter((s) => s.description.includes('given'))).toEqual([]);
  });

  it('cites a chain choosing one value between sources whole', () => {
    const { ctx } = repo(JS_WATCHER);
    const dir = traced(ctx, { kind: 'configuration_key', name: 'WATCHER_CACHE_DIR' }, at('lib/dir.js', 3));
    expect(dir.steps.find((s) => s.role === 'consumer' && s.location.path === 'lib/dir.js')?.location).toMatchObject({ start_line: 3, end_line: 7 });
  });
});

const JS_PUBLISH: Files = {
  'package.json': lines('{ "name": "publish", "type": "module" }'),
  'source/cli.js': lines(
    "import meow from 'meow';", //                                       1
    '', //                                                               2
    'const cli = meow(`', //                                             3
    '  Options', //                                                      4
    '    --no-release-draft    Skip the release draft', //               5
    '    --release-draft-only  Only open the release draft', //          6
    '`, {', //                                                           7
    '  importMeta: import.meta,', //                                     8
    '  flags: {', //                                                     9
    '    releaseDraft: {', //                                            10
    "      type: 'boolean',", //                                         11
    '    },', //                                                         12
    '    releaseDraftOnly: {', //                                        13
    "      type: 'boolean',", //                                         14
    "      shortFlag: 'o',", //                                          15
    '    },', //                                                         16
    '  },', //                                                           17
    '});', //                                                            18
    '', //                                                               19
    'console.log(cli.flags.releaseDraft, cli.flags.releaseDraftOnly);', // 20
  ),
};

describe("meow's flags table", () => {
  it('declares a camelCase key as its dashed flag, found even where no text spells the flag itself', () => {
    const { ctx } = repo(JS_PUBLISH);
    // The help text spells only `--no-release-draft` and `--release-draft-only`.
    const draft = locateImplementation(ctx, { kind: 'cli_option', name: '--release-draft' });
    expect(draft.kind === 'found' && draft.payload.locations.find((l) => l.role === 'primary')).toMatchObject({ path: 'source/cli.js', start_line: 10, end_line: 12 });
    const only = locateImplementation(ctx, { kind: 'cli_option', name: '--release-draft-only' });
    expect(only.kind === 'found' && only.payload.locations.find((l) => l.role === 'primary')).toMatchObject({ start_line: 13, end_line: 16 });
    const short = locateImplementation(ctx, { kind: 'cli_option', name: '-o' });
    expect(short.kind === 'found' && short.payload.locations.find((l) => l.role === 'primary')).toMatchObject({ start_line: 13 });
  });
});

const GO_SWITCH: Files = {
  'go.mod': lines('module example.com/pick', '', 'go 1.21'),
  'main.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'import (', //                                                       3
    '\t"fmt"', //                                                        4
    '\t"os"', //                                                         5
    ')', //                                                              6
    '', //                                                               7
    'type Options struct {', //                                          8
    '\tTac bool', //                                                     9
    '}', //                                                              10
    '', //                                                               11
    'func parse(args []string) Options {', //                            12
    '\topts := Options{}', //                                            13
    '\tfor _, arg := range args {', //                                   14
    '\t\tswitch arg {', //                                               15
    '\t\tcase "--tac":', //                                              16
    '\t\t\topts.Tac = true', //                                          17
    '\t\tcase "--no-tac":', //                                           18
    '\t\t\topts.Tac = false', //                                         19
    '\t\t}', //                                                          20
    '\t}', //                                                            21
    '\treturn opts', //                                                  22
    '}', //                                                              23
    '', //                                                               24
    'func main() {', //                                                  25
    '\topts := parse(os.Args[1:])', //                                   26
    '\tif opts.Tac {', //                                                27
    '\t\tfmt.Println("reversed")', //                                    28
    '\t}', //                                                            29
    '}', //                                                              30
  ),
};

describe("a hand-written parser's switch", () => {
  it("takes what an option's case assigns as where the value enters, not the case as a decision", () => {
    const { ctx } = repo(GO_SWITCH);
    const tac = traced(ctx, { kind: 'cli_option', name: '--tac' }, at('main.go', 16));
    expect(tac.steps.find((s) => s.location.start_line === 17)).toMatchObject({ role: 'producer', description: '`--tac` given: `opts.Tac = true` in `parse`' });
    expect(roles(tac)).not.toContain('consumer main.go:16');
    expect(roles(tac)).toContain('consumer main.go:27');
  });

  it("does not take an `if`'s initializer for what its condition guards (Go)", () => {
    const { ctx } = repo({
      'go.mod': lines('module example.com/depth', '', 'go 1.21'),
      'main.go': lines(
        'package main', //                                                        1
        '', //                                                                    2
        'import "strconv"', //                                                    3
        '', //                                                                    4
        'type Options struct{ Depth int }', //                                    5
        '', //                                                                    6
        'func parse(args []string) (Options, error) {', //                        7
        '	opts := Options{Depth: 3}', //                                         8
        '	var err error', //                                                     9
        '	for i, arg := range args {', //                                        10
        '		switch arg {', //                                                    11
        '		case "--depth":', //                                                 12
        '			if opts.Depth, err = strconv.Atoi(args[i+1]); err != nil {', //    13
        '				return opts, err', //                                            14
        '			}', //                                                             15
        '		}', //                                                               16
        '	}', //                                                                 17
        '	return opts, nil', //                                                  18
        '}', //                                                                   19
      ),
    });
    const depth = traced(ctx, { kind: 'cli_option', name: '--depth' }, at('main.go', 12));
    const step = depth.steps.find((s) => s.location.start_line === 13);
    expect(step?.role).toBe('producer');
    expect(step?.description).toContain('when the option is given');
  });
});

describe('an environment read handed straight to a call', () => {
  it("follows the read into a repository function's parameter and on into its callers' result (Go)", () => {
    const { ctx } = repo({
      'go.mod': lines('module example.com/words', '', 'go 1.21'),
      'main.go': lines(
        'package main', //                                              1
        '', //                                                          2
        'import (', //                                                  3
        '\t"fmt"', //                                                   4
        '\t"os"', //                                                    5
        '\t"strings"', //                                               6
        ')', //                                                         7
        '', //                                                          8
        'func splitWords(str string) ([]string, error) {', //           9
        '\treturn strings.Fields(str), nil', //                         10
        '}', //                                                         11
        '', //                                                          12
        'func main() {', //                                             13
        '\twords, err := splitWords(os.Getenv("PICK_DEFAULT_OPTS"))', // 14
        '\tif err == nil && len(words) > 0 {', //                       15
        '\t\tfmt.Println(words)', //                                    16
        '\t}', //                                                       17
        '}', //                                                         18
      ),
    });
    const flow = traced(ctx, { kind: 'configuration_key', name: 'PICK_DEFAULT_OPTS' }, at('main.go', 14));
    const steps = roles(flow);
    expect(steps).toContain('producer main.go:14');
    expect(steps).toContain('carrier main.go:9');
    expect(steps).toContain('consumer main.go:15');
  });

  it('takes the conversion as the transformation and follows the converted value (Python)', () => {
    const { ctx } = repo({
      'pyproject.toml': lines('[project]', 'name = "pick"'),
      'pick/__init__.py': '',
      'pick/limits.py': lines(
        'import os', //                                                 1
        '', //                                                          2
        '', //                                                          3
        'def first(items):', //                                         4
        '    limit = int(os.environ.get("PICK_LIMIT", "3"))', //        5
        '    if len(items) > limit:', //                                6
        '        return items[:limit]', //                              7
        '    return items', //                                          8
      ),
    });
    const flow = traced(ctx, { kind: 'configuration_key', name: 'PICK_LIMIT' }, at('pick/limits.py', 5));
    const steps = roles(flow);
    expect(steps).toContain('producer pick/limits.py:5');
    expect(steps).toContain('consumer pick/limits.py:6');
  });
});
