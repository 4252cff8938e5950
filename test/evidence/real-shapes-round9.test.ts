// Ninth round of shapes met in real CLIs. Go programs often declare their
// options as tags on the fields of one struct, which a parser fills by
// reflection: go-flags (`short:"r" long:"raw-output"`), go-arg
// (`arg:"-v,--verbose"`) and kong (`name:"max-height"`, or a field with a
// `help` tag named after the field in kebab case, `NoLimit` → `--no-limit`).
// The field is the declaration and carries the value. Such programs copy the
// parsed options into their own state in one parallel assignment
// (`p.raw, p.indent = opts.Raw, opts.Indent`), as Python does with tuples:
// each target takes the value in its own position. oclif commands declare
// their flags in a table of builders (`'dry-run': Flags.boolean({ char: 'n',
// env: 'SITE_DRY_RUN', default: … })`): the key is the flag, `char` its short
// name, `default` its precedence, and `env` a variable the flag falls back to —
// which reaches the program as the flag's value, so its flow is the flag's.
// A one-word option has no dashed form, yet commander writes its spec as
// `-d, --dot`: that spec is the option's declaration in the flow too (a help
// line, `--cors[=headers] Enable CORS`, is not). Older JavaScript defines
// functions as members, `exports.listFiles = function …`: a value passed to
// one is followed into it; one passed to a logger's method is written out.
// The parameter such a function receives it in is the option's value, so the
// branch it decides there is the option's behaviour site.
// typer names an option after the function parameter it fills
// (`reload_dir: Annotated[…, typer.Option(help=…)] = None` is `--reload-dir`)
// unless the call spells names of its own; the parameter's default applies
// without the flag. A Go flag bound to viper reaches the program through a
// struct field whose tag names the key a decoder fills it from
// (`BackendURL []string \`mapstructure:"backend-url"\``), in any package.
// A key handed to a function named for the environment
// (`get_environment_value("APP_PYTHON")`) is read there; the same variable
// read in two places is one key, located where the function is named for it;
// a dict entry written for a child process (`env["APP_PYTHON"] = path`) reads
// nothing; click's `envvar=` names a variable its option falls back to.
// cleye types its flags with constructors (`type: Boolean`) wherever the table
// is built. A minified line is never a flow site, whichever search meets it.
import { describe, expect, it } from 'vitest';
import { factsOf } from '../../src/evidence/languages/index.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { sitesOnLines } from '../../src/evidence/flow/sites.js';
import { subjectSpellings } from '../../src/evidence/flow/spellings.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { needFor, said, tracedIn } from './fixtures/worker-run.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import type { FocusedTests, ImplementationLocation } from '../../src/core/contracts.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();

/** What the static worker proposes for every obligation of `route` on a configuration key (or an option), in a fixture repository. */
async function proposalsFor(files: Files, key: string, route: 'trace.state-flow' | 'tests.relevant' | 'locate.implementation', kind: 'configuration_key' | 'cli_option' = 'configuration_key') {
  const { root } = repo(files);
  const n = needFor(kind, key, route);
  const out = await createStaticWorker().run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
  const of = <T>(predicate: string) => out.proposals.find((p) => p.predicate === predicate)?.payload as T | undefined;
  return { located: of<ImplementationLocation>('implementation_location'), tests: of<FocusedTests>('focused_tests') };
}

/** The options a file declares, as `framework longs shorts carrier :line`. */
function optionsIn(files: Files, path: string): string[] {
  const { ctx } = repo(files);
  return factsOf(ctx.parsed(path)!).options.map((o) => `${o.framework} ${o.longs.join('|')} ${o.shorts.join('|')} ${o.carrier} :${o.startLine}`);
}

// A JSON printer whose options go-flags fills from struct tags.
const GO_FLAGS: Files = {
  'go.mod': lines('module example.com/jprint', '', 'go 1.22', '', 'require github.com/jessevdk/go-flags v1.6.1'),
  'main.go': lines(
    'package main', //                                                                             1
    '', //                                                                                         2
    'import (', //                                                                                 3
    '\t"fmt"', //                                                                                  4
    '\t"os"', //                                                                                   5
    '', //                                                                                         6
    '\tflags "github.com/jessevdk/go-flags"', //                                                   7
    ')', //                                                                                        8
    '', //                                                                                         9
    'type options struct {', //                                                                    10
    '\tRaw    bool `short:"r" long:"raw-output" description:"output raw strings"`', //              11
    '\tIndent int  `long:"indent" default:"2" description:"number of spaces for indentation"`', //  12
    '}', //                                                                                        13
    '', //                                                                                         14
    'type printer struct {', //                                                                    15
    '\traw    bool', //                                                                            16
    '\tindent int', //                                                                             17
    '}', //                                                                                        18
    '', //                                                                                         19
    'func main() {', //                                                                            20
    '\tvar opts options', //                                                                       21
    '\tif _, err := flags.Parse(&opts); err != nil {', //                                          22
    '\t\tos.Exit(2)', //                                                                           23
    '\t}', //                                                                                      24
    '\tp := &printer{}', //                                                                        25
    '\tp.raw, p.indent = opts.Raw, opts.Indent', //                                                26
    '\tp.print("hello")', //                                                                       27
    '}', //                                                                                        28
    '', //                                                                                         29
    'func (p *printer) print(s string) {', //                                                      30
    '\tif p.raw {', //                                                                             31
    '\t\tfmt.Println(s)', //                                                                       32
    '\t\treturn', //                                                                               33
    '\t}', //                                                                                      34
    '\tfmt.Printf("%q\\n", s)', //                                                                35
    '}', //                                                                                        36
  ),
};

// kong and go-arg: names from `name`, from `arg`, or from the field itself.
const KONG: Files = {
  'go.mod': lines('module example.com/picker', '', 'go 1.22'),
  'cli.go': lines(
    'package main', //                                                                             1
    '', //                                                                                         2
    'type RunCmd struct{}', //                                                                     3
    '', //                                                                                         4
    'type CLI struct {', //                                                                        5
    '\tNoLimit   bool   `help:"Pick unlimited options."`', //                                     6
    '\tHeight    int    `name:"max-height" short:"H" help:"Height of the list."`', //               7
    '\tVerbose   bool   `arg:"-v,--verbose" help:"Say more."`', //                                 8
    '\tHTTPPort  int    `help:"Port to serve on."`', //                                            9
    '\tRun       RunCmd `cmd:"" help:"Run the picker."`', //                                      10
    '\tPaths     []string `arg:"" help:"Files to pick from."`', //                                11
    '\tCacheDir  string `json:"cache_dir"`', //                                                   12
    '}', //                                                                                        13
  ),
};

// A Python program that copies two options into locals in one tuple assignment.
const PY_TUPLE: Files = {
  'walk.py': lines(
    'import argparse', //                                                                          1
    '', //                                                                                         2
    '', //                                                                                         3
    'def walk(root, depth):', //                                                                   4
    '    if depth <= 0:', //                                                                       5
    '        return []', //                                                                        6
    '    return [root]', //                                                                        7
    '', //                                                                                         8
    '', //                                                                                         9
    'def main():', //                                                                              10
    '    parser = argparse.ArgumentParser()', //                                                   11
    '    parser.add_argument("--quiet", action="store_true")', //                                  12
    '    parser.add_argument("--max-depth", type=int, default=3)', //                             13
    '    args = parser.parse_args()', //                                                           14
    '    verbose, limit = not args.quiet, args.max_depth', //                                      15
    '    print(walk(".", limit), verbose)', //                                                     16
  ),
};

describe('options a Go struct declares in its field tags', () => {
  it('locates a go-flags option at its field and follows the field into the program’s own state', async () => {
    const { ctx } = repo(GO_FLAGS);
    const located = locateImplementation(ctx, { kind: 'cli_option', name: '--raw-output' });
    expect(located.kind).toBe('found');
    if (located.kind !== 'found') return;
    expect(located.payload.locations[0]).toMatchObject({ role: 'primary', path: 'main.go', start_line: 11, end_line: 11 });

    const { flow, verdict } = await tracedIn(repo, GO_FLAGS, 'cli_option', '--raw-output');
    const steps = flow.steps.map(said);
    // The tag is where the value enters; the parallel assignment hands `opts.Raw` to `p.raw` alone, and `p.raw` decides how it is printed.
    expect(steps[0]).toMatch(/^producer main\.go:11-11 `options\.Raw` is filled by its tag `short:"r" long:"raw-output"/);
    expect(steps).toContain('transformation main.go:26-26 `opts.Raw` copied into `p.raw` (in `main`)');
    expect(steps.some((s) => s.startsWith('consumer main.go:31-'))).toBe(true);
    expect(steps.join('\n')).not.toContain('p.indent');
    // A switch without a `default` tag has no precedence to show, and the flow says so rather than inventing one.
    expect(verdict).toBe('not contract_complete: missing roles: precedence; not contract_complete: the worker recorded 1 gap(s)');
  });

  it('takes the `default` tag as the value’s precedence', async () => {
    const { flow } = await tracedIn(repo, GO_FLAGS, 'cli_option', '--indent');
    expect(flow.steps.map(said)).toContain('precedence main.go:12-12 `options.Indent` defaults to the tag\'s `default:"2"`');
  });

  it('reads kong’s and go-arg’s names, derives kong’s from the field, and takes no command, positional or JSON field for an option', () => {
    const { ctx } = repo(KONG);
    expect(optionsIn(KONG, 'cli.go')).toEqual([
      'go-struct-tag no-limit  NoLimit :6',
      'go-struct-tag max-height H Height :7',
      'go-struct-tag verbose v Verbose :8',
      'go-struct-tag http-port  HTTPPort :9',
    ]);
    expect(locateImplementation(ctx, { kind: 'cli_option', name: '--run' }).kind).toBe('unresolved');
    // A name only the field spells is still found.
    const located = locateImplementation(ctx, { kind: 'cli_option', name: '--no-limit' });
    expect(located.kind).toBe('found');
    if (located.kind === 'found') expect(located.payload.locations[0]).toMatchObject({ role: 'primary', path: 'cli.go', start_line: 6 });
  });
});

// urfave/cli: one declaration, read by name in each command's action.
const URFAVE: Files = {
  'go.mod': lines('module example.com/ferry', '', 'go 1.22', '', 'require github.com/urfave/cli/v2 v2.27.1'),
  'main.go': lines(
    'package main', //                                                                             1
    '', //                                                                                         2
    'import (', //                                                                                 3
    '\t"fmt"', //                                                                                  4
    '\t"os"', //                                                                                   5
    '', //                                                                                         6
    '\t"github.com/urfave/cli/v2"', //                                                             7
    ')', //                                                                                        8
    '', //                                                                                         9
    'func main() {', //                                                                            10
    '\tapp := &cli.App{', //                                                                       11
    '\t\tFlags: []cli.Flag{', //                                                                   12
    '\t\t\t&cli.StringFlag{Name: "relay", Value: "relay.example.com", EnvVars: []string{"FERRY_RELAY"}},', // 13
    '\t\t},', //                                                                                   14
    '\t\tCommands: []*cli.Command{{Name: "send", Action: send}, {Name: "receive", Action: receive}},', // 15
    '\t}', //                                                                                      16
    '\t_ = app.Run(os.Args)', //                                                                   17
    '}', //                                                                                        18
    '', //                                                                                         19
    'func send(c *cli.Context) error {', //                                                        20
    '\tfmt.Println("sending through", c.String("relay"))', //                                     21
    '\treturn nil', //                                                                             22
    '}', //                                                                                        23
    '', //                                                                                         24
    'func receive(c *cli.Context) error {', //                                                     25
    '\tfmt.Println("receiving through", c.String("relay"))', //                                   26
    '\treturn nil', //                                                                             27
    '}', //                                                                                        28
  ),
};

describe('a Go flag read by name', () => {
  it('is no declaration: urfave/cli’s `c.String("relay")` reads the flag its `StringFlag` declares', () => {
    const { ctx } = repo(URFAVE);
    const located = locateImplementation(ctx, { kind: 'cli_option', name: '--relay' });
    expect(located.kind).toBe('found');
    if (located.kind !== 'found') return;
    expect(located.payload.locations[0]).toMatchObject({ role: 'primary', path: 'main.go', start_line: 13 });
  });
});

describe('a parallel assignment', () => {
  it('hands each value to the target in its own position (Python tuples)', async () => {
    const { flow, verdict } = await tracedIn(repo, PY_TUPLE, 'cli_option', '--max-depth');
    expect(verdict).toBe('ok');
    const steps = flow.steps.map(said).join('\n');
    expect(steps).toContain('`args.max_depth` copied into `limit`');
    expect(steps).not.toContain('copied into `verbose, limit`');
  });
});

// An oclif command with a flag table, its helper module and a mocha suite.
const OCLIF: Files = {
  'package.json': `${JSON.stringify({ name: 'site', scripts: { test: 'mocha --forbid-only "test/**/*.test.ts"' }, dependencies: { '@oclif/core': '^4' }, devDependencies: { mocha: '^10', '@oclif/test': '^4', chai: '^4' } }, null, 2)}\n`,
  'src/commands/deploy.ts': lines(
    "import {Command, Flags} from '@oclif/core'", //                                                                   1
    "import {upload} from '../upload.js'", //                                                                          2
    '', //                                                                                                             3
    'export default class Deploy extends Command {', //                                                                4
    "  static description = 'Deploy the site'", //                                                                     5
    '', //                                                                                                             6
    '  static flags = {', //                                                                                           7
    "    'dry-run': Flags.boolean({char: 'n', description: 'show what would be uploaded', env: 'SITE_DRY_RUN'}),", //   8
    "    region: Flags.string({char: 'r', default: 'eu-west-1', description: 'where to deploy'}),", //                  9
    '  }', //                                                                                                          10
    '', //                                                                                                             11
    '  async run(): Promise<void> {', //                                                                               12
    '    const {flags} = await this.parse(Deploy)', //                                                                 13
    "    const files = ['index.html']", //                                                                             14
    "    if (flags['dry-run']) {", //                                                                                  15
    '      this.log(`would upload ${files.length} files`)', //                                                         16
    '      return', //                                                                                                 17
    '    }', //                                                                                                        18
    '    await upload(files, flags.region)', //                                                                        19
    '  }', //                                                                                                          20
    '}', //                                                                                                            21
  ),
  'src/upload.ts': lines(
    'export async function upload(files: string[], region: string): Promise<void> {',
    '  const endpoint = `https://s3.${region}.example.com`',
    "  for (const f of files) await fetch(`${endpoint}/${f}`, {method: 'PUT'})",
    '}',
  ),
  'test/commands/deploy.test.ts': lines(
    "import {runCommand} from '@oclif/test'",
    "import {expect} from 'chai'",
    '',
    "describe('deploy', () => {",
    "  it('uploads nothing with --dry-run', async () => {",
    "    const {stdout} = await runCommand(['deploy', '--dry-run'])",
    "    expect(stdout).to.contain('would upload')",
    '  })',
    '',
    "  it('deploys to the region given', async () => {",
    "    const {stdout} = await runCommand(['deploy', '--region', 'us-east-1'])",
    "    expect(stdout).to.equal('')",
    '  })',
    '})',
  ),
};

describe('oclif’s flag table', () => {
  it('declares each flag by its key with its `char`, and the flag’s `default` is its precedence', async () => {
    expect(optionsIn(OCLIF, 'src/commands/deploy.ts')).toEqual(['oclif dry-run n dry-run :8', 'oclif region r region :9']);
    const { flow } = await tracedIn(repo, OCLIF, 'cli_option', '--region');
    expect(flow.steps.map(said)).toContain("precedence src/commands/deploy.ts:7-10 `region` defaults to `'eu-west-1'`");
  });

  it('follows a variable the flag falls back to (`env:`) as the flag’s value, to the branch it decides and the flag’s test', async () => {
    const { located, tests } = await proposalsFor(OCLIF, 'SITE_DRY_RUN', 'trace.state-flow');
    expect(located?.locations[0]).toMatchObject({ path: 'src/commands/deploy.ts', start_line: 8 });
    const { flow } = await tracedIn(repo, OCLIF, 'configuration_key', 'SITE_DRY_RUN');
    expect(flow.steps.map(said)).toContain("consumer src/commands/deploy.ts:15-18 `'dry-run'` decides the `if` in `run`");
    expect(tests?.identifier).toBe('uploads nothing with --dry-run');
  });
});

// A commander program with a one-word option.
const COMMANDER_WORD: Files = {
  'package.json': `${JSON.stringify({ name: 'mdcheck', bin: { mdcheck: 'cli.js' } }, null, 2)}\n`,
  'cli.js': lines(
    "const { program } = require('commander');", //          1
    "const { listFiles } = require('./files');", //          2
    '', //                                                   3
    'program', //                                            4
    "  .option('-d, --dot', 'include files in dot folders')", // 5
    "  .option('-q, --quiet', 'print nothing');", //          6
    'program.parse();', //                                   7
    'const options = program.opts();', //                    8
    'console.log(listFiles(program.args, options.dot));', // 9
    "const log = require('./log');", //                     10
    "log.detail('dot: ' + options.dot);", //                11
    "if (process.argv.includes('--help')) console.log('  --dot[=yes] Include dot folders');", // 12
  ),
  'log.js': lines(
    'exports.detail = function (msg) {',
    '  if (process.env.DEBUG) {',
    "    process.stderr.write(msg + '\\n');",
    '  }',
    '};',
  ),
  'files.js': lines(
    'exports.listFiles = function (globs, dot) {', //         1
    '  if (dot) {', //                                        2
    "    return globs.concat(['.github']);", //               3
    '  }', //                                                 4
    '  return globs;', //                                     5
    '};', //                                                  6
  ),
};

describe('a one-word commander option', () => {
  it('is declared in the flow by its spec `-d, --dot`, and followed into the function that decides on it', async () => {
    const { flow } = await tracedIn(repo, COMMANDER_WORD, 'cli_option', '--dot');
    const steps = flow.steps.map(said);
    expect(steps[0]).toBe('producer cli.js:4-6 `-d, --dot` declared by `….option`');
    expect(steps.some((s) => s.startsWith('consumer files.js:2-'))).toBe(true);
    expect(flow.gaps.join('\n')).not.toContain('is not among the traced occurrences');
    expect(steps.join('\n')).not.toContain('cli.js:12');
    expect(steps.join('\n')).not.toContain('log.js');
  });

  it('acts where the parameter it was passed into decides, though no `.dot` is read there', async () => {
    const { located } = await proposalsFor(COMMANDER_WORD, '--dot', 'locate.implementation', 'cli_option');
    expect(located?.locations[0]).toMatchObject({ role: 'primary', path: 'files.js', start_line: 2 });
  });
});

// A typer command: an option named after its parameter, one with names of its own, and an argument.
const TYPER: Files = {
  'serve.py': lines(
    'from pathlib import Path', //                                                               1
    'from typing import Annotated', //                                                           2
    '', //                                                                                       3
    'import typer', //                                                                           4
    '', //                                                                                       5
    'app = typer.Typer()', //                                                                    6
    '', //                                                                                       7
    '', //                                                                                       8
    'def start(root: Path, reload_dirs: list[Path] | None) -> str:', //                          9
    '    if reload_dirs:', //                                                                    10
    '        return f"watching {len(reload_dirs)} directories under {root}"', //                 11
    '    return f"serving {root}"', //                                                           12
    '', //                                                                                       13
    '', //                                                                                       14
    '@app.command()', //                                                                         15
    'def dev(', //                                                                               16
    '    root: Annotated[Path, typer.Argument(help="What to serve")] = Path("."),', //           17
    '    reload_dir: Annotated[list[Path] | None, typer.Option(help="Directories to watch")] = None,', // 18
    '    verbose: bool = typer.Option(False, "--loud", "-l", help="Talk more"),', //             19
    ') -> None:', //                                                                             20
    '    print(start(root, reload_dir), verbose)', //                                           21
  ),
};

describe('typer options', () => {
  it('are named after the parameter they fill unless the call names them, and an argument is no option', () => {
    const { ctx } = repo(TYPER);
    expect(optionsIn(TYPER, 'serve.py')).toEqual(['typer reload-dir  reload_dir :18', 'typer loud l verbose :19']);
    expect(locateImplementation(ctx, { kind: 'cli_option', name: '--root' }).kind).toBe('unresolved');
  });

  it('fill the parameter, whose default applies without the flag, and the value goes on into the function it is passed to', async () => {
    const { flow } = await tracedIn(repo, TYPER, 'cli_option', '--reload-dir');
    const steps = flow.steps.map(said);
    expect(steps[0]).toMatch(/^producer serve\.py:18-18 parameter `reload_dir` of `dev` is filled by `typer\.Option\(help="Directories to watch"\)`/);
    expect(steps).toContain('precedence serve.py:18-18 parameter `reload_dir` defaults to `None` (in `dev`)');
    expect(steps.some((s) => s.startsWith('consumer serve.py:10-'))).toBe(true);
  });
});

// A clap option with an environment fallback whose only test sets the field by name.
const CLAP_ENV: Files = {
  'Cargo.toml': lines('[package]', 'name = "packer"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive", "env"] }'),
  'src/main.rs': lines(
    'use clap::Parser;',
    '',
    '#[derive(Parser, Debug)]',
    'pub struct Cli {',
    '    /// Archive password',
    '    #[arg(short, long, env = "PACKER_PASSWORD")]',
    '    pub password: Option<String>,',
    '}',
    '',
    'pub fn unlock(cli: &Cli) -> bool {',
    '    if let Some(p) = &cli.password {',
    '        return !p.is_empty();',
    '    }',
    '    false',
    '}',
    '',
    'fn main() {',
    '    let cli = Cli::parse();',
    '    println!("{}", unlock(&cli));',
    '}',
    '',
    '#[cfg(test)]',
    'mod tests {',
    '    use super::*;',
    '',
    '    #[test]',
    '    fn unlocks_with_a_password() {',
    '        let cli = Cli { password: Some("secret".into()) };',
    '        assert!(unlock(&cli));',
    '    }',
    '}',
  ),
};

describe('a variable an option falls back to', () => {
  it('takes the test that sets the option’s field by name, as the option does', async () => {
    const { tests } = await proposalsFor(CLAP_ENV, 'PACKER_PASSWORD', 'tests.relevant');
    expect(tests?.identifier).toBe('tests::unlocks_with_a_password');
  });
});

// pflag + viper: the flag's value reaches another package's struct through its mapstructure tag.
const VIPER: Files = {
  'go.mod': lines('module example.com/echo', '', 'go 1.22'),
  'cmd/echo/main.go': lines(
    'package main', //                                                              1
    '', //                                                                          2
    'import (', //                                                                  3
    '\t"example.com/echo/pkg/server"', //                                          4
    '\t"github.com/spf13/pflag"', //                                               5
    '\t"github.com/spf13/viper"', //                                               6
    ')', //                                                                         7
    '', //                                                                          8
    'func main() {', //                                                             9
    '\tfs := pflag.NewFlagSet("echo", pflag.ContinueOnError)', //                  10
    '\tfs.StringSlice("backend-url", []string{}, "backend service URL")', //      11
    '\t_ = viper.BindPFlags(fs)', //                                                12
    '\tvar cfg server.Config', //                                                  13
    '\t_ = viper.Unmarshal(&cfg)', //                                              14
    '\tserver.Run(&cfg)', //                                                       15
    '}', //                                                                         16
  ),
  'pkg/server/server.go': lines(
    'package server', //                                                            1
    '', //                                                                          2
    'import "fmt"', //                                                              3
    '', //                                                                          4
    'type Config struct {', //                                                      5
    '\tBackendURL []string `mapstructure:"backend-url"`', //                        6
    '}', //                                                                         7
    '', //                                                                          8
    'func Run(cfg *Config) {', //                                                   9
    '\tif len(cfg.BackendURL) > 0 {', //                                           10
    '\t\tfmt.Println("forwarding to", cfg.BackendURL[0])', //                      11
    '\t}', //                                                                      12
    '}', //                                                                         13
  ),
};

describe('a Go flag decoded into a struct', () => {
  it('reaches the field whose tag names its key, in another package, and what that field decides', async () => {
    const { flow } = await tracedIn(repo, VIPER, 'cli_option', '--backend-url');
    const steps = flow.steps.map(said);
    expect(steps).toContain('carrier pkg/server/server.go:6-6 `Config.BackendURL` is filled from the key its tag names');
    expect(steps.some((s) => s.startsWith('consumer pkg/server/server.go:10-'))).toBe(true);
  });
});

// Environment reads through a helper, a write for a child process, and a click option's envvar.
const PY_ENV: Files = {
  'pylot/settings.py': lines(
    'import os', //                                                            1
    '', //                                                                     2
    'import click', //                                                         3
    '', //                                                                     4
    'KNOWN = ["PYLOT_PYTHON", "PYLOT_TOKEN"]', //                              5
    '', //                                                                     6
    'def get_environment_value(name):', //                                     7
    '    return os.environ.get(name) or None', //                              8
    '', //                                                                     9
    '', //                                                                     10
    'def describe_interpreter():', //                                          11
    '    return "python " + (get_environment_value("PYLOT_PYTHON") or "?")', // 12
    '', //                                                                     13
    '', //                                                                     14
    'def default_python():', //                                                15
    '    return get_environment_value("PYLOT_PYTHON") or "python3"', //       16
    '', //                                                                     17
    '', //                                                                     18
    'def child_env(path):', //                                                 19
    '    env = dict(os.environ)', //                                           20
    '    env["PYLOT_PYTHON"] = path', //                                       21
    '    return env', //                                                       22
    '', //                                                                     23
    '', //                                                                     24
    'def show_environment():', //                                              25
    '    for name in KNOWN:', //                                               26
    '        print(name, os.environ.get(name))', //                            27
    '', //                                                                     28
    '', //                                                                     29
    '@click.command()', //                                                     30
    '@click.option("--token", envvar="PYLOT_TOKEN", help="API token")', //    31
    'def main(token):', //                                                     32
    '    print(token, default_python(), describe_interpreter())', //          33
  ),
  'pytest.ini': lines('[pytest]', 'testpaths = tests'),
  'tests/test_environment.py': lines(
    'from pylot.settings import show_environment',
    '',
    '',
    'def test_show_environment_lists_known_variables(capsys):',
    '    show_environment()',
    '    assert "PYLOT_PYTHON" in capsys.readouterr().out',
  ),
  'tests/test_settings.py': lines(
    'from pylot.settings import default_python',
    '',
    '',
    'def test_interpreter_from_the_environment(monkeypatch):',
    '    monkeypatch.setenv("PYLOT_PYTHON", "/opt/py")',
    '    assert default_python() == "/opt/py"',
  ),
};

describe('environment variables read through helpers and options', () => {
  it('are read where a function named for the environment takes them, never where a dict entry is written', () => {
    const { ctx } = repo(PY_ENV);
    const keys = factsOf(ctx.parsed('pylot/settings.py')!).configKeys.map((k) => `${k.kind} ${k.key} :${k.startLine}`);
    expect(keys).toEqual(['env-read PYLOT_PYTHON :12', 'env-read PYLOT_PYTHON :16', 'env-read PYLOT_TOKEN :31']);
  });

  it('locates one read of a variable read twice: the one in the function named for it', () => {
    const { ctx } = repo(PY_ENV);
    const located = locateImplementation(ctx, { kind: 'configuration_key', name: 'PYLOT_PYTHON' });
    expect(located.kind).toBe('found');
    if (located.kind === 'found') expect(located.payload.locations[0]).toMatchObject({ role: 'primary', path: 'pylot/settings.py', start_line: 16 });
    const token = locateImplementation(ctx, { kind: 'configuration_key', name: 'PYLOT_TOKEN' });
    expect(token.kind).toBe('found');
    if (token.kind === 'found') expect(token.payload.locations[0]).toMatchObject({ path: 'pylot/settings.py', start_line: 31 });
  });

  it('take the test that calls the function reading the variable, over one that only spells it', async () => {
    const { tests } = await proposalsFor(PY_ENV, 'PYLOT_PYTHON', 'tests.relevant');
    expect(tests?.identifier).toBe('test_interpreter_from_the_environment');
  });

  it('takes cleye’s constructor-typed flag records, wherever their table is built', () => {
    const cleye: Files = {
      'package.json': `${JSON.stringify({ name: 'runner', dependencies: { cleye: '^1' } })}\n`,
      'src/flags.ts': lines(
        'export const runFlags = {',
        "  noCache: { type: Boolean, description: 'Disable caching' },",
        "  tsconfig: { type: String, description: 'Custom tsconfig path' },",
        "  label: { kind: 'text', description: 'Not a flag' },",
        '}',
      ),
    };
    expect(optionsIn(cleye, 'src/flags.ts')).toEqual(['meow no-cache  noCache :2', 'meow tsconfig  tsconfig :3']);
  });

  it('never takes a minified line for a flow site', () => {
    const { ctx } = repo({ 'dist/app.min.js': lines(`var a=1;${'x+=1;'.repeat(300)}function f(width){return width*2}`, 'function g(width) { return width; }') });
    const spellings = subjectSpellings({ kind: 'cli_option', name: '--width' })!;
    expect(sitesOnLines(ctx.parsed('dist/app.min.js')!, [1, 2], spellings).map((s) => s.line)).toEqual([2, 2]);
  });
});
