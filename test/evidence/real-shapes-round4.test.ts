// Fourth round of Rust shapes met in real CLIs: a parsed value stored straight
// into a settings field, an enum variant that carries it and `match` arms that
// select on the variant, a `for` loop bounded by it, `Some(x)` wrapping it on
// its way into another local, a clap builder `app` that must not be mistaken
// for the value, a struct-literal field filled from the parser, module and type
// names spelled like the option, and `match` arms that rebind it.
import { describe, expect, it } from 'vitest';
import { AnalysisContext } from '../../src/evidence/context.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const RUST_PINGER: Files = {
  'Cargo.toml': lines('[package]', 'name = "pinger"', 'version = "0.1.0"', 'edition = "2021"'),
  'src/cli.rs': lines(
    'use clap::{Arg, ArgMatches, Command};', //                                  1
    '', //                                                                       2
    'pub fn build() -> Command {', //                                            3
    '    Command::new("pinger")', //                                             4
    '        .arg(Arg::new("retries").long("retries"))', //                      5
    '        .arg(Arg::new("attempts").long("attempts"))', //                    6
    '}', //                                                                      7
  ),
  'src/settings.rs': lines(
    'use clap::ArgMatches;', //                                                  1
    '', //                                                                       2
    'pub struct Settings {', //                                                  3
    '    pub retry_count: u32,', //                                              4
    '    pub max_tries: Option<u32>,', //                                        5
    '}', //                                                                      6
    '', //                                                                       7
    'impl Default for Settings {', //                                            8
    '    fn default() -> Self {', //                                             9
    '        Settings { retry_count: 2, max_tries: None }', //                   10
    '    }', //                                                                  11
    '}', //                                                                      12
    '', //                                                                       13
    'fn number(m: &ArgMatches, name: &str) -> Option<u32> {', //                 14
    '    m.get_one::<u32>(name).copied()', //                                    15
    '}', //                                                                      16
    '', //                                                                       17
    'pub fn from_matches(m: &ArgMatches) -> Settings {', //                      18
    '    let mut settings = Settings::default();', //                            19
    '    settings.retry_count = number(m, "retries").unwrap_or(2);', //          20
    '    let mut limit = None;', //                                              21
    '    if let Some(attempts) = number(m, "attempts") {', //                    22
    '        limit = Some(attempts);', //                                        23
    '    }', //                                                                  24
    '    if limit.is_some() {', //                                               25
    '        settings.max_tries = limit;', //                                    26
    '    }', //                                                                  27
    '    settings', //                                                           28
    '}', //                                                                      29
  ),
  'src/run.rs': lines(
    'use crate::settings::Settings;', //                                         1
    '', //                                                                       2
    'pub enum Round {', //                                                       3
    '    First,', //                                                             4
    '    Retries(u32),', //                                                      5
    '}', //                                                                      6
    '', //                                                                       7
    'fn label(round: &Round) -> &str {', //                                      8
    '    match round {', //                                                      9
    '        Round::First => "first",', //                                       10
    '        Round::Retries(0) => "no retry",', //                               11
    '        Round::Retries(_) => "retry",', //                                  12
    '    }', //                                                                  13
    '}', //                                                                      14
    '', //                                                                       15
    'pub fn run(settings: &Settings) -> Vec<String> {', //                      16
    '    let mut out = vec![label(&Round::First).to_string()];', //              17
    '    for n in 0..settings.retry_count {', //                                 18
    '        let round = Round::Retries(n);', //                                 19
    '        out.push(label(&round).to_string());', //                           20
    '    }', //                                                                  21
    '    out', //                                                                22
    '}', //                                                                      23
  ),
  'src/main.rs': lines('mod cli;', 'mod run;', 'mod settings;', '', 'fn main() {', '    let s = settings::from_matches(&cli::build().get_matches());', '    run::run(&s);', '}'),
};

const RUST_VIEWER: Files = {
  'Cargo.toml': lines('[package]', 'name = "viewer"', 'version = "0.1.0"', 'edition = "2021"'),
  'src/clap_app.rs': lines(
    'use clap::{Arg, Command};', //                                              1
    '', //                                                                       2
    'pub fn build_app(with_cache: bool) -> Command {', //                        3
    '    let mut app = Command::new("viewer")', //                               4
    '        .arg(Arg::new("indent").long("indent"));', //                        5
    '    app = app.arg(Arg::new("plain").long("plain"));', //                    6
    '    if with_cache {', //                                                    7
    '        app.subcommand(Command::new("cache"))', //                          8
    '    } else {', //                                                           9
    '        app', //                                                            10
    '    }', //                                                                  11
    '}', //                                                                      12
  ),
  'src/config.rs': lines(
    'use clap::ArgMatches;', //                                                  1
    '', //                                                                       2
    'pub struct Config {', //                                                    3
    '    pub indent_width: usize,', //                                           4
    '}', //                                                                      5
    '', //                                                                       6
    'pub fn config(m: &ArgMatches) -> Config {', //                              7
    '    Config {', //                                                           8
    '        indent_width: m', //                                                9
    '            .get_one::<String>("indent")', //                               10
    '            .and_then(|t| t.parse().ok())', //                              11
    '            .unwrap_or(4),', //                                             12
    '    }', //                                                                  13
    '}', //                                                                      14
  ),
  'src/printer.rs': lines(
    'use crate::config::Config;', //                                             1
    '', //                                                                       2
    'pub fn pad(config: &Config, line: &str) -> String {', //                   3
    '    if config.indent_width > 0 {', //                                       4
    '        return format!("{:w$}{}", "", line, w = 4);', //                    5
    '    }', //                                                                  6
    '    line.to_string()', //                                                   7
    '}', //                                                                      8
  ),
  'src/indent.rs': lines(
    'pub struct Indent(pub usize);', //                                          1
    '', //                                                                       2
    'pub enum Shape { Spaces, Tabs }', //                                        3
    '', //                                                                       4
    'pub fn shape_of(i: &Indent) -> Shape {', //                                 5
    '    if i.0 > 8 { Shape::Tabs } else { Shape::Spaces }', //                  6
    '}', //                                                                      7
  ),
  'src/render.rs': lines(
    'use crate::indent::{self, Indent};', //                                     1
    '', //                                                                       2
    'pub fn render(width: Indent) -> indent::Shape {', //                        3
    '    indent::shape_of(&width)', //                                           4
    '}', //                                                                      5
  ),
  'src/align.rs': lines(
    'pub fn align(opts: &Opts) -> usize {', //                                  1
    '    match opts.indent.filter(|w| *w < 80) {', //                            2
    '        Some(indent) => indent,', //                                        3
    '        None => 0,', //                                                     4
    '    }', //                                                                  5
    '}', //                                                                      6
  ),
  'src/main.rs': lines('mod align;', 'mod clap_app;', 'mod config;', 'mod indent;', 'mod printer;', 'mod render;', '', 'fn main() {', '    let m = clap_app::build_app(false).get_matches();', '    printer::pad(&config::config(&m), "x");', '}'),
};

const repo = fixtureRepos();
const context = (files: Files): AnalysisContext => repo(files).ctx;

type Flow = { steps: readonly { role: string; location: { path: string; start_line: number; end_line: number } }[]; gaps: readonly string[] };

/** Roles of the steps that start at `path:line` (an enclosing `if` or `for` is a step of its own). */
const rolesAt = (flow: Flow, path: string, line: number) =>
  flow.steps.filter((s) => s.location.path === path && s.location.start_line === line).map((s) => s.role);

function trace(ctx: AnalysisContext, name: string): Flow {
  const located = locateImplementation(ctx, { kind: 'cli_option', name });
  if (located.kind !== 'found') throw new Error(JSON.stringify(located));
  const result = traceFlow(ctx, { kind: 'cli_option', name }, located.payload.locations[0]!);
  if (result.kind !== 'found') throw new Error(JSON.stringify(result));
  return result.payload;
}

describe('Rust values parsed straight into a settings field', () => {
  it('follows `settings.retry_count = number(m, "retries")` to the field, its default and the loop it bounds', () => {
    const flow = trace(context(RUST_PINGER), '--retries');
    expect(rolesAt(flow, 'src/settings.rs', 20)).toContain('producer');
    expect(rolesAt(flow, 'src/settings.rs', 3)).toEqual(['carrier']);
    expect(rolesAt(flow, 'src/settings.rs', 10)).toEqual(['precedence']);
    expect(rolesAt(flow, 'src/run.rs', 18)).toContain('consumer');
  });
});

describe('Rust enum variants that carry the value', () => {
  it('accounts for the variant declaration, its construction and the `match` arms that select on it', () => {
    const flow = trace(context(RUST_PINGER), '--retries');
    expect(rolesAt(flow, 'src/run.rs', 5)).toEqual(['carrier']);
    expect(rolesAt(flow, 'src/run.rs', 11)).toEqual(['consumer']);
    expect(rolesAt(flow, 'src/run.rs', 12)).toEqual(['consumer']);
    expect(rolesAt(flow, 'src/run.rs', 19)).toEqual(['transformation']);
    expect(flow.gaps).toEqual([]);
  });
});

describe('Rust `Some(x)` around a pattern-bound value', () => {
  it('treats `limit = Some(attempts)` as a copy into `limit`, not a call it cannot enter', () => {
    const flow = trace(context(RUST_PINGER), '--attempts');
    expect(rolesAt(flow, 'src/settings.rs', 23)).toEqual(['transformation']);
    expect(rolesAt(flow, 'src/settings.rs', 25)).toEqual(['consumer']);
    expect(flow.gaps.filter((g) => g.includes('not followed into the callee'))).toEqual([]);
  });
});

describe('Rust clap builders and struct literals', () => {
  it('does not follow the builder `app` an option is declared into, since the builder is not the value', () => {
    const flow = trace(context(RUST_VIEWER), '--indent');
    const cited = (line: number) => flow.steps.some((s) => s.location.path === 'src/clap_app.rs' && s.location.start_line <= line && line <= s.location.end_line);
    expect(cited(5)).toBe(true);
    for (const line of [6, 7, 8, 10]) expect(cited(line)).toBe(false);
    expect(flow.gaps.filter((g) => g.includes('src/clap_app.rs'))).toEqual([]);
  });

  it('follows a value read into a struct-literal field (`indent_width: m.get_one("indent")…`) to where it is used', () => {
    const flow = trace(context(RUST_VIEWER), '--indent');
    expect(rolesAt(flow, 'src/config.rs', 3)).toEqual(['carrier']);
    expect(rolesAt(flow, 'src/printer.rs', 4)).toEqual(['consumer']);
  });
});

describe('Rust module and type names spelled like the option', () => {
  it('does not report `use`, `mod`, type annotations or path qualifiers named `indent` as unexplained reads', () => {
    const flow = trace(context(RUST_VIEWER), '--indent');
    const cites = (path: string) => flow.steps.some((s) => s.location.path === path) || flow.gaps.some((g) => g.includes(path));
    expect(cites('src/render.rs')).toBe(false);
    expect(cites('src/main.rs')).toBe(false);
    expect(flow.gaps.filter((g) => g.includes('not accounted for'))).toEqual([]);
  });
});

describe('Rust `match` arms that rebind the carrier', () => {
  it('accounts for `Some(indent) => indent` as a binding and the value the arm yields', () => {
    const flow = trace(context(RUST_VIEWER), '--indent');
    const covering = flow.steps.filter((s) => s.location.path === 'src/align.rs' && s.location.start_line <= 3 && 3 <= s.location.end_line);
    expect(covering.map((s) => s.role)).toEqual(['transformation']);
    expect(flow.gaps.filter((g) => g.includes('src/align.rs'))).toEqual([]);
  });
});
