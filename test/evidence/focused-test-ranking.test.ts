// Which test the static worker names as focused_tests once it knows the
// behaviour site: a test that calls the function holding the behaviour with the
// option's carrier set, the test file kept beside that function's source file,
// a command line passing the declared short flag, a test running through a
// same-file helper; and which it sets back: error-only tests of a behaviour
// that does not reject, end-to-end runs, titles about the option being unset,
// unit tests that spell the carrier only in a helper every test of the file shares,
// titles about a refusal (`cannot combine …`) when the behaviour does not refuse,
// tests that only set a name the option decided (`NODE_ENV = squeeze ? … : …`).
// Between tests alike in every sign, the one whose title says what the
// option's help text says (`spawns … at once` for "how many … spawn at once").
// Each fixture is a small invented tool.
import { describe, expect, it } from 'vitest';
import type { FocusedTests, ImplementationLocation, Location } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { contentWords, helpWords } from '../../src/evidence/tests/relevance.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();

// An ava suite (`test.serial`, `--match`) with a `--help` snapshot that lists every option.
const JS_RELEASE: Files = {
  'package.json': `${JSON.stringify({ name: 'release', type: 'module', scripts: { test: 'xo && ava' }, dependencies: { meow: '^13.0.0' }, devDependencies: { ava: '^6.0.0' } }, null, 2)}\n`,
  'source/cli.js': lines(
    "import meow from 'meow';",
    "import { publish } from './publish.js';",
    '',
    "const cli = meow('Usage: release', {",
    '  importMeta: import.meta,',
    '  flags: {',
    "    anyBranch: { type: 'boolean' },",
    '  },',
    '});',
    'publish(cli.flags);',
  ),
  'source/publish.js': lines(
    'export function publish(options) {',
    '  if (options.anyBranch) {',
    "    return 'any branch';",
    '  }',
    "  return 'main only';",
    '}',
  ),
  'test/cli.js': lines(
    "import test from 'ava';",
    "import { execa } from 'execa';",
    '',
    "test('flags: --help', async t => {",
    "  const { stdout } = await execa('./source/cli.js', ['--help']);",
    '  t.true(stdout.includes([',
    "    '--any-branch  Publish from any branch',",
    "    '--branch      Release branch',",
    "    '--cleanup     Remove node_modules',",
    "    '--tests       Run the tests',",
    "    '--yolo        Skip cleanup and tests',",
    "    '--publish     Publish',",
    "    '--tag         Publish under a tag',",
    "    '--contents    Subdirectory to publish',",
    "    '--no-2fa      Skip two-factor prompts',",
    "    '--message     Version commit message',",
    "  ].join('\\n')));",
    '});',
  ),
  'test/publish.js': lines(
    "import test from 'ava';",
    "import { publish } from '../source/publish.js';",
    '',
    "test.serial('publishes from a feature branch when anyBranch is set', t => {",
    "  t.is(publish({ anyBranch: true }), 'any branch');",
    '});',
    '',
    "test.skip('publishes twice', t => {",
    "  t.is(publish({ anyBranch: true }), 'any branch');",
    '});',
  ),
};


// Two tests call the behaviour with the option set, alike in every sign; the option's help text says
// what the second one's title says.
const TS_JOBS: Files = {
  'package.json': `${JSON.stringify({ name: 'jobs', type: 'module', scripts: { test: 'vitest run' }, dependencies: { yargs: '^17.0.0' }, devDependencies: { vitest: '^4.0.0' } }, null, 2)}\n`,
  'bin/cli.ts': lines(
    "import yargs from 'yargs';",
    "import { runAll } from '../src/run.js';",
    '',
    'const args = yargs(process.argv.slice(2))',
    '  .options({',
    "    'max-jobs': {",
    "      describe: 'How many jobs may spawn at once',",
    "      type: 'number',",
    '    },',
    '  })',
    '  .parseSync();',
    "console.log(runAll(['a', 'b'], { maxJobs: args.maxJobs }));",
  ),
  'src/run.ts': lines(
    'export interface RunOptions {',
    '  maxJobs?: number;',
    '}',
    '',
    'export function runAll(commands: string[], options: RunOptions): string[] {',
    '  const started: string[] = [];',
    '  for (const c of commands) {',
    '    if (options.maxJobs !== undefined && started.length >= options.maxJobs) {',
    '      break;',
    '    }',
    '    started.push(c);',
    '  }',
    '  return started;',
    '}',
  ),
  'test/run.test.ts': lines(
    "import { expect, it } from 'vitest';",
    "import { runAll } from '../src/run.js';",
    '',
    "it('reports every command it ran', () => {",
    "  expect(runAll(['a', 'b', 'c'], { maxJobs: 3 })).toHaveLength(3);",
    '});',
    '',
    "it('spawns as many commands at once as configured', () => {",
    "  expect(runAll(['a', 'b', 'c'], { maxJobs: 2 })).toHaveLength(2);",
    '});',
  ),
};

const worker = createStaticWorker();

const withoutFile = (files: Files, path: string): Files => Object.fromEntries(Object.entries(files).filter(([p]) => p !== path));

function need(name: string): CompiledNeed {
  return compileNeed(
    { route: 'trace.state-flow', subject: { kind: 'cli_option', name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `which test covers ${name}` },
    lineageDigest(['0'.repeat(40)]),
  );
}

/**
 * The worker's focused test for the option, run on every obligation of the
 * trace route so it locates the behaviour site first; with the site it used.
 */
async function focused(files: Files, name: string): Promise<{ root: string; n: CompiledNeed; plan: FocusedTests; site: Location }> {
  const { root } = repo(files);
  const n = need(name);
  const out = await worker.run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
  const plan = out.proposals.find((p) => p.predicate === 'focused_tests')?.payload as FocusedTests | undefined;
  const impl = out.proposals.find((p) => p.predicate === 'implementation_location')?.payload as ImplementationLocation | undefined;
  if (!plan || !impl) throw new Error(`expected a focused test and a location, got ${JSON.stringify(out.outcome)} with ${out.proposals.map((p) => p.predicate).join(', ')}`);
  return { root, n, plan, site: impl.locations[0]! };
}

const chosen = (plan: FocusedTests) => `${plan.location.path} ${plan.identifier}`;
const at = (l: Location) => `${l.path}:${l.start_line}-${l.end_line}`;

function verdict(root: string, n: CompiledNeed, plan: FocusedTests): string {
  const v = validateProposal(new SnapshotReader(root), n, [...n.required, ...n.preferred], { predicate: 'focused_tests', payload: plan });
  return v.ok ? 'ok' : v.reasons.join('; ');
}

const PY_CAT: Files = {
  'pyproject.toml': lines('[project]', 'name = "tabby"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'tabby/__init__.py': '',
  'tabby/cli.py': lines(
    'import argparse',
    '',
    'from tabby.render import render',
    '',
    '',
    'def main(argv):',
    '    parser = argparse.ArgumentParser()',
    '    parser.add_argument("--squash-blank", action="store_true")',
    '    parser.add_argument("path")',
    '    args = parser.parse_args(argv)',
    '    with open(args.path) as fh:',
    '        return render(fh.read(), args)',
  ),
  'tabby/render.py': lines(
    'def render(text, opts):',
    '    out = []',
    '    for line in text.split("\\n"):',
    '        if opts.squash_blank and line == "" and out and out[-1] == "":', // 4
    '            continue', // 5
    '        out.append(line)',
    '    return "\\n".join(out)',
  ),
  'tests/test_cli.py': lines(
    'from tabby.cli import main',
    '',
    '',
    'def test_squash_blank(tmp_path):',
    '    f = tmp_path / "in.txt"',
    '    f.write_text("a\\n\\n\\nb")',
    '    assert main(["--squash-blank", str(f)]) == "a\\n\\nb"',
  ),
  'tests/test_output.py': lines(
    'from argparse import Namespace',
    '',
    'from tabby.render import render',
    '',
    '',
    'def test_collapses_runs_of_empty_lines():',
    '    assert render("a\\n\\n\\nb", Namespace(squash_blank=True)) == "a\\n\\nb"',
  ),
};

const PY_CAT_HELPERS: Files = {
  ...withoutFile(PY_CAT, 'tests/test_output.py'),
  'tests/test_cli.py': lines(
    'from tabby.cli import main',
    '',
    '',
    'def squashed(tmp_path):',
    '    f = tmp_path / "in.txt"',
    '    f.write_text("a\\n\\n\\nb")',
    '    return main(["--squash-blank", str(f)])',
    '',
    '',
    'def test_squash_blank(tmp_path):', // 10
    '    assert squashed(tmp_path) == "a\\n\\nb"', // 11
  ),
  'tests/test_squash_blank.py': lines(
    'from argparse import Namespace',
    '',
    'from tabby.render import render',
    '',
    '',
    'def rendered(text, **flags):',
    '    return render(text, Namespace(**flags))',
    '',
    '',
    'def test_squash_blank():',
    '    assert rendered("a\\n\\n\\nb", squash_blank=True) == "a\\n\\nb"',
  ),
};

const TS_PAGER: Files = {
  'package.json': `${JSON.stringify({ name: 'leafs', type: 'module', scripts: { test: 'vitest run' }, dependencies: { commander: '^12.0.0' }, devDependencies: { vitest: '^4.0.0' } }, null, 2)}\n`,
  'src/cli.ts': lines(
    "import { Command } from 'commander';",
    "import { paginate } from './pages.js';",
    '',
    'const program = new Command();',
    "program.option('--page-size <n>', 'items per page', Number, 20);",
    'program.parse();',
    'console.log(paginate([1, 2, 3], program.opts()));',
  ),
  'src/pages.ts': lines(
    'export function paginate<T>(items: T[], opts: { pageSize: number }): T[][] {',
    '  if (opts.pageSize <= 0) {',
    "    throw new RangeError('page size must be positive');",
    '  }',
    '  if (items.length <= opts.pageSize) {', // 5
    '    return [items];', // 6
    '  }',
    '  return [items.slice(0, opts.pageSize), ...paginate(items.slice(opts.pageSize), opts)];',
    '}',
  ),
  'test/paging.test.ts': lines(
    "import { describe, expect, it } from 'vitest';",
    "import { paginate } from '../src/pages.js';",
    '',
    "describe('paginate', () => {",
    "  it('refuses a page size of zero', () => {",
    '    expect(() => paginate([1], { pageSize: 0 })).toThrow(RangeError);',
    '  });',
    "  it('splits items into pages', () => {",
    '    expect(paginate([1, 2, 3], { pageSize: 2 })).toEqual([[1, 2], [3]]);',
    '  });',
    '});',
  ),
};

const GO_WALKER: Files = {
  'go.mod': lines('module example.com/walker', '', 'go 1.22'),
  'main.go': lines('package main', '', 'import (', '\t"os"', '', '\t"example.com/walker/internal/cli"', ')', '', 'func main() { _ = cli.Run(os.Args[1:]) }'),
  'internal/cli/cli.go': lines(
    'package cli',
    '',
    'import (',
    '\t"flag"',
    '\t"fmt"',
    '',
    '\t"example.com/walker/internal/handler"',
    ')',
    '',
    'func Run(args []string) error {',
    '\tfs := flag.NewFlagSet("walker", flag.ContinueOnError)',
    '\tfollowLinks := fs.Bool("follow-links", false, "descend into linked directories")',
    '\tif err := fs.Parse(args); err != nil {',
    '\t\treturn err',
    '\t}',
    '\th := handler.New(handler.Config{FollowLinks: *followLinks})',
    '\tfmt.Println(h.Serve(fs.Arg(0)))',
    '\treturn nil',
    '}',
  ),
  'internal/cli/cli_e2e_test.go': lines(
    'package cli',
    '',
    'import "testing"',
    '',
    'func TestRunPrintsTree(t *testing.T) {',
    '\tif err := Run([]string{"--follow-links", "testdata"}); err != nil {',
    '\t\tt.Fatal(err)',
    '\t}',
    '}',
  ),
  'internal/handler/handler.go': lines(
    'package handler',
    '',
    'type Config struct {',
    '\tFollowLinks bool',
    '}',
    '',
    'type Handler struct{ cfg Config }',
    '',
    'func New(cfg Config) *Handler { return &Handler{cfg: cfg} }',
    '',
    'func (h *Handler) Serve(root string) []string {',
    '\treturn h.visit(root, true)',
    '}',
    '',
    'func (h *Handler) visit(path string, linked bool) []string {', // 15
    '\tif linked && !h.cfg.FollowLinks {', // 16
    '\t\treturn nil',
    '\t}',
    '\treturn []string{path}', // 19
    '}',
  ),
  'internal/handler/handler_test.go': lines(
    'package handler',
    '',
    'import "testing"',
    '',
    'func TestServeDescendsIntoLinks(t *testing.T) {',
    '\th := New(Config{FollowLinks: true})',
    '\tif got := h.Serve("docs"); len(got) != 1 {',
    '\t\tt.Fatalf("got %v", got)',
    '\t}',
    '}',
  ),
};

const JS_CHUNKS: Files = {
  'package.json': `${JSON.stringify({ name: 'slicer', type: 'module', scripts: { test: 'vitest run' }, dependencies: { commander: '^12.0.0' }, devDependencies: { vitest: '^4.0.0' } }, null, 2)}\n`,
  'bin/cli.js': lines(
    "import { Command } from 'commander';",
    "import { chunkAll } from '../lib/chunk.js';",
    '',
    'const program = new Command();',
    "program.option('--chunk-size <n>', 'characters per piece', Number);",
    'program.parse();',
    'console.log(chunkAll(program.args, program.opts()));',
  ),
  'lib/chunk.js': lines(
    'export function split(text, opts) {',
    '  if (opts.chunkSize > 0) {', // 2
    '    const parts = [];',
    '    for (let i = 0; i < text.length; i += opts.chunkSize) parts.push(text.slice(i, i + opts.chunkSize));',
    '    return parts;',
    '  }',
    '  return [text];', // 7
    '}',
    '',
    'export function chunkAll(texts, opts) {',
    '  return texts.map((t) => split(t, opts));',
    '}',
  ),
  'test/chunk.spec.js': lines(
    "import { expect, test } from 'vitest';",
    "import { chunkAll } from '../lib/chunk.js';",
    '',
    "test('cuts every text into equal pieces', () => {",
    "  expect(chunkAll(['abcd'], { chunkSize: 2 })).toEqual([['ab', 'cd']]);",
    '});',
  ),
  'test/e2e/cli.spec.js': lines(
    "import { execFileSync } from 'node:child_process';",
    "import { expect, test } from 'vitest';",
    '',
    "test('prints the pieces', () => {",
    "  const out = execFileSync('node', ['bin/cli.js', '--chunk-size', '2', 'abcd'], { encoding: 'utf8' });",
    "  expect(out).toContain('ab');",
    '});',
  ),
};

const PY_COUNTER: Files = {
  'pyproject.toml': lines('[project]', 'name = "counter"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'counter/__init__.py': '',
  'counter/cli.py': lines(
    'import argparse',
    '',
    'from counter.scan import head',
    '',
    '',
    'def main(argv):',
    '    parser = argparse.ArgumentParser(prog="counter")',
    '    parser.add_argument("-n", "--max-count", type=int, default=None, help="stop after this many lines")',
    '    parser.add_argument("path")',
    '    args = parser.parse_args(argv)',
    '    with open(args.path) as fh:',
    '        return head(fh.read().splitlines(), args.max_count)',
  ),
  'counter/scan.py': lines(
    'def head(rows, max_count):',
    '    if max_count is not None:',
    '        return rows[:max_count]',
    '    return rows',
  ),
  'tests/test_cli.py': lines(
    'import pytest',
    '',
    'from counter.cli import main',
    '',
    // Spells `MAX_COUNT` only inside a longer name: a candidate file for the search, yet no mention of the subject.
    'MAX_COUNTS = [1, 2]',
    '',
    '',
    '@pytest.mark.parametrize("limit", MAX_COUNTS)',
    'def test_stops_early(tmp_path, limit):', // 9
    '    f = tmp_path / "in.txt"',
    '    f.write_text("a\\nb\\nc\\n")',
    '    assert main(["-n", str(limit), str(f)]) == ["a", "b", "c"][:limit]',
  ),
};

const TS_LIST_BASE: Files = {
  'package.json': `${JSON.stringify({ name: 'lister', type: 'module', scripts: { test: 'vitest run' }, dependencies: { commander: '^12.0.0' }, devDependencies: { vitest: '^4.0.0' } }, null, 2)}\n`,
  'src/cli.ts': lines(
    "import { Command } from 'commander';",
    "import { joinItems } from './list.js';",
    '',
    'export function main(argv: string[]): string {',
    '  const program = new Command();',
    "  program.option('--trailing-comma', 'end the list with a comma');",
    "  program.parse(argv, { from: 'user' });",
    "  return joinItems(['a', 'b'], program.opts());",
    '}',
  ),
  'src/list.ts': lines(
    'export interface ListOptions {',
    '  trailingComma?: boolean;',
    '}',
    '',
    "export function joinItems(items: string[], opts: ListOptions, sep = ', '): string {",
    '  const body = items.join(sep);',
    '  if (opts.trailingComma) {', // 7
    '    return `${body},`;',
    '  }',
    '  return body;', // 10
    '}',
  ),
};

const TS_LIST_HELPER: Files = {
  ...TS_LIST_BASE,
  'test/cli.test.ts': lines(
    "import { expect, it } from 'vitest';",
    "import { main } from '../src/cli.js';",
    '',
    'function commaCase(on: boolean) {',
    '  return () => {',
    "    const out = main(on ? ['--trailing-comma'] : []);",
    "    expect(out.endsWith(',')).toBe(on);",
    '  };',
    '}',
    '',
    "it('prints the list bare when unset', commaCase(false));", // 11
    "it('ends the list with a comma', commaCase(true));", // 12
  ),
};

const TS_LIST_CALLS: Files = {
  ...TS_LIST_BASE,
  'test/list.test.ts': lines(
    "import { expect, it } from 'vitest';",
    "import { joinItems } from '../src/list.js';",
    '',
    "const sep = '; ';",
    '',
    "it('adds a trailing comma after a custom separator', () => {",
    "  expect(joinItems(['a', 'b'], { trailingComma: true }, sep)).toBe('a; b,');",
    '});',
    "it('puts a trailing comma last', () => {",
    "  expect(joinItems(['a', 'b'], { trailingComma: true })).toBe('a, b,');",
    '});',
  ),
};

const TS_BUNDLER: Files = {
  'package.json': `${JSON.stringify({ name: 'bundle', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '*' } }, null, 2)}\n`,
  'src/cli.ts': lines(
    "import { cac } from 'cac'", //                                                     1
    "import { build } from './build'", //                                               2
    '', //                                                                              3
    "const cli = cac('bundle')", //                                                     4
    "cli.option('--squeeze-spaces', 'Drop redundant whitespace')", //                   5
    "cli.option('--env.* <value>', 'Define compile-time env variables')", //            6
    'const { options } = cli.parse()', //                                               7
    'build(options)', //                                                                8
  ),
  'src/build.ts': lines(
    'export function build(options: { squeezeSpaces?: boolean; env?: Record<string, string> }) {', // 1
    '  const env = { ...options.env }', //                                              2
    "  const NODE_ENV = options.squeezeSpaces ? 'production' : 'development'", //       3
    '  env.NODE_ENV = NODE_ENV', //                                                     4
    '  return env', //                                                                  5
    '}', //                                                                             6
  ),
  // Sets NODE_ENV through `--env.*`: nothing here is about squeezing spaces.
  'test/build.test.ts': lines(
    "import { expect, test } from 'vitest'", //                                         1
    "import { build } from '../src/build'", //                                          2
    '', //                                                                              3
    "test('env flag', () => {", //                                                      4
    "  const NODE_ENV = 'staging'", //                                                  5
    '  expect(build({ env: { NODE_ENV } }).NODE_ENV).toBe("development")', //           6
    '})', //                                                                            7
  ),
};

const RUST_STOPWATCH: Files = {
  'Cargo.toml': lines('[package]', 'name = "stopwatch"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }'),
  'src/main.rs': lines('mod cli;', 'mod report;', 'mod scheduler;', '', 'fn main() {', '    let cli = <cli::Cli as clap::Parser>::parse();', '    println!("{}", report::render_duration(1.5, &cli));', '}'),
  'src/cli.rs': lines(
    'use clap::Parser;', //                                          1
    '', //                                                           2
    '#[derive(Parser)]', //                                          3
    'pub struct Cli {', //                                           4
    '    #[arg(long, default_value_t = 10)]', //                     5
    '    pub runs: u64,', //                                         6
    '    #[arg(long)]', //                                           7
    '    pub time_unit: Option<String>,', //                         8
    '}', //                                                          9
  ),
  'src/report.rs': lines(
    'use crate::cli::Cli;', //                                       1
    '', //                                                           2
    'pub fn render_duration(seconds: f64, cli: &Cli) -> String {', // 3
    '    match cli.time_unit.as_deref() {', //                       4
    '        Some("ms") => format!("{} ms", seconds * 1000.0),', //  5
    '        _ => format!("{} s", seconds),', //                     6
    '    }', //                                                      7
    '}', //                                                          8
  ),
  // Unit tests of the scheduler go through one helper that builds every option
  // (and so spells `time_unit`); none of them sets the time unit.
  'src/scheduler.rs': lines(
    'pub fn repeat(runs: u64) -> u64 {', //                          1
    '    runs', //                                                   2
    '}', //                                                          3
    '', //                                                           4
    '#[cfg(test)]', //                                               5
    'mod tests {', //                                                6
    '    use super::*;', //                                          7
    '    use crate::cli::Cli;', //                                   8
    '    use crate::report::render_duration;', //                    9
    '    use clap::Parser;', //                                      10
    '', //                                                           11
    '    fn results(args: &[&str]) -> (u64, String) {', //           12
    '        let cli = Cli::parse_from(std::iter::once("stopwatch").chain(args.iter().copied()));', // 13
    '        let unit = cli.time_unit.clone().unwrap_or_default();', // 14
    '        assert!(unit.len() < 3);', //                           15
    '        (repeat(cli.runs), render_duration(1.5, &cli))', //     16
    '    }', //                                                      17
    '', //                                                           18
    '    #[test]', //                                                19
    '    fn schedules_the_requested_runs() {', //                    20
    '        assert_eq!(results(&["--runs=2"]).0, 2);', //           21
    '    }', //                                                      22
    '}', //                                                          23
  ),
  'tests/integration_tests.rs': lines(
    'use std::process::Command;', //                                 1
    '', //                                                           2
    '#[test]', //                                                    3
    'fn prints_the_time_in_the_requested_unit() {', //               4
    '    let out = Command::new(env!("CARGO_BIN_EXE_stopwatch")).arg("--time-unit=ms").output().unwrap();', // 5
    '    assert!(String::from_utf8_lossy(&out.stdout).contains("1500 ms"));', // 6
    '}', //                                                          7
  ),
};

const PY_UPLOAD: Files = {
  'pyproject.toml': lines('[project]', 'name = "sendit"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'sendit/__init__.py': '',
  'sendit/cli.py': lines(
    'import argparse', //                                                          1
    '', //                                                                         2
    'from sendit.upload import send', //                                           3
    '', //                                                                         4
    '', //                                                                         5
    'def main(argv):', //                                                          6
    '    p = argparse.ArgumentParser()', //                                        7
    '    p.add_argument("--chunked", action="store_true")', //                     8
    '    p.add_argument("--compress", action="store_true")', //                    9
    '    p.add_argument("--timeout", type=int, default=5)', //                     10
    '    p.add_argument("body")', //                                               11
    '    args = p.parse_args(argv)', //                                            12
    '    if args.chunked and args.compress:', //                                   13
    '        return "cannot combine --compress and --chunked"', //                 14
    '    return send(args.body, args.chunked, args.timeout)', //                   15
  ),
  'sendit/upload.py': lines(
    'def send(body, chunked, timeout):', //                                        1
    '    if chunked:', //                                                          2
    '        return [body[i:i + 4] for i in range(0, len(body), 4)]', //           3
    '    return [body]', //                                                        4
  ),
  'tests/test_cli.py': lines(
    'from sendit.cli import main', //                                              1
    '', //                                                                         2
    '', //                                                                         3
    'def test_cannot_combine_compress_with_chunked():', //                         4
    '    assert "cannot" in main(["--compress", "--chunked", "x"])', //            5
    '', //                                                                         6
    '', //                                                                         7
    'def test_sends_the_body_in_pieces():', //                                     8
    '    pieces = main(["--timeout", "9", "--chunked", "abcdefgh"])', //           9
    '    assert len(pieces) == 2', //                                              10
    '    assert pieces[0] == "abcd"', //                                           11
    '    assert "".join(pieces) == "abcdefgh"', //                                 12
  ),
};

describe('focused tests ranked by how directly they exercise the behaviour site', () => {
  it('prefers a test calling the behaviour function with the carrier set over a CLI test named exactly after the option (Python)', async () => {
    const { plan, site } = await focused(PY_CAT, '--squash-blank');
    // `test_squash_blank` passes `--squash-blank` to `main`; `render(…, Namespace(squash_blank=True))` is what breaks with the behaviour.
    expect(chosen(plan)).toBe('tests/test_output.py test_collapses_runs_of_empty_lines');
    expect(plan.argv).toEqual(['pytest', 'tests/test_output.py::test_collapses_runs_of_empty_lines']);
    expect(at(site)).toBe('tabby/render.py:4-5');
  });

  it('prefers the CLI test named exactly after the option over tests reaching the behaviour only through a same-file helper (Python)', async () => {
    // The CLI test passes the flag in its own body; the other, in the suite named after the option, goes through `rendered(…)`.
    const direct = { ...withoutFile(PY_CAT, 'tests/test_output.py'), 'tests/test_squash_blank.py': PY_CAT_HELPERS['tests/test_squash_blank.py']! };
    expect(chosen((await focused(direct, '--squash-blank')).plan)).toBe('tests/test_cli.py test_squash_blank');
    // Still so when the CLI test itself passes the flag through its helper `squashed(…)`.
    const { plan } = await focused(PY_CAT_HELPERS, '--squash-blank');
    expect(chosen(plan)).toBe('tests/test_cli.py test_squash_blank');
    // Cited from the helper that passes the flag: the citation shows how the test sets it.
    expect(plan.location).toMatchObject({ start_line: 4, end_line: 11 });
  });

  it('sets back a test that only expects an error when the behaviour site does not reject (TypeScript toThrow)', async () => {
    const { plan, site } = await focused(TS_PAGER, '--page-size');
    expect(chosen(plan)).toBe('test/paging.test.ts splits items into pages');
    // The site is the branch that returns one page, not the `throw` above it.
    expect(at(site)).toBe('src/pages.ts:5-7');
  });

  it("prefers the test file paired with the behaviour's source file over an end-to-end test that passes the flag (Go, JavaScript)", async () => {
    const go = await focused(GO_WALKER, '--follow-links');
    expect(chosen(go.plan)).toBe('internal/handler/handler_test.go TestServeDescendsIntoLinks');
    expect(go.plan.argv).toEqual(['go', 'test', './internal/handler', '-run', '^TestServeDescendsIntoLinks$']);
    expect(at(go.site)).toBe('internal/handler/handler.go:16-18');

    const js = await focused(JS_CHUNKS, '--chunk-size');
    expect(chosen(js.plan)).toBe('test/chunk.spec.js cuts every text into equal pieces');
    expect(at(js.site)).toBe('lib/chunk.js:2-6');
  });

  it('finds a test that passes only the declared short flag, and its plan validates through the declaration it adds to evidence_paths (Python)', async () => {
    const { root, n, plan } = await focused(PY_COUNTER, '--max-count');
    expect(chosen(plan)).toBe('tests/test_cli.py test_stops_early');
    expect(plan.evidence_paths).toEqual(['tests/test_cli.py', 'pyproject.toml', 'counter/cli.py']);
    expect(verdict(root, n, plan)).toBe('ok');
    // Nothing in the test itself names --max-count: the declaration of `-n` beside it is the tie.
    const bare = { ...plan, evidence_paths: plan.evidence_paths.filter((p) => p !== 'counter/cli.py') };
    expect(verdict(root, n, bare)).toMatch(/neither the test nor its evidence files mention the subject/);
  });

  it('sees the option through a vitest helper, sets back titles about its absence, and prefers the call setting fewer other arguments (TypeScript)', async () => {
    // `it('…', commaCase(true))`: the helper passes `--trailing-comma`; `… when unset` comes first in the file but checks the default.
    const helper = await focused(TS_LIST_HELPER, '--trailing-comma');
    expect(chosen(helper.plan)).toBe('test/cli.test.ts ends the list with a comma');
    // From `function commaCase` on, where `--trailing-comma` is passed, through the `it(…)` that calls it.
    expect(helper.plan.location).toMatchObject({ start_line: 4, end_line: 12 });
    expect(verdict(helper.root, helper.n, helper.plan)).toBe('ok');

    // Both call `joinItems` with the option set; the first also sets a separator.
    const calls = await focused(TS_LIST_CALLS, '--trailing-comma');
    expect(chosen(calls.plan)).toBe('test/list.test.ts puts a trailing comma last');
    expect(at(calls.site)).toBe('src/list.ts:7-9');
  });

  it('prefers a run that passes the option over unit tests whose shared helper only builds it among all options (Rust)', async () => {
    // `schedules_the_requested_runs` reaches `render_duration` and spells `time_unit` only through `results(…)`, the
    // helper every scheduler test shares; the integration test sets `--time-unit` itself.
    const { plan, site } = await focused(RUST_STOPWATCH, '--time-unit');
    expect(chosen(plan)).toBe('tests/integration_tests.rs prints_the_time_in_the_requested_unit');
    expect(at(site)).toBe('src/report.rs:4-7');
  });

  it('does not name a test that only sets a name the option decided (NODE_ENV), not the option itself (TypeScript)', async () => {
    const { root } = repo(TS_BUNDLER);
    const n = need('--squeeze-spaces');
    const out = await worker.run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
    expect(out.proposals.map((p) => p.predicate)).not.toContain('focused_tests');
  });

  it('runs an ava test (`test.serial`) by its title, and takes a `--help` listing of every option for no test of one (JavaScript)', async () => {
    const { root, n, plan } = await focused(JS_RELEASE, '--any-branch');
    expect(chosen(plan)).toBe('test/publish.js publishes from a feature branch when anyBranch is set');
    expect(plan.argv).toEqual(['npx', 'ava', 'test/publish.js', '--match', 'publishes from a feature branch when anyBranch is set']);
    expect(verdict(root, n, plan)).toBe('ok');
  });

  it("breaks a tie by the words of the option's help text the title carries (TypeScript, yargs)", async () => {
    const { plan } = await focused(TS_JOBS, '--max-jobs');
    expect(chosen(plan)).toBe('test/run.test.ts spawns as many commands at once as configured');
  });

  it("reads the help text's words from prose and comments, not from names of other arguments", () => {
    expect([...contentWords('Spawns processes; matches boxes and the patches')].sort()).toEqual(['box', 'match', 'patch', 'process', 'spawn']);
    const { ctx } = repo({
      'src/cli.rs': lines(
        'pub struct Cli {', //                                                              1
        '    /// Display the raw markdown instead of rendering it', //                     2
        '    #[arg(short = \'r\', long = "raw", requires = "command_or_file")]', //        3
        '    pub raw: bool,', //                                                          4
        '}', //                                                                           5
      ),
    });
    const declaration: Location = { role: 'primary', path: 'src/cli.rs', symbol: 'raw', start_line: 3, end_line: 4 };
    expect([...helpWords(ctx, declaration, ['raw'])].sort()).toEqual(['display', 'instead', 'markdown', 'rendering']);
  });

  it('sets back a test titled for a refusal (`cannot combine …`) when the behaviour does not refuse (Python)', async () => {
    // The refusal test is shorter and passes the flag as well; it checks the combination is rejected, not the pieces.
    const { plan } = await focused(PY_UPLOAD, '--chunked');
    expect(chosen(plan)).toBe('tests/test_cli.py test_sends_the_body_in_pieces');
  });
});
