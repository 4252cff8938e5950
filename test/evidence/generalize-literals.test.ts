// Options and keys that no parser framework declares: a hand-written
// `args.includes('--flag')`, a table of option records read back by key, and an
// environment variable read through the project's own helper. Each was once an
// `ambiguous` or an empty answer; the rule is what the code does with the
// literal (tests it in a branch, describes it in a record, looks it up, or
// merely passes it on), not where it happens to be spelled.
import { describe, expect, it } from 'vitest';
import { locateImplementation } from '../../src/evidence/locate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();

const TS_HANDWRITTEN: Files = {
  'package.json': '{"name":"pkgtool","devDependencies":{"vitest":"1"}}\n',
  'src/resolve.ts': lines(
    "export function resolve(args: string[], hasLock: boolean): string {", // 1
    "  if (args.includes('--locked-if-any')) {", //                             2
    "    args = args.filter((a) => a !== '--locked-if-any')", //                 3
    "    return hasLock ? 'locked' : 'install'", //                              4
    '  }', //                                                                   5
    "  return 'install'", //                                                    6
    '}', //                                                                     7
  ),
  'src/commands/ci.ts': lines("import { resolve } from '../resolve'", "export const ci = (args: string[], lock: boolean) => resolve([...args, '--locked-if-any'], lock)"),
};

const JS_TABLE: Files = {
  'package.json': '{"name":"stager","devDependencies":{"vitest":"1"}}\n',
  'lib/cli.js': lines(
    'const OPTIONS = [', //                                    1
    "  { short: 'q', flag: 'quiet', type: 'boolean', description: 'no output' },", // 2
    '  {', //                                                  3
    "    flag: 'name-filter',", //                             4
    "    type: 'string',", //                                  5
    "    description: 'only these names',", //                 6
    '  },', //                                                 7
    ']', //                                                    8
    'export function parse(values) {', //                      9
    '  return {', //                                           10
    "    nameFilter: values['name-filter'],", //               11
    '    quiet: !!values.quiet,', //                           12
    '  }', //                                                  13
    '}', //                                                    14
  ),
};

const GO_ENV_HELPER: Files = {
  'go.mod': 'module example.com/tool\n\ngo 1.21\n',
  'cmd/main.go': lines(
    'package main', //                                                           1
    '', //                                                                       2
    'import (', //                                                               3
    '\t"flag"', //                                                               4
    '\t"os"', //                                                                 5
    ')', //                                                                      6
    '', //                                                                       7
    'type options struct{ quietMode bool }', //                                  8
    '', //                                                                       9
    'func lookEnv(key, def string) string {', //                                 10
    '\tif v := os.Getenv(key); v != "" {', //                                    11
    '\t\treturn v', //                                                           12
    '\t}', //                                                                    13
    '\treturn def', //                                                           14
    '}', //                                                                      15
    '', //                                                                       16
    'func setup(fs *flag.FlagSet, opts *options) {', //                          17
    '\tfs.BoolVar(&opts.quietMode, "quiet",', //                                 18
    '\t\tlookEnv("TOOL_QUIET_MODE", "") == "1",', //                             19
    '\t\t"print nothing")', //                                                   20
    '}', //                                                                      21
  ),
};

describe('option literals ranked by what the code does with them', () => {
  it('a branch that tests a hand-written flag is its implementation, not ambiguous with a caller that passes it', () => {
    const { ctx } = repo(TS_HANDWRITTEN);
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--locked-if-any' });
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.payload.locations[0]).toMatchObject({ role: 'primary', path: 'src/resolve.ts', start_line: 2, end_line: 5 });
  });

  it('an option record in a declaration table beats the lookup of its parsed value', () => {
    const { ctx } = repo(JS_TABLE);
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--name-filter' });
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.payload.locations[0]).toMatchObject({ role: 'primary', path: 'lib/cli.js', start_line: 3, end_line: 7 });
  });
});

describe('configuration keys read through a project helper', () => {
  it('finds the environment variable by its literal where the helper is called', () => {
    const { ctx } = repo(GO_ENV_HELPER);
    const r = locateImplementation(ctx, { kind: 'configuration_key', name: 'TOOL_QUIET_MODE' });
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.payload.locations[0]).toMatchObject({ role: 'primary', path: 'cmd/main.go' });
    expect(r.payload.locations[0]!.start_line).toBeLessThanOrEqual(19);
    expect(r.payload.locations[0]!.end_line).toBeGreaterThanOrEqual(19);
  });
});
