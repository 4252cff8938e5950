// Following an option's or key's value past the places that spell it: into a
// callee's parameter (only when the callee is unique in the repository),
// through fields and locals to the branch it decides, into a library call's
// bound result, into a Go flag's destination and another package's field, from
// `v, ok := os.LookupEnv(…)` and into a package variable. Each fixture is a
// small invented tool; the line numbers the tests assert are marked beside the
// fixture lines. Declared carriers, defaults and namesakes are in
// flow-following-declared.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Location, RuntimeFlow } from '../../src/core/contracts.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';
import { at, inFile, said, tracedIn, type ValueKind } from './fixtures/worker-run.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();
const traced = (files: Files, kind: ValueKind, name: string) => tracedIn(repo, files, kind, name);
const rangeText = (root: string, l: Location) => readFileSync(join(root, l.path), 'utf8').split('\n').slice(l.start_line - 1, l.end_line).join('\n');
const notFollowed = (flow: RuntimeFlow) => flow.gaps.filter((g) => g.includes('is not followed into the callee'));

// --max-items: clap field → `Meter::new(…, opts.max_items)` → parameter `cap` → field `budget` → local `left` → `if`.
const RUST_METER: Files = {
  'Cargo.toml': lines('[package]', 'name = "tally"', 'version = "0.1.0"', 'edition = "2021"', '', '[dependencies]', 'clap = { version = "4", features = ["derive"] }'),
  'src/main.rs': lines(
    'use clap::Parser;', //                                              1
    'mod meter;', //                                                     2
    '', //                                                               3
    '#[derive(Parser)]', //                                              4
    'struct Opts {', //                                                  5
    '    #[arg(long, default_value_t = 10)]', //                         6
    '    max_items: usize,', //                                          7
    '    #[arg(long)]', //                                               8
    '    label: String,', //                                             9
    '}', //                                                              10
    '', //                                                               11
    'fn main() {', //                                                    12
    '    let opts = Opts::parse();', //                                  13
    '    let mut m = meter::Meter::new(opts.label.clone(), 2, opts.max_items);', // 14
    '    m.tick();', //                                                  15
    '}', //                                                              16
  ),
  'src/meter.rs': lines(
    'pub struct Meter {', //                                             1
    '    name: String,', //                                              2
    '    step: usize,', //                                               3
    '    budget: usize,', //                                             4
    '    used: usize,', //                                               5
    '}', //                                                              6
    '', //                                                               7
    'impl Meter {', //                                                   8
    '    pub fn new(name: String, step: usize, cap: usize) -> Meter {', // 9
    '        Meter { name, step, budget: cap, used: 0 }', //             10
    '    }', //                                                          11
    '', //                                                               12
    '    pub fn tick(&mut self) {', //                                   13
    '        let left = self.budget - self.used;', //                    14
    '        if left < self.step {', //                                  15
    '            println!("{} is full", self.name);', //                 16
    '            return;', //                                            17
    '        }', //                                                      18
    '        self.used += self.step;', //                                19
    '    }', //                                                          20
    '}', //                                                              21
  ),
};

// --max-items handed by position to a Python function whose parameter is named otherwise.
const PY_SIFTER: Files = {
  'pyproject.toml': lines('[project]', 'name = "sifter"'),
  'sifter/__init__.py': '',
  'sifter/cli.py': lines(
    'import argparse', //                                                1
    '', //                                                               2
    'from sifter.walk import collect', //                                3
    '', //                                                               4
    '', //                                                               5
    'def main(argv=None):', //                                           6
    '    parser = argparse.ArgumentParser()', //                         7
    '    parser.add_argument("--max-items", type=int, default=5)', //    8
    '    parser.add_argument("roots", nargs="*")', //                    9
    '    args = parser.parse_args(argv)', //                             10
    '    found = collect(args.roots, False, args.max_items)', //         11
    '    print("\\n".join(found))', //                                   12
  ),
  'sifter/walk.py': lines(
    'import os', //                                                      1
    '', //                                                               2
    '', //                                                               3
    'def collect(roots, verbose=False, cap=None):', //                   4
    '    out = []', //                                                   5
    '    for root in roots:', //                                         6
    '        out.extend(sorted(os.listdir(root)))', //                   7
    '    if cap is not None and len(out) > cap:', //                     8
    '        out = out[:cap]', //                                        9
    '    return out', //                                                 10
  ),
};

// --keep-last: printed (a builtin), then handed to `prune`, which two modules define.
const PY_ROTOR: Files = {
  'pyproject.toml': lines('[project]', 'name = "rotor"'),
  'rotor/__init__.py': '',
  'rotor/cli.py': lines(
    'import argparse', //                                                1
    '', //                                                               2
    'from rotor.disk import prune', //                                   3
    '', //                                                               4
    '', //                                                               5
    'def main(argv=None):', //                                           6
    '    parser = argparse.ArgumentParser()', //                         7
    '    parser.add_argument("--keep-last", type=int, default=3)', //    8
    '    args = parser.parse_args(argv)', //                             9
    '    print("keeping", args.keep_last)', //                           10
    '    return prune(["a.log", "b.log"], args.keep_last)', //           11
  ),
  'rotor/disk.py': lines(
    'def prune(paths, count):', //                                       1
    '    if len(paths) > count:', //                                     2
    '        return paths[count:]', //                                   3
    '    return []', //                                                  4
  ),
  'rotor/memory.py': lines(
    'def prune(entries, count):', //                                     1
    '    while len(entries) > count:', //                                2
    '        entries.pop(0)', //                                         3
    '    return entries', //                                             4
  ),
};

// --cache-dir: a Go flag whose value goes through a library call (`pathkit` is not in the repository).
const GO_STASH: Files = {
  'go.mod': lines('module example.com/stash', '', 'go 1.22', '', 'require example.com/pathkit v1.0.0'),
  'main.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'import (', //                                                       3
    '\t"flag"', //                                                       4
    '\t"fmt"', //                                                        5
    '\t"os"', //                                                         6
    '', //                                                               7
    '\t"example.com/pathkit"', //                                        8
    ')', //                                                              9
    '', //                                                               10
    'type options struct {', //                                          11
    '\tcacheDir string', //                                              12
    '}', //                                                              13
    '', //                                                               14
    'func main() {', //                                                  15
    '\to := options{}', //                                               16
    '\tflag.StringVar(&o.cacheDir, "cache-dir", "", "where to keep blobs")', // 17
    '\tflag.Parse()', //                                                 18
    '\tfmt.Println("cache:", o.cacheDir)', //                            19
    '\tdir, err := pathkit.Expand(o.cacheDir)', //                       20
    '\tif err != nil {', //                                              21
    '\t\tos.Exit(2)', //                                                 22
    '\t}', //                                                            23
    '\tif dir != "" {', //                                               24
    '\t\t_ = os.MkdirAll(dir, 0o755)', //                                25
    '\t}', //                                                            26
    '}', //                                                              27
  ),
};

// APP_QUIET: the default of a flag bound into `opts.quiet`, copied into another package's exported field.
const GO_BEACON: Files = {
  'go.mod': lines('module example.com/beacon', '', 'go 1.22'),
  'cmd/beacon/main.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'import (', //                                                       3
    '\t"flag"', //                                                       4
    '\t"os"', //                                                         5
    '', //                                                               6
    '\t"example.com/beacon/internal/report"', //                         7
    ')', //                                                              8
    '', //                                                               9
    'type options struct {', //                                          10
    '\tquiet bool', //                                                   11
    '}', //                                                              12
    '', //                                                               13
    'func lookEnv(key string) string { return os.Getenv(key) }', //      14
    '', //                                                               15
    'func main() {', //                                                  16
    '\tvar opts options', //                                             17
    '\tfs := flag.NewFlagSet("beacon", flag.ExitOnError)', //            18
    '\tfs.BoolVar(&opts.quiet, "quiet", lookEnv("APP_QUIET") == "1", "print only failures")', // 19
    '\t_ = fs.Parse(os.Args[1:])', //                                    20
    '\treport.Print(report.Settings{Quiet: opts.quiet}, []string{"ok"})', // 21
    '}', //                                                              22
  ),
  'internal/report/report.go': lines(
    'package report', //                                                 1
    '', //                                                               2
    'import "fmt"', //                                                   3
    '', //                                                               4
    'type Settings struct {', //                                         5
    '\tQuiet bool', //                                                   6
    '}', //                                                              7
    '', //                                                               8
    'func Print(s Settings, lines []string) {', //                       9
    '\tif s.Quiet {', //                                                 10
    '\t\treturn', //                                                     11
    '\t}', //                                                            12
    '\tfor _, l := range lines {', //                                    13
    '\t\tfmt.Println(l)', //                                             14
    '\t}', //                                                            15
    '}', //                                                              16
  ),
};

// APP_CFG: `v, ok := os.LookupEnv(…)`, then `o.cfgPath = v`, read by a method in another file.
const GO_DIAL: Files = {
  'go.mod': lines('module example.com/dial', '', 'go 1.22'),
  'main.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'import (', //                                                       3
    '\t"fmt"', //                                                        4
    '\t"os"', //                                                         5
    ')', //                                                              6
    '', //                                                               7
    'type options struct {', //                                          8
    '\tcfgPath string', //                                               9
    '\tretries int', //                                                  10
    '}', //                                                              11
    '', //                                                               12
    'func (o *options) fromEnv() {', //                                  13
    '\tv, ok := os.LookupEnv("APP_CFG")', //                             14
    '\tif ok {', //                                                      15
    '\t\to.cfgPath = v', //                                              16
    '\t}', //                                                            17
    '}', //                                                              18
    '', //                                                               19
    'func main() {', //                                                  20
    '\to := &options{retries: 3}', //                                    21
    '\to.fromEnv()', //                                                  22
    '\tfmt.Println(o.describe())', //                                    23
    '}', //                                                              24
  ),
  'describe.go': lines(
    'package main', //                                                   1
    '', //                                                               2
    'func (o *options) describe() string {', //                          3
    '\tif o.cfgPath == "" {', //                                         4
    '\t\treturn "built-in settings"', //                                 5
    '\t}', //                                                            6
    '\treturn "settings from " + o.cfgPath', //                          7
    '}', //                                                              8
  ),
};

// NO_NOISE: a package variable set from the environment inside a function; another package has its own `forceQuiet`.
const GO_HUSH: Files = {
  'go.mod': lines('module example.com/hush', '', 'go 1.22'),
  'output/vars.go': lines(
    'package output', //                                                 1
    '', //                                                               2
    '// forceQuiet silences every writer of this package.', //           3
    'var forceQuiet bool', //                                            4
  ),
  'output/env.go': lines(
    'package output', //                                                 1
    '', //                                                               2
    'import "os"', //                                                    3
    '', //                                                               4
    'func setupOutput() {', //                                           5
    '\tforceQuiet = forceQuiet || os.Getenv("NO_NOISE") != ""', //       6
    '}', //                                                              7
  ),
  'output/write.go': lines(
    'package output', //                                                 1
    '', //                                                               2
    'import "fmt"', //                                                   3
    '', //                                                               4
    'func Say(msg string) {', //                                         5
    '\tsetupOutput()', //                                                6
    '\tif forceQuiet {', //                                              7
    '\t\treturn', //                                                     8
    '\t}', //                                                            9
    '\tfmt.Println(msg)', //                                             10
    '}', //                                                              11
  ),
  'legacy/legacy.go': lines(
    'package legacy', //                                                 1
    '', //                                                               2
    'import "fmt"', //                                                   3
    '', //                                                               4
    'var forceQuiet = false', //                                         5
    '', //                                                               6
    'func Shout(msg string) {', //                                       7
    '\tif !forceQuiet {', //                                             8
    '\t\tfmt.Println(msg + "!")', //                                     9
    '\t}', //                                                            10
    '}', //                                                              11
  ),
};

describe('a value passed to a function is followed into the callee', () => {
  it('enters the parameter at the argument position and follows it through a field and a local to the branch, contract-complete (Rust, Python)', async () => {
    const { flow, verdict } = await traced(RUST_METER, 'cli_option', '--max-items');
    expect(flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'transformation src/main.rs:14-14 `opts.max_items` passed to `meter::Meter::new` (in `main`)',
        // Third argument → third parameter, named `cap`, not `max_items`.
        'carrier src/meter.rs:9-9 parameter `cap` of `new` carries the value',
        'transformation src/meter.rs:10-10 `cap` copied into `Meter.budget` (in `new`)',
        'carrier src/meter.rs:1-4 `Meter.budget` carries the value',
        'transformation src/meter.rs:14-14 `self.budget - self.used` copied into `left` (in `tick`)',
        'consumer src/meter.rs:15-18 `left` decides the `if` in `tick`',
      ]),
    );
    expect(flow.gaps).toEqual([]);
    expect(verdict).toBe('ok');

    // The same in Python: the third positional argument lands in `cap`, whose `if` is the consumer.
    const py = await traced(PY_SIFTER, 'cli_option', '--max-items');
    expect(py.flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'carrier sifter/walk.py:4-4 parameter `cap` of `collect` carries the value',
        'consumer sifter/walk.py:8-9 `cap` decides the `if` in `collect`',
      ]),
    );
    expect(notFollowed(py.flow)).toEqual([]);
  });

  it('does not enter a callee defined twice in the repository, does not count a library call as a gap, and follows a library call’s bound result (Python, Go)', async () => {
    // Two `def prune` in the repository: which one runs cannot be told, so the gap stays and neither is entered.
    const twice = await traced(PY_ROTOR, 'cli_option', '--keep-last');
    expect(notFollowed(twice.flow)).toEqual(['value passed to `prune` at rotor/cli.py:11 is not followed into the callee']);
    // `print` is not defined in the repository: the value leaves the program's code there, which is no gap.
    expect(twice.flow.gaps.filter((g) => g.includes('`print`'))).toEqual([]);

    // With one definition left, the value is followed into it.
    const { 'rotor/memory.py': _, ...once } = PY_ROTOR;
    const unique = await traced(once, 'cli_option', '--keep-last');
    expect(notFollowed(unique.flow)).toEqual([]);
    // The only difference is the namesake: with it, neither definition is entered.
    expect({ twice: [...inFile(twice.flow, 'rotor/disk.py'), ...inFile(twice.flow, 'rotor/memory.py')], once: inFile(unique.flow, 'rotor/disk.py').length > 0 }).toEqual({ twice: [], once: true });
    expect(unique.flow.steps.map(said)).toEqual(
      expect.arrayContaining(['carrier rotor/disk.py:1-1 parameter `count` of `prune` carries the value', 'consumer rotor/disk.py:2-3 `count` decides the `if` in `prune`']),
    );

    // `dir, err := pathkit.Expand(o.cacheDir)`: the library's result carries the value on to its consumer.
    const go = await traced(GO_STASH, 'cli_option', '--cache-dir');
    expect(notFollowed(go.flow)).toEqual([]);
    // `err`, the second target, is not the value: its check (lines 21-23) is no step.
    expect(go.flow.steps.filter((s) => s.location.start_line >= 20).map(said)).toEqual([
      'transformation main.go:20-20 `o.cacheDir` passed to `pathkit.Expand` (in `main`)',
      'transformation main.go:25-25 `dir` passed to `os.MkdirAll` (in `main`)',
      'consumer main.go:24-26 `dir` decides the `if` in `main`',
    ]);
    expect(go.flow.gaps).toEqual([]);
    expect(go.verdict).toBe('ok');
  });
});

describe('Go: flag destinations, LookupEnv and package variables', () => {
  it('reads a key used as a flag default at the env read, lets the flag take precedence, and follows the destination into another package’s field, contract-complete', async () => {
    const { root, flow, verdict } = await traced(GO_BEACON, 'configuration_key', 'APP_QUIET');
    expect({ primary: flow.steps[0]!.location.role, step: said(flow.steps[0]!) }).toEqual({ primary: 'primary', step: 'producer cmd/beacon/main.go:19-19 `APP_QUIET` read by `lookEnv` (in `main`)' });
    expect(flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'precedence cmd/beacon/main.go:19-19 flag `quiet` overrides the default read here (in `main`)',
        'carrier cmd/beacon/main.go:10-11 `options.quiet` carries the value',
        'transformation cmd/beacon/main.go:21-21 `opts.quiet` copied into `report.Settings.Quiet` (in `main`)',
        'carrier internal/report/report.go:5-6 `Settings.Quiet` carries the value',
        'consumer internal/report/report.go:10-12 `s.Quiet` decides the `if` in `Print`',
      ]),
    );
    expect(flow.gaps).toEqual([]);
    // No carrier spells APP_QUIET; `opts.quiet` is bound from it in the flag's one statement, which the validator accepts.
    const carriers = flow.steps.filter((s) => s.role === 'carrier').map((s) => rangeText(root, s.location));
    expect(carriers.map((t) => t.includes('APP_QUIET'))).toEqual([false, false]);
    expect(verdict).toBe('ok');
  });

  it('takes the first target of `v, ok := os.LookupEnv(…)` as the value and follows the field it is stored in; a package variable only within its own package', async () => {
    const dial = await traced(GO_DIAL, 'configuration_key', 'APP_CFG');
    expect(dial.flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'producer main.go:14-14 `APP_CFG` read by `os.LookupEnv` (in `fromEnv`)',
        'transformation main.go:16-16 `v` copied into `o.cfgPath` (in `fromEnv`)',
        'carrier main.go:8-9 `options.cfgPath` carries the value',
        // `o.cfgPath` is a field: its reads in another method (and file) are the value's, not a bare `cfgPath` variable's.
        'consumer describe.go:4-6 `o.cfgPath` decides the `if` in `describe`',
        'transformation describe.go:7-7 `o.cfgPath` returned from `describe`',
      ]),
    );
    // `ok` only says whether the variable was set: `if ok` (line 15) is not a consumer of the value.
    expect(dial.flow.steps.filter((s) => s.location.path === 'main.go' && s.location.start_line >= 13 && s.location.start_line <= 18).map(at)).toEqual([
      'producer main.go:14-14',
      'transformation main.go:16-16',
    ]);

    const hush = await traced(GO_HUSH, 'configuration_key', 'NO_NOISE');
    expect(hush.flow.steps.map(said)).toEqual(
      expect.arrayContaining([
        'producer output/env.go:6-6 `NO_NOISE` read by `os.Getenv` (in `setupOutput`)',
        'carrier output/vars.go:4-4 variable `forceQuiet` carries the value',
        'consumer output/write.go:7-9 `forceQuiet` decides the `if` in `Say`',
      ]),
    );
    // legacy/ is another package with a `forceQuiet` of its own.
    expect([...new Set(hush.flow.steps.map((s) => s.location.path))].sort()).toEqual(['output/env.go', 'output/vars.go', 'output/write.go']);
  });
});
