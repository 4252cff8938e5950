// The behaviour site as the static worker reports it for options and keys:
// the primary location is the code that does what the option promises, in
// whatever file the value travels to, and the parser's declaration supports it.
// Each fixture is a small invented tool; the line numbers the tests assert are
// marked beside the fixture lines.
import { describe, expect, it } from 'vitest';
import type { ImplementationLocation, Location, RuntimeFlow } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import type { RouteId } from '../../src/core/semantic.js';
import type { WorkerOutput } from '../../src/core/worker.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();
const worker = createStaticWorker();

function need(route: RouteId, name: string): CompiledNeed {
  return compileNeed(
    { route, subject: { kind: 'cli_option', name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `where does ${name} act` },
    lineageDigest(['0'.repeat(40)]),
  );
}

/** Runs the worker on every obligation of `route` over a fresh repository holding `files`. */
async function run(files: Files, name: string, route: RouteId = 'locate.implementation'): Promise<{ root: string; n: CompiledNeed; out: WorkerOutput }> {
  const { root } = repo(files);
  const n = need(route, name);
  const out = await worker.run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
  return { root, n, out };
}

function implementation(out: WorkerOutput): Location[] {
  const p = out.proposals.find((x) => x.predicate === 'implementation_location');
  if (!p) throw new Error(`no implementation_location proposed: ${JSON.stringify(out.outcome)}`);
  return (p.payload as ImplementationLocation).locations;
}

function flowOf(out: WorkerOutput): RuntimeFlow {
  const p = out.proposals.find((x) => x.predicate === 'runtime_flow');
  if (!p) throw new Error(`no runtime_flow proposed: ${JSON.stringify(out.outcome)}`);
  return p.payload as RuntimeFlow;
}

/** What the validator says of one proposal of `out`: 'ok' or its reasons. */
function verdict(root: string, n: CompiledNeed, out: WorkerOutput, predicate: 'implementation_location' | 'runtime_flow'): string {
  const p = out.proposals.find((x) => x.predicate === predicate)!;
  const v = validateProposal(new SnapshotReader(root), n, n.required, p);
  return v.ok ? 'ok' : v.reasons.join('; ');
}

const at = (l: Location) => `${l.role} ${l.path}:${l.start_line}-${l.end_line}`;

const GO_COURIER: Files = {
  'go.mod': lines('module example.com/courier', '', 'go 1.22'),
  'main.go': lines('package main', '', 'import "example.com/courier/internal/app"', '', 'func main() { app.Main() }'),
  'internal/app/flags.go': lines(
    'package app', //                                                          1
    '', //                                                                     2
    'import (', //                                                             3
    '\t"flag"', //                                                             4
    '\t"fmt"', //                                                              5
    '', //                                                                     6
    '\t"example.com/courier/internal/send"', //                                7
    ')', //                                                                    8
    '', //                                                                     9
    'func Main() {', //                                                        10
    '\topts := send.Options{}', //                                             11
    '\tflag.BoolVar(&opts.DryRun, "dry-run", false, "show what would be sent")', // 12
    '\tflag.StringVar(&opts.Inbox, "inbox", "", "where to deliver")', //       13
    '\tflag.Parse()', //                                                       14
    '\tfmt.Println(send.Deliver(opts))', //                                    15
    '}', //                                                                    16
  ),
  'internal/send/send.go': lines(
    'package send', //                                                         1
    '', //                                                                     2
    'type Options struct {', //                                                3
    '\tDryRun bool', //                                                        4
    '\tInbox  string', //                                                      5
    '}', //                                                                    6
    '', //                                                                     7
    'func Deliver(opts Options) string {', //                                  8
    '\tif opts.DryRun {', //                                                   9
    '\t\tnote := "would deliver to " + opts.Inbox', //                         10
    '\t\treturn note', //                                                      11
    '\t}', //                                                                  12
    '\treturn "delivered to " + opts.Inbox', //                                13
    '}', //                                                                    14
  ),
};

const RUST_TREE: Files = {
  'Cargo.toml': lines('[package]', 'name = "sapling"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }'),
  'src/cli.rs': lines(
    'use clap::Parser;', //                                                    1
    '', //                                                                     2
    '#[derive(Parser)]', //                                                    3
    'pub struct Args {', //                                                    4
    '    #[arg(long, default_value_t = 3)]', //                                5
    '    pub max_depth: i64,', //                                              6
    '}', //                                                                    7
  ),
  'src/main.rs': lines(
    'mod cli;', //                                                             1
    'mod shape;', //                                                           2
    '', //                                                                     3
    'use clap::Parser;', //                                                    4
    '', //                                                                     5
    'fn main() -> Result<(), String> {', //                                    6
    '    let args = cli::Args::parse();', //                                   7
    '    if args.max_depth < 0 {', //                                          8
    '        return Err("depth must not be negative".to_string());', //        9
    '    }', //                                                                10
    '    println!("{}", shape::indent_budget(&args).len());', //               11
    '    Ok(())', //                                                           12
    '}', //                                                                    13
  ),
  'src/shape.rs': lines(
    'use crate::cli::Args;', //                                                1
    '', //                                                                     2
    'pub fn indent_budget(args: &Args) -> String {', //                        3
    '    let width = args.max_depth * 2;', //                                  4
    '    let pad = " ".repeat(width as usize);', //                            5
    '    format!("{pad}|")', //                                                6
    '}', //                                                                    7
  ),
};

const PY_PRUNE: Files = {
  'pyproject.toml': lines('[project]', 'name = "trimmer"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'trimmer/__init__.py': '',
  'trimmer/cli.py': lines(
    'import argparse', //                                                      1
    '', //                                                                     2
    'from trimmer.sweep import sweep', //                                      3
    '', //                                                                     4
    '', //                                                                     5
    'def main(argv=None):', //                                                 6
    '    parser = argparse.ArgumentParser()', //                               7
    '    parser.add_argument("--keep-going", action="store_true")', //         8
    '    args = parser.parse_args(argv)', //                                   9
    '    return sweep(args, ["a.tmp", "b.tmp"])', //                           10
  ),
  'trimmer/sweep.py': lines(
    'import os', //                                                            1
    '', //                                                                     2
    '', //                                                                     3
    'def sweep(args, paths):', //                                              4
    '    removed = []', //                                                     5
    '    strict = not args.keep_going', //                                     6
    '    for path in paths:', //                                               7
    '        if not os.path.exists(path):', //                                 8
    '            continue', //                                                 9
    '        if strict:', //                                                   10
    '            os.remove(path)', //                                          11
    '            removed.append(path)', //                                     12
    '    return removed', //                                                   13
  ),
};

const TS_PEEK: Files = {
  'package.json': `${JSON.stringify({ name: 'peek', type: 'module', dependencies: { commander: '^12.0.0' }, devDependencies: { vitest: '^4.0.0' } }, null, 2)}\n`,
  'src/cli.ts': lines(
    "import { Command } from 'commander';", //                                 1
    "import { show } from './show.js';", //                                    2
    '', //                                                                     3
    'const program = new Command();', //                                       4
    "program.option('--raw', 'print the bytes without quoting');", //          5
    'program.parse();', //                                                     6
    "console.log(show(program.opts(), 'a\"b'));", //                           7
  ),
  'src/quote.ts': lines(
    'export function quote(raw: string): string {', //                         1
    '  if (raw.length === 0) {', //                                            2
    "    return '\"\"';", //                                                   3
    '  }', //                                                                  4
    "  return JSON.stringify(raw);", //                                        5
    '}', //                                                                    6
  ),
  'src/show.ts': lines(
    "import { quote } from './quote.js';", //                                  1
    '', //                                                                     2
    'export function show(opts: { raw?: boolean }, text: string): string {', // 3
    '  if (opts.raw) {', //                                                    4
    '    return text;', //                                                     5
    '  }', //                                                                  6
    '  return quote(text);', //                                                7
    '}', //                                                                    8
  ),
};

const JS_TAIL: Files = {
  'package.json': `${JSON.stringify({ name: 'lasttail', type: 'module', dependencies: { commander: '^12.0.0' } }, null, 2)}\n`,
  'lib/cli.js': lines(
    "import { Command } from 'commander';", //                                 1
    "import { toSettings } from './settings.js';", //                          2
    "import { clip } from './clip.js';", //                                    3
    '', //                                                                     4
    'const program = new Command();', //                                       5
    "program.option('--max-lines <n>', 'keep only the last n lines');", //     6
    'program.parse();', //                                                     7
    "console.log(clip('a\\nb\\nc', toSettings(program.opts())));", //          8
  ),
  'lib/settings.js': lines(
    'export function toSettings(opts) {', //                                   1
    '  const maxLines = Number(opts.maxLines ?? 100);', //                      2
    '  return { maxLines };', //                                               3
    '}', //                                                                    4
  ),
  'lib/clip.js': lines(
    'export function clip(text, settings) {', //                               1
    "  const rows = text.split('\\n');", //                                    2
    '  if (rows.length > settings.maxLines) {', //                             3
    "    return rows.slice(rows.length - settings.maxLines).join('\\n');", //  4
    '  }', //                                                                  5
    '  return text;', //                                                       6
    '}', //                                                                    7
  ),
};

const PY_POOL: Files = {
  'pyproject.toml': lines('[project]', 'name = "pool"'),
  'pool/__init__.py': '',
  'pool/cli.py': lines(
    'import argparse', //                                                      1
    '', //                                                                     2
    'from pool.spread import batches', //                                      3
    '', //                                                                     4
    '', //                                                                     5
    'def main(argv):', //                                                      6
    '    parser = argparse.ArgumentParser()', //                               7
    '    parser.add_argument("--max-workers", type=int, default=4)', //        8
    '    args = parser.parse_args(argv)', //                                   9
    '    if args.max_workers < 1:', //                                         10
    '        raise ValueError("need at least one worker")', //                 11
    '    return batches(list(range(10)), args)', //                            12
  ),
  'pool/spread.py': lines(
    'def batches(tasks, args):', //                                            1
    '    size = -(-len(tasks) // args.max_workers)', //                         2
    '    return [tasks[i:i + size] for i in range(0, len(tasks), size)]', //    3
  ),
};

describe('the behaviour site is the primary location of an option', () => {
  it('is the branch the value decides in another file, cited whole, with the parser declaration supporting it (Go)', async () => {
    const { root, n, out } = await run(GO_COURIER, '--dry-run');
    const locations = implementation(out);
    expect(locations[0]).toEqual({ role: 'primary', path: 'internal/send/send.go', symbol: null, start_line: 9, end_line: 12 });
    expect(locations.slice(1).map(at)).toContain('supporting internal/app/flags.go:12-12');
    expect(verdict(root, n, out, 'implementation_location')).toBe('ok');
  });

  it('is the small function that uses the value most when the only branch on it rejects bad input (Rust error return, Python raise)', async () => {
    const rust = implementation((await run(RUST_TREE, '--max-depth')).out);
    // `if args.max_depth < 0 { return Err(..) }` only validates; `indent_budget` is where the depth does its work.
    expect(rust[0]).toEqual({ role: 'primary', path: 'src/shape.rs', symbol: 'indent_budget', start_line: 3, end_line: 7 });
    expect(rust.slice(1).map(at)).toEqual(expect.arrayContaining(['supporting src/cli.rs:5-6', 'supporting src/main.rs:8-10']));

    const python = implementation((await run(PY_POOL, '--max-workers')).out);
    expect(python[0]).toEqual({ role: 'primary', path: 'pool/spread.py', symbol: 'batches', start_line: 1, end_line: 3 });
    // Nearby steps in one file share one citation: the declaration at 8 and the read at 10-11.
    expect(python.slice(1).map(at)).toEqual(expect.arrayContaining(['supporting pool/cli.py:8-11']));

    // A function too long to cite whole (over 80 lines) is not the site; the rejecting branch is all that is left.
    const padding = Array.from({ length: 80 }, (_, i) => `    # step ${i + 1} of the plan`);
    const long = { ...PY_POOL, 'pool/spread.py': lines('def batches(tasks, args):', ...padding, PY_POOL['pool/spread.py']!.split('\n').slice(1, 3).join('\n')) };
    const fallback = implementation((await run(long, '--max-workers')).out);
    expect(at(fallback[0]!)).toBe('primary pool/cli.py:10-11');
  });

  it('runs from the line that renames the value into a local through the branch that local decides (Python)', async () => {
    const locations = implementation((await run(PY_PRUNE, '--keep-going')).out);
    // `strict = not args.keep_going` (line 6) … `if strict:` (lines 10-12): one range that spells the option.
    expect(locations[0]).toEqual({ role: 'primary', path: 'trimmer/sweep.py', symbol: null, start_line: 6, end_line: 12 });
    expect(locations.slice(1).map(at)).toContain('supporting trimmer/cli.py:8-8');
  });

  it('does not take an unrelated local or parameter spelled like a one-word option for its site (TypeScript `--raw`)', async () => {
    const locations = implementation((await run(TS_PEEK, '--raw')).out);
    // `quote(raw: string)` tests a `raw` of its own; only `opts.raw` reads the option.
    expect(locations[0]).toEqual({ role: 'primary', path: 'src/show.ts', symbol: null, start_line: 4, end_line: 6 });
    expect(locations.filter((l) => l.path === 'src/quote.ts').every((l) => l.role === 'supporting')).toBe(true);

    // With no member read left, the namesake still is not the site: the declaration stays primary.
    const show = lines('export function show(flags: { verbatim?: boolean }, text: string): string {', '  return flags.verbatim ? text : text.trim();', '}');
    const namesakeOnly = implementation((await run({ ...TS_PEEK, 'src/show.ts': show }, '--raw')).out);
    expect(at(namesakeOnly[0]!)).toBe('primary src/cli.ts:5-5');
  });

  it('is proposed on a trace route with the flow steps as supporting locations even when the runtime flow is not contract-complete (JavaScript)', async () => {
    const { root, n, out } = await run(JS_TAIL, '--max-lines', 'trace.state-flow');
    const flow = flowOf(out);
    expect(flow.gaps.length).toBeGreaterThan(0);
    expect(verdict(root, n, out, 'runtime_flow')).toMatch(/not contract_complete/);

    const locations = implementation(out);
    expect(locations[0]).toEqual({ role: 'primary', path: 'lib/clip.js', symbol: null, start_line: 3, end_line: 5 });
    expect(locations.slice(1).map(at)).toEqual(['supporting lib/cli.js:6-6', 'supporting lib/settings.js:2-3']);
    // Every step of the flow is cited: as the primary's range or as a supporting location.
    const covers = (s: Location) => locations.some((l) => l.path === s.path && l.start_line <= s.start_line && s.end_line <= l.end_line);
    expect(flow.steps.filter((s) => !covers(s.location)).map((s) => at(s.location))).toEqual([]);
    expect(verdict(root, n, out, 'implementation_location')).toBe('ok');
  });
});
