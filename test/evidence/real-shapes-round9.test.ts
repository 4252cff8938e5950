// Ninth round of shapes met in real CLIs. Go programs often declare their
// options as tags on the fields of one struct, which a parser fills by
// reflection: go-flags (`short:"r" long:"raw-output"`), go-arg
// (`arg:"-v,--verbose"`) and kong (`name:"max-height"`, or a field with a
// `help` tag named after the field in kebab case, `NoLimit` → `--no-limit`).
// The field is the declaration and carries the value. Such programs copy the
// parsed options into their own state in one parallel assignment
// (`p.raw, p.indent = opts.Raw, opts.Indent`), as Python does with tuples:
// each target takes the value in its own position.
import { describe, expect, it } from 'vitest';
import { factsOf } from '../../src/evidence/languages/index.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { said, tracedIn } from './fixtures/worker-run.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();

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
    const options = factsOf(ctx.parsed('cli.go')!).options.map((o) => `${o.framework} ${o.longs.join('|')} ${o.shorts.join('|')} ${o.carrier} :${o.startLine}`);
    expect(options).toEqual([
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
