// Shapes met in real Rust and Go CLIs that the static worker used to get
// wrong: a Go argument loop that declares options as `case "--width":` arms, a
// flag named through a constant (`fs.Bool(helpFlagName, …)`), an
// environment variable named as `$PAGER_OPTS` inside an error message, and Rust
// flag docs that write `\flag{width}` in a raw string (prose, not a format hole),
// and a shorter test that only touches the flag outranking `test_width` itself.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest } from '../../src/core/need.js';
import type { SubjectKind } from '../../src/core/semantic.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { findFocusedTests } from '../../src/evidence/tests/find.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const GO_PAGER: Files = {
  'go.mod': lines('module example.com/pager', '', 'go 1.22'),
  'src/options.go': lines(
    'package pager', //                                                     1
    '', //                                                                  2
    'import (', //                                                          3
    '\t"errors"', //                                                        4
    '\t"os"', //                                                            5
    ')', //                                                                 6
    '', //                                                                  7
    'type Options struct {', //                                             8
    '\tWidth int', //                                                       9
    '\tWrap  bool', //                                                      10
    '}', //                                                                 11
    '', //                                                                  12
    'func parseOptions(opts *Options, args []string) error {', //           13
    '\tfor i := 0; i < len(args); i++ {', //                                14
    '\t\tswitch args[i] {', //                                              15
    '\t\tcase "-w", "--width":', //                                         16
    '\t\t\ti++', //                                                         17
    '\t\t\topts.Width = len(args[i])', //                                   18
    '\t\tcase "--wrap":', //                                                19
    '\t\t\topts.Wrap = true', //                                            20
    '\t\t}', //                                                             21
    '\t}', //                                                               22
    '\treturn nil', //                                                      23
    '}', //                                                                 24
    '', //                                                                  25
    'func ParseOptions(args []string) (*Options, error) {', //              26
    '\topts := &Options{Width: 80}', //                                     27
    '\tenvArgs := os.Getenv("PAGER_OPTS")', //                              28
    '\tif len(envArgs) > 100 {', //                                         29
    '\t\treturn nil, errors.New("$PAGER_OPTS: too long")', //               30
    '\t}', //                                                               31
    '\treturn opts, parseOptions(opts, append([]string{envArgs}, args...))', // 32
    '}', //                                                                 33
  ),
  'src/help.go': lines(
    'package pager', //                                                     1
    '', //                                                                  2
    'import "flag"', //                                                     3
    '', //                                                                  4
    'const helpFlagName = "help"', //                                       5
    '', //                                                                  6
    '// addHelpFlag registers the help flag.', //                           7
    'func addHelpFlag(fs *flag.FlagSet) {', //                              8
    '\tusage := "help for pager"', //                                        9
    '\tfs.Bool(helpFlagName, false, usage)', //                              10
    '}', //                                                                 11
  ),
  'src/render.go': lines(
    'package pager',
    '',
    'func render(opts *Options, text string) string {',
    '\tif len(text) > opts.Width {',
    '\t\treturn text[:opts.Width]',
    '\t}',
    '\treturn text',
    '}',
  ),
};

const RUST_TRIM: Files = {
  'Cargo.toml': lines('[package]', 'name = "trimmer"', 'version = "0.1.0"'),
  'src/main.rs': lines('mod flags;', '', 'fn main() {', '    let args = flags::Args::default();', '    println!("{}", flags::trim("abc", &args));', '}'),
  'src/flags.rs': lines(
    '#[derive(Default)]', //                                                1
    'pub struct Args {', //                                                 2
    '    pub width: Option<usize>,', //                                     3
    '}', //                                                                 4
    '', //                                                                  5
    'struct Width;', //                                                     6
    '', //                                                                  7
    'impl Width {', //                                                      8
    '    fn name_long(&self) -> &\'static str {', //                        9
    '        "width"', //                                                   10
    '    }', //                                                             11
    '    fn doc_long(&self) -> &\'static str {', //                         12
    '        r"', //                                                        13
    'Trim every line to the given number of columns. Use \\flag{width} with', // 14
    'a value of zero to turn trimming off.', //                             15
    '"', //                                                                 16
    '    }', //                                                             17
    '    fn update(&self, value: usize, args: &mut Args) {', //             18
    '        args.width = if value == 0 { None } else { Some(value) };', // 19
    '    }', //                                                             20
    '}', //                                                                 21
    '', //                                                                  22
    'pub fn trim(text: &str, args: &Args) -> String {', //                  23
    '    match args.width {', //                                            24
    '        Some(w) => text.chars().take(w).collect(),', //                25
    '        None => text.to_string(),', //                                 26
    '    }', //                                                             27
    '}', //                                                                 28
  ),
  'tests/cli.rs': lines(
    'use std::process::Command;',
    '',
    '#[test]',
    'fn test_error_if_width_is_huge() {',
    '    assert!(!Command::new("trimmer").args(["--width", "99999999999999999999"]).status().unwrap().success());',
    '}',
    '',
    '#[test]',
    'fn test_width() {',
    '    let out = Command::new("trimmer").args(["--width", "2"]).output().unwrap();',
    '    assert!(out.status.success());',
    '    assert_eq!(out.stdout, b"ab\\n");',
    '}',
  ),
};

const repo = fixtureRepos();

function certify(root: string, kind: SubjectKind, name: string, payload: unknown): string {
  const n = compileNeed(
    { route: 'locate.implementation', subject: { kind, name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `where is ${name}` },
    lineageDigest(['0'.repeat(40)]),
  );
  const v = validateProposal(new SnapshotReader(root), n, n.required, { predicate: 'implementation_location', payload });
  return v.ok ? 'ok' : v.reasons.join('\n');
}

describe('Go argument loops', () => {
  it('locates an option at the `case "--width":` arm that parses it, carried by the field it assigns', () => {
    const { root, ctx } = repo(GO_PAGER);
    const result = locateImplementation(ctx, { kind: 'cli_option', name: '--width' });
    if (result.kind !== 'found') throw new Error(JSON.stringify(result));
    expect(result.payload.locations[0]).toEqual({ role: 'primary', path: 'src/options.go', symbol: 'Width', start_line: 16, end_line: 18 });
    expect(result.payload.locations.slice(1).map((l) => `${l.path}:${l.start_line}`)).toEqual(expect.arrayContaining(['src/render.go:4', 'src/render.go:5']));
    expect(certify(root, 'cli_option', '--width', result.payload)).toBe('ok');
  });

  it('finds a short option through the same arm', () => {
    const { ctx } = repo(GO_PAGER);
    const result = locateImplementation(ctx, { kind: 'cli_option', name: '-w' });
    expect(result.kind === 'found' && result.payload.locations[0]!.start_line).toBe(16);
  });

  it('cites the function around a flag named through a string constant, where its help text spells it', () => {
    const { root, ctx } = repo(GO_PAGER);
    const result = locateImplementation(ctx, { kind: 'cli_option', name: '--help' });
    if (result.kind !== 'found') throw new Error(JSON.stringify(result));
    expect(result.payload.locations[0]).toMatchObject({ role: 'primary', path: 'src/help.go', start_line: 8, end_line: 11 });
    expect(certify(root, 'cli_option', '--help', result.payload)).toBe('ok');
  });

  it('does not cite `$PAGER_OPTS` inside an error message as a read of the key', () => {
    const { root, ctx } = repo(GO_PAGER);
    const result = locateImplementation(ctx, { kind: 'configuration_key', name: 'PAGER_OPTS' });
    if (result.kind !== 'found') throw new Error(JSON.stringify(result));
    expect(result.payload.locations[0]).toMatchObject({ path: 'src/options.go', start_line: 28 });
    expect(result.payload.locations.some((l) => l.start_line === 30)).toBe(false);
    expect(certify(root, 'configuration_key', 'PAGER_OPTS', result.payload)).toBe('ok');
  });
});

describe('Rust flag documentation', () => {
  it('reads `\\flag{width}` in a raw doc string as prose, not as an unfollowed read', () => {
    const { ctx } = repo(RUST_TRIM);
    const primary: Location = { role: 'primary', path: 'src/flags.rs', symbol: 'Width', start_line: 6, end_line: 21 };
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--width' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.gaps.filter((g) => g.includes('flags.rs:14'))).toEqual([]);
    expect(result.payload.steps.some((s) => s.location.path === 'src/flags.rs' && s.location.start_line === 14)).toBe(false);
    expect(result.payload.steps.map((s) => `${s.role} ${s.location.start_line}`)).toEqual(
      expect.arrayContaining(['carrier 2', 'precedence 19', 'consumer 24']),
    );
  });
});

describe('focused tests named after the subject', () => {
  it('prefers `test_width` over a shorter test whose name only contains the flag', () => {
    const { ctx } = repo(RUST_TRIM);
    const result = findFocusedTests(ctx, { kind: 'cli_option', name: '--width' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.argv).toEqual(['cargo', 'test', '--test', 'cli', 'test_width', '--', '--exact']);
    expect(result.payload.location).toMatchObject({ path: 'tests/cli.rs', start_line: 9, end_line: 13 });
  });
});
