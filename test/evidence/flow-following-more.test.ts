// Flow following through what functions return and what parsers declare, and
// how the behaviour site and its supporting locations are cited: an accessor's
// result kept by its callers, a result handed on to another call, a ternary that
// sizes a loop, the small function choosing between a key's sources, an
// environment variable declared as an option's alternate source, and nearby
// steps sharing one citation. Each fixture is a small invented tool; the line
// numbers the tests assert are marked beside the fixture lines.
import { describe, expect, it } from 'vitest';
import type { ImplementationLocation, Location, RuntimeFlow } from '../../src/core/contracts.js';
import type { WorkerOutput } from '../../src/core/worker.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { inFile, needFor, said, type ValueKind } from './fixtures/worker-run.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();
const worker = createStaticWorker();

interface Traced {
  readonly flow: RuntimeFlow;
  readonly locations: Location[];
  /** What the validator says of the implementation location: 'ok' or its reasons. */
  readonly cited: string;
}

/** The worker on the trace route: its runtime flow and the implementation location it proposes beside it. */
async function traced(files: Files, kind: ValueKind, name: string): Promise<Traced> {
  const { root } = repo(files);
  const n = needFor(kind, name, 'trace.state-flow');
  const out: WorkerOutput = await worker.run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
  const flow = out.proposals.find((x) => x.predicate === 'runtime_flow');
  const impl = out.proposals.find((x) => x.predicate === 'implementation_location');
  if (!flow || !impl) throw new Error(`expected a runtime flow and an implementation location: ${JSON.stringify(out.outcome)}`);
  const v = validateProposal(new SnapshotReader(root), n, n.required, impl);
  return { flow: flow.payload as RuntimeFlow, locations: (impl.payload as ImplementationLocation).locations, cited: v.ok ? 'ok' : v.reasons.join('; ') };
}

/** role path:start-end — where a location is. */
const where = (l: Location) => `${l.role} ${l.path}:${l.start_line}-${l.end_line}`;

// --shelf-label is returned by an accessor whose `if`/`else` tails yield it; `main`
// keeps the result (line 10, inside the accessor's own line range in another file)
// and hands it to `banner`, which decides on it.
const RUST_SHELFY: Files = {
  'Cargo.toml': lines('[package]', 'name = "shelfy"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }'),
  'src/cli.rs': lines(
    'use clap::Parser;', //                                              1
    '', //                                                               2
    '#[derive(Parser)]', //                                              3
    'pub struct Cli {', //                                               4
    '    #[arg(long)]', //                                               5
    '    pub shelf_label: Option<String>,', //                           6
    '}', //                                                              7
  ),
  'src/store.rs': lines(
    'use crate::cli::Cli;', //                                           1
    '', //                                                               2
    'pub struct Store {', //                                             3
    '    pub fallback: String,', //                                      4
    '}', //                                                              5
    '', //                                                               6
    'impl Store {', //                                                   7
    '    pub fn get_shelf_label(&self, opts: &Cli) -> Option<String> {', // 8
    '        if opts.shelf_label.is_none() {', //                        9
    '            Some(self.fallback.clone())', //                        10
    '        } else {', //                                               11
    '            opts.shelf_label.clone()', //                           12
    '        }', //                                                      13
    '    }', //                                                          14
    '}', //                                                              15
  ),
  'src/main.rs': lines(
    'mod cli;', //                                                       1
    'mod render;', //                                                    2
    'mod store;', //                                                     3
    '', //                                                               4
    'use clap::Parser;', //                                              5
    '', //                                                               6
    'fn main() {', //                                                    7
    '    let opts = cli::Cli::parse();', //                              8
    '    let cfg = store::Store { fallback: String::from("misc") };', // 9
    '    let kept = cfg.get_shelf_label(&opts);', //                     10
    '    render::banner(kept);', //                                      11
    '    let title = match cfg.get_shelf_label(&opts) {', //             12
    '        Some(t) => t,', //                                          13
    '        None => String::new(),', //                                 14
    '    };', //                                                         15
    '    println!("{title}");', //                                       16
    '}', //                                                              17
  ),
  'src/render.rs': lines(
    'pub fn banner(heading: Option<String>) {', //                       1
    '    if let Some(h) = heading {', //                                 2
    '        println!("== {h} ==");', //                                 3
    '    } else {', //                                                   4
    '        println!("(no shelf)");', //                                5
    '    }', //                                                          6
    '}', //                                                              7
  ),
};

// --zone is spread by `flagsFor` into the argument list of `invoke`; what `invoke` returns is the tool's output.
const JS_ZONER: Files = {
  'package.json': '{"name":"zoner","type":"module"}\n',
  'lib/cli.js': lines(
    "import { parseArgs } from 'node:util'", //                          1
    "import { flagsFor } from './flags.js'", //                          2
    "import { invoke } from './invoke.js'", //                           3
    '', //                                                               4
    'export function main(argv) {', //                                  5
    "  const { values: opts } = parseArgs({ args: argv, options: { zone: { type: 'string' } } })", // 6
    "  const out = invoke([...flagsFor(opts.zone), '-z'])", //           7
    '  if (out.status !== 0) throw new Error(out.stderr)', //            8
    '  return out.stdout', //                                            9
    '}', //                                                              10
  ),
  'lib/flags.js': lines(
    'export function flagsFor(zone) {', //                               1
    '  if (!zone) return []', //                                         2
    "  return ['--zone', zone]", //                                      3
    '}', //                                                              4
  ),
  'lib/invoke.js': lines(
    "import { spawnSync } from 'node:child_process'", //                 1
    '', //                                                               2
    'export function invoke(list) {', //                                 3
    "  return spawnSync('zonectl', list, { encoding: 'utf8' })", //      4
    '}', //                                                              5
  ),
};

// --multi decides how many passes a loop makes.
const JS_SQUEEZE: Files = {
  'package.json': '{"name":"squeezer","type":"module"}\n',
  'lib/cli.js': lines(
    "import { parseArgs } from 'node:util'", //                          1
    "import { squeeze } from './squeeze.js'", //                         2
    '', //                                                               3
    'export function main(argv, text) {', //                            4
    "  const { values: opts } = parseArgs({ args: argv, options: { multi: { type: 'boolean' } } })", // 5
    '  return squeeze(text, opts)', //                                   6
    '}', //                                                              7
  ),
  'lib/squeeze.js': lines(
    'export function squeeze(text, opts) {', //                          1
    '  let out = text', //                                               2
    '  const passes = opts.multi ? 10 : 1', //                           3
    '  for (let i = 0; i < passes; i++) {', //                           4
    "    out = out.replace(/\\s\\s+/g, ' ')", //                        5
    '  }', //                                                            6
    '  return out', //                                                   7
    '}', //                                                              8
  ),
};

// SHELVER_CFG is one of three sources `get_settings` chooses between; `main` reads what it returns.
const PY_SHELVER: Files = {
  'pyproject.toml': lines('[project]', 'name = "shelver"'),
  'shelver/__init__.py': '',
  'shelver/settings.py': lines(
    'import os', //                                                      1
    'from os.path import exists', //                                     2
    '', //                                                               3
    "DEFAULT_PATH = '/etc/shelver.ini'", //                              4
    '', //                                                               5
    '', //                                                               6
    'def get_settings(explicit=None):', //                               7
    '    if explicit:', //                                               8
    '        return read_pairs(explicit)', //                            9
    '    try:', //                                                       10
    "        path = os.environ['SHELVER_CFG']", //                       11
    '    except KeyError:', //                                           12
    '        if exists(DEFAULT_PATH):', //                               13
    '            return read_pairs(DEFAULT_PATH)', //                    14
    '        return {}', //                                              15
    '    return read_pairs(path)', //                                    16
    '', //                                                               17
    '', //                                                               18
    '# One `key=value` pair a line.', //                                 19
    'def read_pairs(path):', //                                          20
    '    out = {}', //                                                   21
    '    with open(path) as fh:', //                                     22
    '        for line in fh:', //                                        23
    "            k, _, v = line.partition('=')", //                      24
    '            out[k.strip()] = v.strip()', //                         25
    '    return out', //                                                 26
  ),
  'shelver/app.py': lines(
    'from shelver.settings import get_settings', //                      1
    '', //                                                               2
    '', //                                                               3
    'def main():', //                                                    4
    '    cfg = get_settings()', //                                       5
    "    if cfg['verbose'] == 'yes':", //                                6
    "        print('loud')", //                                          7
    "    return cfg['root']", //                                         8
  ),
};

// TOKLY_TOKEN_FILE is declared as the alternate source of --token-file; --region has an `env=` of its own.
const PY_TOKLY: Files = {
  'pyproject.toml': lines('[project]', 'name = "tokly"'),
  'tokly/__init__.py': '',
  'tokly/cli.py': lines(
    'import argparse', //                                                1
    'import os', //                                                      2
    '', //                                                               3
    'from tokly.auth import read_token', //                              4
    '', //                                                               5
    '', //                                                               6
    'class FromEnv(argparse.Action):', //                                7
    '    def __init__(self, env, default=None, **kw):', //               8
    '        super().__init__(default=os.environ.get(env, default), **kw)', // 9
    '', //                                                               10
    '    def __call__(self, parser, namespace, values, option_string=None):', // 11
    '        setattr(namespace, self.dest, values)', //                  12
    '', //                                                               13
    '', //                                                               14
    'def build():', //                                                   15
    '    parser = argparse.ArgumentParser()', //                         16
    '    parser.add_argument("--token-file", env="TOKLY_TOKEN_FILE", action=FromEnv)', // 17
    '    parser.add_argument("--region", env="TOKLY_REGION", action=FromEnv)', // 18
    '    return parser', //                                              19
    '', //                                                               20
    '', //                                                               21
    'def main(argv=None):', //                                           22
    '    args = build().parse_args(argv)', //                            23
    '    return read_token(args)', //                                    24
  ),
  'tokly/auth.py': lines(
    'def read_token(args):', //                                          1
    '    if args.token_file:', //                                        2
    '        with open(args.token_file) as fh:', //                      3
    '            return fh.read().strip()', //                           4
    '    return None', //                                                5
  ),
};

// --pack-level is checked (7-8), handed to `squash` (9) and printed (10) in `main`; `squash` decides on it.
const PY_PACKER: Files = {
  'pyproject.toml': lines('[project]', 'name = "packer"'),
  'packer/__init__.py': '',
  'packer/cli.py': lines(
    'import argparse', //                                                1
    '', //                                                               2
    '', //                                                               3
    'def parse(argv=None):', //                                          4
    '    parser = argparse.ArgumentParser()', //                         5
    '    parser.add_argument("--pack-level", type=int, default=3)', //   6
    '    return parser.parse_args(argv)', //                             7
  ),
  'packer/main.py': lines(
    'from packer.cli import parse', //                                   1
    'from packer.work import squash', //                                 2
    '', //                                                               3
    '', //                                                               4
    'def main(argv=None):', //                                           5
    '    args = parse(argv)', //                                         6
    '    if args.pack_level > 9:', //                                    7
    '        raise SystemExit("too strong")', //                         8
    '    out = squash(b"", args.pack_level)', //                         9
    '    print(args.pack_level)', //                                     10
    '    return out', //                                                 11
  ),
  'packer/work.py': lines(
    'def squash(data, pack_level):', //                                  1
    '    if pack_level > 5:', //                                         2
    '        return data[::-1]', //                                      3
    '    return data', //                                                4
  ),
};


describe('function results', () => {
  it('follows an accessor whose if/else tails yield the value into its callers’ bindings, and on into a callee’s parameter and branch in another file (Rust)', async () => {
    const { flow } = await traced(RUST_SHELFY, 'cli_option', '--shelf-label');
    expect(flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'transformation src/main.rs:10-10 result of `get_shelf_label` kept in `kept`',
        'transformation src/main.rs:12-15 result of `get_shelf_label` kept in `title`',
        'transformation src/main.rs:11-11 `kept` passed to `render::banner` (in `main`)',
        'carrier src/render.rs:1-1 parameter `heading` of `banner` carries the value',
        'consumer src/render.rs:2-6 `heading` decides the `if` in `banner`',
      ]),
    );
  });

  it('does not follow a result handed to another call as that call’s result (JavaScript `run([...build(x), \'-z\'])`)', async () => {
    const { flow } = await traced(JS_ZONER, 'cli_option', '--zone');
    // `flagsFor` returns the value, but into `invoke`'s argument list: `out` is what `invoke` returns.
    expect(flow.steps.map(said)).toContain('transformation lib/flags.js:3-3 `\'--zone\'` returned from `flagsFor`');
    expect(inFile(flow, 'lib/cli.js')).toEqual(['producer lib/cli.js:6-6', 'transformation lib/cli.js:7-7']);
    expect(flow.steps.filter((s) => /`out|flagsFor` kept/.test(s.description)).map(said)).toEqual([]);
  });

  it('does not follow a value into a namesake of a built-in method called on a typed receiver (TypeScript `argv: string[]` … `argv.includes(…)`)', async () => {
    const files: Files = {
      'src/settings.ts': lines(
        'export function readSettings(argv: string[]): { dryRun: boolean } {', //   1
        "  const dryRun = argv.includes('--dry-run');", //                            2
        '  return { dryRun };', //                                                     3
        '}', //                                                                        4
      ),
      'src/matcher.ts': lines(
        'export function includes(flag: string): boolean {', //                       1
        "  const hit = flag === 'x';", //                                              2
        '  return hit;', //                                                            3
        '}', //                                                                        4
      ),
      'src/main.ts': lines(
        "import { readSettings } from './settings';", //                              1
        'const settings = readSettings(process.argv);', //                             2
        "if (settings.dryRun) console.log('dry run');", //                            3
      ),
      'package.json': '{ "name": "typed-argv" }\n',
    };
    const { flow } = await traced(files, 'cli_option', '--dry-run');
    expect(inFile(flow, 'src/matcher.ts')).toEqual([]);
    expect(inFile(flow, 'src/settings.ts').length).toBeGreaterThan(0);
  });
});

describe('behaviour sites', () => {
  it('takes a JS for-loop condition for a consumer and cites the ternary and the loop it sizes as one primary range (JavaScript)', async () => {
    const { flow, locations, cited } = await traced(JS_SQUEEZE, 'cli_option', '--multi');
    expect(flow.steps.filter((s) => s.role === 'consumer').map(said)).toEqual([
      'consumer lib/squeeze.js:3-3 `opts.multi` decides the `conditional` in `squeeze`',
      'consumer lib/squeeze.js:4-6 `passes` decides the `for` in `squeeze`',
    ]);
    expect(locations[0]).toEqual({ role: 'primary', path: 'lib/squeeze.js', symbol: null, start_line: 3, end_line: 6 });
    expect(cited).toBe('ok');
  });
});

describe('sources of a configuration key', () => {
  it('cites the small function choosing between a key’s sources whole and follows its callers’ results to their subscript reads (Python)', async () => {
    const { flow, locations, cited } = await traced(PY_SHELVER, 'configuration_key', 'SHELVER_CFG');
    expect(flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        "producer shelver/settings.py:11-11 `path` read from `os.environ['SHELVER_CFG']` (in `get_settings`)",
        'transformation shelver/app.py:5-5 result of `get_settings` kept in `cfg`',
        'consumer shelver/app.py:6-7 `cfg` decides the `if` in `main`',
        'transformation shelver/app.py:8-8 `cfg` returned from `main`',
      ]),
    );
    // `if explicit:`, `except KeyError:`, `if exists(...)`: three branches in ten lines, cited as they stand.
    expect(locations).toContainEqual({ role: 'supporting', path: 'shelver/settings.py', symbol: 'get_settings', start_line: 7, end_line: 16 });
    expect(cited).toBe('ok');

    // Over 80 lines, the function is not cited whole.
    const padding = Array.from({ length: 80 }, (_, i) => `    # note ${i + 1}`);
    const settings = PY_SHELVER['shelver/settings.py']!.split('\n');
    const long = { ...PY_SHELVER, 'shelver/settings.py': lines(...settings.slice(0, 7), ...padding, ...settings.slice(7, -1)) };
    const { locations: fewer } = await traced(long, 'configuration_key', 'SHELVER_CFG');
    expect(fewer.filter((l) => l.symbol === 'get_settings')).toEqual([]);
  });

  it('takes an environment variable named in `add_argument(..., env=...)` for a producer and follows the option’s carrier, not the `env` keyword (Python)', async () => {
    const { flow } = await traced(PY_TOKLY, 'configuration_key', 'TOKLY_TOKEN_FILE');
    // Line 17 names the key; line 18's `env="TOKLY_REGION"` is another option's source.
    expect(flow.steps.filter((s) => s.location.path === 'tokly/cli.py').map(said)).toEqual([
      'producer tokly/cli.py:17-17 `TOKLY_TOKEN_FILE` named by `parser.add_argument` as `env` (in `build`)',
      // The custom action reads the variable as the option's default: where the two sources meet.
      'precedence tokly/cli.py:7-12 custom argparse action `FromEnv` sets the default and what is stored in the namespace',
    ]);
    expect(flow.steps.filter((s) => s.location.path === 'tokly/auth.py').map(said)).toEqual(
      expect.arrayContaining(['consumer tokly/auth.py:2-4 `args.token_file` decides the `if` in `read_token`']),
    );
    expect(flow.gaps.filter((g) => /consumer/.test(g))).toEqual([]);
  });
});

describe('supporting locations', () => {
  it('merges nearby steps of one file into one citation on either side, and cites the calls into the behaviour’s function right after the declaration (Python)', async () => {
    const { locations, cited } = await traced(PY_PACKER, 'cli_option', '--pack-level');
    expect(where(locations[0]!)).toBe('primary packer/work.py:2-3');
    // The call into `squash` (9) comes first; the print below it (10) and the check above it (7-8) join it.
    expect(locations.slice(1).map(where)).toEqual(['supporting packer/cli.py:6-6', 'supporting packer/main.py:7-10', 'supporting packer/work.py:1-1']);
    expect(cited).toBe('ok');
  });
});
