// Second round of shapes met in real CLIs: a Go renderer test that only uses
// the common word `height`, a test named after a flag losing to one that passes
// it, a Rust accessor whose tail expression combines two flags, a value handed
// to a builder method named after it, a local bound from an environment read,
// and Python settings kept on a `Context` class.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { findFocusedTests } from '../../src/evidence/tests/find.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const GO_VIEWER: Files = {
  'go.mod': lines('module example.com/viewer', '', 'go 1.22'),
  'src/options.go': lines(
    'package viewer',
    '',
    'type Options struct {',
    '\tHeight int',
    '}',
    '',
    'func parse(opts *Options, args []string) {',
    '\tfor i := 0; i < len(args); i++ {',
    '\t\tswitch args[i] {',
    '\t\tcase "--height":',
    '\t\t\topts.Height = len(args[i+1])',
    '\t\t}',
    '\t}',
    '}',
  ),
  'src/tui/screen_test.go': lines(
    'package tui',
    '',
    'import "testing"',
    '',
    'func TestScreenClears(t *testing.T) {',
    '\tr := newScreen()',
    '\tr.height = 24',
    '}',
  ),
  'src/options_test.go': lines(
    'package viewer',
    '',
    'import "testing"',
    '',
    'func TestParseLayout(t *testing.T) {',
    '\topts := &Options{}',
    '\tparse(opts, []string{"--height", "40%", "--reverse"})',
    '\tif opts.Height == 0 {',
    '\t\tt.Fatal("unset")',
    '\t}',
    '}',
  ),
};

const PY_FORMATTER: Files = {
  'pyproject.toml': lines('[project]', 'name = "fmt"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'src/fmt/__init__.py': lines(
    'import click',
    '',
    '@click.command()',
    '@click.option("--line-length", type=int, default=88)',
    'def main(line_length):',
    '    print(line_length)',
  ),
  'src/fmt/server.py': lines('class Client:', '    def __init__(self, line_length=88):', '        self.line_length = line_length'),
  'tests/test_server.py': lines('from fmt.server import Client', '', 'def test_line_length():', '    assert Client(line_length=10).line_length == 10'),
  'tests/test_cli.py': lines(
    'from click.testing import CliRunner',
    'import fmt',
    '',
    'def test_piping():',
    '    args = ["-", "--fast", "--line-length=88"]',
    '    result = CliRunner().invoke(fmt.main, args, input="x = 1\\n")',
    '    assert result.exit_code == 0',
  ),
};

const RUST_FINDER: Files = {
  'Cargo.toml': lines('[package]', 'name = "finder"', 'version = "0.1.0"', 'edition = "2021"'),
  'src/cli.rs': lines(
    'use clap::Parser;', //                                              1
    '', //                                                               2
    '#[derive(Parser)]', //                                              3
    'pub struct Opts {', //                                              4
    '    #[arg(long)]', //                                               5
    '    max_depth: Option<usize>,', //                                  6
    '    #[arg(long)]', //                                               7
    '    exact_depth: Option<usize>,', //                                8
    '}', //                                                              9
    '', //                                                               10
    'impl Opts {', //                                                    11
    '    pub fn max_depth(&self) -> Option<usize> {', //                 12
    '        self.max_depth.or(self.exact_depth)', //                    13
    '    }', //                                                          14
    '}', //                                                              15
  ),
  'src/config.rs': lines('pub struct Config {', '    pub max_depth: Option<usize>,', '}'),
  'src/main.rs': lines(
    'mod cli;', //                                                       1
    'mod config;', //                                                    2
    'mod walk;', //                                                      3
    '', //                                                               4
    'fn main() {', //                                                    5
    '    let opts = cli::Opts::parse();', //                             6
    '    let config = config::Config { max_depth: opts.max_depth() };', // 7
    '    walk::walk(&config);', //                                       8
    '}', //                                                              9
  ),
  'src/walk.rs': lines(
    'use crate::config::Config;', //                                     1
    '', //                                                               2
    'pub fn walk(config: &Config) {', //                                 3
    '    let mut builder = WalkBuilder::new(".");', //                   4
    '    builder', //                                                    5
    '        .follow_links(false)', //                                   6
    '        .max_depth(config.max_depth);', //                          7
    '    builder.build();', //                                           8
    '}', //                                                              9
  ),
  'src/rc.rs': lines(
    'use std::path::PathBuf;', //                                        1
    '', //                                                               2
    'pub fn rc_file() -> Option<PathBuf> {', //                          3
    '    let rc_path = match std::env::var_os("FINDER_RC_PATH") {', //   4
    '        None => return None,', //                                   5
    '        Some(p) => PathBuf::from(p),', //                           6
    '    };', //                                                         7
    '    if rc_path.exists() {', //                                      8
    '        return Some(rc_path);', //                                  9
    '    }', //                                                          10
    '    None', //                                                       11
    '}', //                                                              12
  ),
};

const PY_CONTEXT: Files = {
  'src/app/core.py': lines(
    'class Context:', //                                                 1
    '    auto_envvar_prefix: str | None', //                             2
    '', //                                                               3
    '    def __init__(self, auto_envvar_prefix=None):', //               4
    '        self.auto_envvar_prefix = auto_envvar_prefix', //           5
    '', //                                                               6
    '    def lookup(self, name):', //                                    7
    '        if self.auto_envvar_prefix is None:', //                    8
    '            return None', //                                        9
    '        return f"{self.auto_envvar_prefix}_{name.upper()}"', //     10
  ),
};

const repo = fixtureRepos();
const context = (files: Files): AnalysisContext => repo(files).ctx;

describe('focused tests for a CLI option', () => {
  it('does not take a test that only uses the common word `height` on another object', () => {
    const ctx = context(GO_VIEWER);
    const primary: Location = { role: 'primary', path: 'src/options.go', symbol: 'Height', start_line: 10, end_line: 11 };
    const result = findFocusedTests(ctx, { kind: 'cli_option', name: '--height' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.argv).toEqual(['go', 'test', './src', '-run', '^TestParseLayout$']);
    const without = context({ ...GO_VIEWER, 'src/options_test.go': lines('package viewer') });
    expect(findFocusedTests(without, { kind: 'cli_option', name: '--height' }, primary).kind).toBe('unresolved');
  });

  it('ranks a test that passes the flag on a command line above one merely named after it', () => {
    const ctx = context(PY_FORMATTER);
    const result = findFocusedTests(ctx, { kind: 'cli_option', name: '--line-length' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.location).toMatchObject({ path: 'tests/test_cli.py', symbol: 'test_piping' });
  });
});

describe('Rust flows through accessors and builders', () => {
  it('counts an accessor tail that combines two flags as precedence and a builder method named after the flag as its consumer', () => {
    const ctx = context(RUST_FINDER);
    const primary: Location = { role: 'primary', path: 'src/cli.rs', symbol: 'max_depth', start_line: 5, end_line: 6 };
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--max-depth' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const steps = result.payload.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}`);
    expect(steps).toEqual(expect.arrayContaining(['precedence src/cli.rs:13', 'consumer src/walk.rs:7', 'transformation src/main.rs:7']));
    expect(result.payload.gaps).toEqual([]);
  });

  it('follows the local bound from an environment read to where it decides behaviour', () => {
    const ctx = context(RUST_FINDER);
    const result = traceFlow(ctx, { kind: 'configuration_key', name: 'FINDER_RC_PATH' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    const steps = result.payload.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}`);
    expect(steps).toEqual(expect.arrayContaining(['producer src/rc.rs:4', 'carrier src/rc.rs:4', 'consumer src/rc.rs:8']));
    expect(result.payload.gaps.filter((g) => g.includes('not accounted for'))).toEqual([]);
  });
});

describe('Python settings on a context object', () => {
  it('locates an attribute of `Context` as a configuration key, once per field', () => {
    const ctx = context(PY_CONTEXT);
    const result = locateImplementation(ctx, { kind: 'configuration_key', name: 'auto_envvar_prefix' });
    if (result.kind !== 'found') throw new Error(JSON.stringify(result));
    expect(result.payload.locations[0]).toMatchObject({ role: 'primary', path: 'src/app/core.py', start_line: 2 });
  });
});
