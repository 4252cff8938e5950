// What the flow takes an option's value to be when the code names it otherwise
// or only looks like it: a parser field named unlike its option and its
// declared default, a named default in a struct literal; and what it leaves
// out -- a one-word option's namesake parameter and another type's field, the
// key of an option record, an argument list rewritten by the option's name.
// Each fixture is a small invented tool; the line numbers the tests assert are
// marked beside the fixture lines.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { at, inFile, said, tracedIn, type ValueKind } from './fixtures/worker-run.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();
const traced = (files: Files, kind: ValueKind, name: string) => tracedIn(repo, files, kind, name);

// --max-count lands in a clap field named `limit`, read in another file.
const RUST_PEEKR: Files = {
  'Cargo.toml': lines('[package]', 'name = "peekr"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }'),
  'src/args.rs': lines(
    'use clap::Parser;', //                                              1
    '', //                                                               2
    '#[derive(Parser)]', //                                              3
    'pub struct Args {', //                                              4
    '    /// Stop after this many matching lines (0: no limit).', //     5
    '    #[arg(long = "max-count", default_value_t = 0)]', //            6
    '    pub limit: usize,', //                                          7
    '    pub pattern: String,', //                                       8
    '}', //                                                              9
  ),
  'src/main.rs': lines(
    'mod args;', //                                                      1
    'mod scan;', //                                                      2
    '', //                                                               3
    'use clap::Parser;', //                                              4
    '', //                                                               5
    'fn main() {', //                                                    6
    '    let args = args::Args::parse();', //                            7
    '    let text = std::fs::read_to_string("input.txt").unwrap_or_default();', // 8
    '    for line in scan::matching(&text, &args) {', //                 9
    '        println!("{line}");', //                                    10
    '    }', //                                                          11
    '}', //                                                              12
  ),
  'src/scan.rs': lines(
    'use crate::args::Args;', //                                         1
    '', //                                                               2
    "pub fn matching<'a>(text: &'a str, args: &Args) -> Vec<&'a str> {", // 3
    '    let mut out = Vec::new();', //                                  4
    '    for line in text.lines().filter(|l| l.contains(&args.pattern)) {', // 5
    '        if args.limit > 0 && out.len() == args.limit {', //         6
    '            break;', //                                             7
    '        }', //                                                      8
    '        out.push(line);', //                                        9
    '    }', //                                                          10
    '    out', //                                                        11
    '}', //                                                              12
  ),
};

// --raw: `Frame` keeps its own `raw` bytes and `escape(raw)` has its own `raw` string.
const RUST_HEXY: Files = {
  'Cargo.toml': lines('[package]', 'name = "hexy"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }'),
  'src/main.rs': lines(
    'mod frame;', //                                                     1
    'mod text;', //                                                      2
    '', //                                                               3
    'use clap::Parser;', //                                              4
    '', //                                                               5
    '#[derive(Parser)]', //                                              6
    'struct Cli {', //                                                   7
    '    /// Print the bytes as they are.', //                           8
    '    #[arg(long)]', //                                               9
    '    raw: bool,', //                                                 10
    '}', //                                                              11
    '', //                                                               12
    'fn main() {', //                                                    13
    '    let cli = Cli::parse();', //                                    14
    '    let f = frame::Frame::new(vec![104, 105]);', //                 15
    '    if cli.raw {', //                                               16
    '        println!("{:?}", f.size());', //                            17
    '    } else {', //                                                   18
    '        println!("{}", text::escape("hi"));', //                    19
    '    }', //                                                          20
    '}', //                                                              21
  ),
  'src/frame.rs': lines(
    'pub struct Frame {', //                                             1
    '    raw: Vec<u8>,', //                                              2
    '}', //                                                              3
    '', //                                                               4
    'impl Frame {', //                                                   5
    '    pub fn new(data: Vec<u8>) -> Self {', //                        6
    '        Self { raw: data }', //                                     7
    '    }', //                                                          8
    '', //                                                               9
    '    pub fn size(&self) -> usize {', //                              10
    '        if self.raw.is_empty() {', //                               11
    '            return 0;', //                                          12
    '        }', //                                                      13
    '        self.raw.len()', //                                         14
    '    }', //                                                          15
    '}', //                                                              16
  ),
  'src/text.rs': lines(
    'pub fn escape(raw: &str) -> String {', //                           1
    '    if raw.is_empty() {', //                                        2
    '        return String::from("\\"\\"");', //                         3
    '    }', //                                                          4
    '    raw.escape_default().to_string()', //                           5
    '}', //                                                              6
  ),
};

// --cache-dir with its default named in the struct literal that holds it.
const GO_STASH_DEFAULT: Files = {
  'go.mod': lines('module example.com/stash', '', 'go 1.22'),
  'main.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'import (', //                                                       3
    '\t"flag"', //                                                       4
    '\t"os"', //                                                         5
    ')', //                                                              6
    '', //                                                               7
    'const defaultCacheDir = ".stash"', //                               8
    '', //                                                               9
    'type options struct {', //                                          10
    '\tcacheDir string', //                                              11
    '}', //                                                              12
    '', //                                                               13
    'func main() {', //                                                  14
    '\to := options{cacheDir: defaultCacheDir}', //                      15
    '\tflag.StringVar(&o.cacheDir, "cache-dir", o.cacheDir, "where to keep blobs")', // 16
    '\tflag.Parse()', //                                                 17
    '\tif o.cacheDir != "" {', //                                        18
    '\t\t_ = os.MkdirAll(o.cacheDir, 0o755)', //                         19
    '\t}', //                                                            20
    '}', //                                                              21
  ),
};

// --name-filter declared in a table of option records and removed from the argument list by name.
const JS_LISTER: Files = {
  'package.json': '{"name":"lister","type":"module"}\n',
  'lib/options.js': lines(
    'export const OPTIONS = [', //                                       1
    "  { flag: 'name-filter', type: 'string', help: 'only names that match' },", // 2
    "  { flag: 'depth', type: 'number', help: 'how deep to walk' },", //  3
    "  { flag: 'color', type: 'boolean', help: 'colour the output' },", // 4
    ']', //                                                              5
  ),
  'lib/argv.js': lines(
    'export function exclude(list, name) {', //                          1
    '  const at = list.indexOf(name)', //                                2
    '  return at < 0 ? list : [...list.slice(0, at), ...list.slice(at + 2)]', // 3
    '}', //                                                              4
    '', //                                                               5
    'export function valueOf(list, name) {', //                          6
    '  const at = list.indexOf(name)', //                                7
    '  return at < 0 ? undefined : list[at + 1]', //                     8
    '}', //                                                              9
  ),
  'lib/cli.js': lines(
    "import { OPTIONS } from './options.js'", //                         1
    "import { exclude, valueOf } from './argv.js'", //                   2
    '', //                                                               3
    'export function main(argv) {', //                                   4
    '  let args = argv.slice(2)', //                                     5
    '  for (const o of OPTIONS) {', //                                   6
    "    if (o.flag === 'depth' && args.length > 9) throw new Error('too many')", // 7
    '  }', //                                                            8
    "  const nameFilter = valueOf(args, '--name-filter')", //            9
    "  args = exclude(args, '--name-filter')", //                        10
    "  const names = args.filter((a) => !a.startsWith('-'))", //         11
    '  if (nameFilter) {', //                                            12
    '    return names.filter((n) => n.includes(nameFilter))', //         13
    '  }', //                                                            14
    '  return names', //                                                 15
    '}', //                                                              16
  ),
};

describe('declared carriers, defaults and namesakes', () => {
  it('follows a clap field named unlike its option through its reads, with `default_value_t` as the precedence step (Rust)', async () => {
    const { flow } = await traced(RUST_PEEKR, 'cli_option', '--max-count');
    expect(flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'producer src/args.rs:6-7 `Args.limit` is filled by `#[arg(long = "max-count", default_value_t = 0)]`',
        'precedence src/args.rs:6-6 `Args.limit` defaults to the declared `default_value_t = 0` (in `limit`)',
        'consumer src/scan.rs:6-8 `args.limit` decides the `if` in `matching`',
      ]),
    );
    expect(flow.gaps.filter((g) => /precedence|consumer/.test(g))).toEqual([]);
  });

  it('leaves a namesake parameter and another type’s `self.raw` out of a one-word option’s flow (Rust `--raw`)', async () => {
    const { flow } = await traced(RUST_HEXY, 'cli_option', '--raw');
    // `escape(raw: &str)` never reads the option; `Frame`'s `raw` is Frame's own field.
    expect(inFile(flow, 'src/text.rs')).toEqual([]);
    expect(inFile(flow, 'src/frame.rs')).toEqual([]);
    expect(flow.steps.filter((s) => s.role === 'consumer').map(said)).toEqual(['consumer src/main.rs:16-20 `cli.raw` decides the `if` in `main`']);
  });

  it('takes a named default in a struct literal (`cacheDir: defaultCacheDir`) for precedence, not a producer (Go)', async () => {
    const { flow, verdict } = await traced(GO_STASH_DEFAULT, 'cli_option', '--cache-dir');
    expect(flow.steps.filter((s) => s.location.start_line === 15).map(said)).toEqual(['precedence main.go:15-15 `options.cacheDir` defaults to `defaultCacheDir` (in `main`)']);
    expect(flow.steps.filter((s) => s.role === 'producer').map(at)).toEqual(['producer main.go:16-16']);
    expect(flow.gaps).toEqual([]);
    expect(verdict).toBe('ok');
  });

  it('takes an option’s name in a record for a producer without following the record’s key, and does not take a list rewritten by name for its carrier (JavaScript)', () => {
    const { ctx } = repo(JS_LISTER);
    const primary: Location = { role: 'primary', path: 'lib/options.js', symbol: null, start_line: 2, end_line: 2 };
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--name-filter' }, primary);
    if (result.kind !== 'found') throw new Error(`expected a flow, got: ${result.reason}`);
    const flow = result.payload;
    const record = flow.steps.filter((s) => s.location.path === 'lib/options.js');
    expect(record.map((s) => `${s.role} ${s.description}`)).toEqual(['producer `name-filter` declared as `flag` of an option record']);
    // `flag` is the records' key: `flag: 'depth'`, `flag: 'color'` and `o.flag` are other options.
    expect(flow.steps.filter((s) => /depth|color|`flag` defaults/.test(s.description)).map(said)).toEqual([]);
    expect(inFile(flow, 'lib/cli.js').filter((s) => s.endsWith(':7-7'))).toEqual([]);
    // `args = exclude(args, '--name-filter')` removes the option from `args`; `args` does not carry its value.
    expect(flow.steps.filter((s) => /`args`/.test(s.description)).map(said)).toEqual([]);
    expect(inFile(flow, 'lib/cli.js').filter((s) => /:(5|11)-/.test(s))).toEqual([]);
    expect(flow.steps.filter((s) => s.role === 'consumer').map(said)).toEqual(['consumer lib/cli.js:12-14 `nameFilter` decides the `if` in `main`']);
  });
});

// --max-items reaches `collect` as a keyword argument whose parameter is named differently.
const PY_GATHER: Files = {
  'pyproject.toml': lines('[project]', 'name = "gather"'),
  'gather/__init__.py': '',
  'gather/cli.py': lines(
    'import argparse', //                                                    1
    '', //                                                                   2
    'from gather.walk import collect', //                                    3
    '', //                                                                   4
    '', //                                                                   5
    'def main(argv=None):', //                                               6
    '    parser = argparse.ArgumentParser()', //                             7
    '    parser.add_argument("--max-items", type=int, default=0)', //        8
    '    args = parser.parse_args(argv)', //                                 9
    '    return collect(["."], verbose=False, cap=args.max_items)', //       10
  ),
  'gather/walk.py': lines(
    'def collect(roots, verbose=False, cap=None):', //                       1
    '    found = list(roots)', //                                            2
    '    if cap:', //                                                        3
    '        found = found[:cap]', //                                        4
    '    return found', //                                                   5
  ),
  'gather/record.py': lines('from dataclasses import dataclass', '', '', '@dataclass', 'class Limits:', '    cap: int = 0'),
};

describe('keyword arguments', () => {
  it('follows a keyword argument into the parameter of that name in the callee (Python)', async () => {
    const { flow } = await traced(PY_GATHER, 'cli_option', '--max-items');
    expect(flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'carrier gather/walk.py:1-1 parameter `cap` of `collect` carries the value',
        'consumer gather/walk.py:3-4 `cap` decides the `if` in `collect`',
      ]),
    );
    // The dataclass field of the same name elsewhere is not where this value went.
    expect(inFile(flow, 'gather/record.py')).toEqual([]);
  });
});
