// Which test the static worker names as focused_tests once the flow follows
// the value past its spellings: a test that sets only the name the value was
// bound to (a package variable set from the environment) and calls the
// behaviour's function, set back behind a test that spells the subject; titles
// that name the subject only as a side condition; sibling variants of one
// test; and the tests-only route, which still ranks by the behaviour site.
// Each fixture is a small invented tool; the line numbers the tests assert are
// marked beside the fixture lines.
import { describe, expect, it } from 'vitest';
import type { FocusedTests } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import type { RouteId } from '../../src/core/semantic.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const repo = fixtureRepos();
const worker = createStaticWorker();

type Kind = 'cli_option' | 'configuration_key';

function need(kind: Kind, name: string, route: RouteId): CompiledNeed {
  return compileNeed(
    { route, subject: { kind, name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `which test covers ${name}` },
    lineageDigest(['0'.repeat(40)]),
  );
}

/** The worker's focused test for the subject, run on every obligation of `route`. */
async function focused(files: Files, kind: Kind, name: string, route: RouteId = 'trace.state-flow'): Promise<{ root: string; n: CompiledNeed; plan: FocusedTests }> {
  const { root } = repo(files);
  const n = need(kind, name, route);
  const out = await worker.run({ need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
  const plan = out.proposals.find((p) => p.predicate === 'focused_tests')?.payload as FocusedTests | undefined;
  if (!plan) throw new Error(`expected a focused test, got ${JSON.stringify(out.outcome)}`);
  return { root, n, plan };
}

function verdict(root: string, n: CompiledNeed, plan: FocusedTests): string {
  const v = validateProposal(new SnapshotReader(root), n, [...n.required, ...n.preferred], { predicate: 'focused_tests', payload: plan });
  return v.ok ? 'ok' : v.reasons.join('; ');
}

const chosen = (plan: FocusedTests) => `${plan.location.path} ${plan.identifier}`;

// NO_NOISE is read into the package variable `forceQuiet`, which `Announce` branches on; the tests set `forceQuiet` directly.
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
    'func Announce(msg string) {', //                                    5
    '\tsetupOutput()', //                                                6
    '\tif forceQuiet {', //                                              7
    '\t\treturn', //                                                     8
    '\t}', //                                                            9
    '\tfmt.Println(msg)', //                                             10
    '}', //                                                              11
    '', //                                                               12
    'func Banner() string {', //                                         13
    '\tif forceQuiet {', //                                              14
    '\t\treturn ""', //                                                  15
    '\t}', //                                                            16
    '\treturn "hush 1.0"', //                                            17
    '}', //                                                              18
  ),
  'output/write_test.go': lines(
    'package output', //                                                 1
    '', //                                                               2
    'import "testing"', //                                               3
    '', //                                                               4
    'func TestBannerQuiet(t *testing.T) {', //                           5
    '\tforceQuiet = true', //                                            6
    '\t_ = Banner()', //                                                 7
    '}', //                                                              8
    '', //                                                               9
    'func TestAnnouncePrintsMessage(t *testing.T) {', //                 10
    '\tAnnounce("hello")', //                                            11
    '}', //                                                              12
    '', //                                                               13
    'func TestAnnounceStaysQuiet(t *testing.T) {', //                    14
    '\tforceQuiet = true', //                                            15
    '\tdefer func() { forceQuiet = false }()', //                        16
    '\tsetupOutput()', //                                                17
    '\tAnnounce("hello")', //                                            18
    '}', //                                                              19
  ),
};

/** A longer test after the others that spells NO_NOISE itself. */
const GO_HUSH_DIRECT: Files = {
  ...GO_HUSH,
  'output/write_test.go': GO_HUSH['output/write_test.go']! + lines(
    '', //                                                               20
    'func TestAnnounceHonoursEnvironment(t *testing.T) {', //            21
    '\tt.Setenv("NO_NOISE", "1")', //                                    22
    '\tforceQuiet = false', //                                           23
    '\tsetupOutput()', //                                                24
    '\tAnnounce("hello")', //                                            25
    '\tif !forceQuiet {', //                                             26
    '\t\tt.Fatal("still noisy")', //                                     27
    '\t}', //                                                            28
    '}', //                                                              29
  ),
};

// --max-depth: two tests call `walk` with `maxDepth`; the shorter one is about dot entries.
const JS_TREEVIEW: Files = {
  'package.json': `${JSON.stringify({ name: 'treeview', type: 'module', dependencies: { commander: '^12.0.0' }, devDependencies: { vitest: '^4.0.0' } }, null, 2)}\n`,
  'src/cli.js': lines(
    "import { Command } from 'commander'", //                            1
    "import { walk } from './walk.js'", //                               2
    '', //                                                               3
    'const program = new Command()', //                                  4
    "program.option('--max-depth <n>', 'how deep to descend', Number)", // 5
    "program.option('--hidden', 'include dot entries')", //              6
    'program.parse()', //                                                7
    "console.log(walk({ name: '.', children: [] }, program.opts()).join('\\n'))", // 8
  ),
  'src/walk.js': lines(
    'export function walk(node, opts, depth = 0) {', //                  1
    '  const out = []', //                                               2
    '  for (const child of node.children ?? []) {', //                   3
    "    if (child.name.startsWith('.') && !opts.hidden) continue", //   4
    '    out.push(child.name)', //                                       5
    '    if (depth < opts.maxDepth) {', //                               6
    '      out.push(...walk(child, opts, depth + 1))', //                7
    '    }', //                                                          8
    '  }', //                                                            9
    '  return out', //                                                   10
    '}', //                                                              11
  ),
  'test/walk.test.js': lines(
    "import { expect, it } from 'vitest'", //                            1
    "import { walk } from '../src/walk.js'", //                          2
    '', //                                                               3
    "const tree = { name: '.', children: [{ name: 'a', children: [{ name: 'b' }] }, { name: '.git', children: [] }] }", // 4
    '', //                                                               5
    "it('lists dot entries even when maxDepth is set', () => {", //      6
    "  expect(walk(tree, { maxDepth: 0, hidden: true })).toEqual(['a', '.git'])", // 7
    '})', //                                                             8
    '', //                                                               9
    "it('stops descending at maxDepth', () => {", //                     10
    '  const shallow = walk(tree, { maxDepth: 0 })', //                  11
    "  expect(shallow).toEqual(['a'])", //                               12
    "  expect(walk(tree, { maxDepth: 1 })).toEqual(['a', 'b'])", //      13
    '})', //                                                             14
  ),
};

// --limit: three command-line tests of one file, the variant `…_file_preview` shortest.
const PY_HEADR: Files = {
  'pyproject.toml': lines('[project]', 'name = "headr"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'headr/__init__.py': '',
  'headr/cli.py': lines(
    'import argparse', //                                                1
    'import sys', //                                                     2
    '', //                                                               3
    '', //                                                               4
    'def main(argv=None):', //                                           5
    '    parser = argparse.ArgumentParser()', //                         6
    '    parser.add_argument("--limit", type=int, default=10)', //       7
    '    parser.add_argument("path", nargs="?")', //                     8
    '    args = parser.parse_args(argv)', //                             9
    '    text = open(args.path).read() if args.path else sys.stdin.read()', // 10
    '    rows = text.splitlines()', //                                   11
    '    if args.limit >= 0:', //                                        12
    '        rows = rows[:args.limit]', //                               13
    '    return "\\n".join(rows)', //                                    14
  ),
  'tests/test_cli.py': lines(
    'import io', //                                                      1
    '', //                                                               2
    'from headr.cli import main', //                                     3
    '', //                                                               4
    '', //                                                               5
    'def test_limit_file(tmp_path):', //                                 6
    '    path = tmp_path / "five.txt"', //                               7
    '    path.write_text("1\\n2\\n3\\n4\\n5\\n")', //                    8
    '    assert main(["--limit", "2", str(path)]) == "1\\n2"', //        9
    '', //                                                               10
    '', //                                                               11
    'def test_limit_stdin(monkeypatch):', //                             12
    '    monkeypatch.setattr("sys.stdin", io.StringIO("a\\nb\\nc\\n"))', // 13
    '    out = main(["--limit", "1"])', //                               14
    '    assert out == "a"', //                                          15
    '    assert "b" not in out', //                                      16
    '', //                                                               17
    '', //                                                               18
    'def test_limit_file_preview(tmp_path):', //                         19
    '    (tmp_path / "f").write_text("x\\ny\\n")', //                    20
    '    assert main(["--limit", "1", str(tmp_path / "f")])[:1] == "x"', // 21
  ),
};

// --max-lines: a command-line test named after the option, and a unit test calling `clip` with the value set.
const PY_TAILOR: Files = {
  'pyproject.toml': lines('[project]', 'name = "tailor"', '', '[tool.pytest.ini_options]', 'testpaths = ["tests"]'),
  'tailor/__init__.py': '',
  'tailor/cli.py': lines(
    'import argparse', //                                                1
    '', //                                                               2
    'from tailor.clip import clip', //                                   3
    '', //                                                               4
    '', //                                                               5
    'def main(argv=None):', //                                           6
    '    parser = argparse.ArgumentParser()', //                         7
    '    parser.add_argument("--max-lines", type=int, default=10)', //   8
    '    parser.add_argument("path")', //                                9
    '    args = parser.parse_args(argv)', //                             10
    '    with open(args.path) as fh:', //                                11
    '        return clip(fh.read(), max_lines=args.max_lines)', //       12
  ),
  'tailor/clip.py': lines(
    'def clip(text, max_lines):', //                                     1
    '    rows = text.splitlines()', //                                   2
    '    if len(rows) > max_lines:', //                                  3
    '        rows = rows[len(rows) - max_lines:]', //                    4
    '    return "\\n".join(rows)', //                                    5
  ),
  'tests/test_cli.py': lines(
    'from tailor.cli import main', //                                    1
    '', //                                                               2
    '', //                                                               3
    'def test_max_lines(tmp_path):', //                                  4
    '    path = tmp_path / "log.txt"', //                                5
    '    path.write_text("a\\nb\\nc\\n")', //                            6
    '    assert main(["--max-lines", "2", str(path)]) == "b\\nc"', //    7
  ),
  'tests/test_clip.py': lines(
    'from tailor.clip import clip', //                                   1
    '', //                                                               2
    '', //                                                               3
    'def test_keeps_the_last_rows():', //                                4
    '    assert clip("a\\nb\\nc", max_lines=2) == "b\\nc"', //           5
  ),
};

describe('focused tests reached through the names the value was followed into', () => {
  it('chooses a test that sets only the renamed carrier and calls the behaviour’s function, and the plan validates through the declaration file (Go NO_NOISE)', async () => {
    const { root, n, plan } = await focused(GO_HUSH, 'configuration_key', 'NO_NOISE');
    // `TestBannerQuiet` sets `forceQuiet` too, but `Announce` holds the branch the flow reaches.
    expect(chosen(plan)).toBe('output/write_test.go TestAnnounceStaysQuiet');
    expect(plan.argv).toEqual(['go', 'test', './output', '-run', '^TestAnnounceStaysQuiet$']);
    expect(plan.location).toMatchObject({ start_line: 14, end_line: 19 });
    // The test never spells NO_NOISE: the file binding `forceQuiet` from it is the evidence that ties them.
    const without = { ...plan, evidence_paths: plan.evidence_paths.filter((p) => p !== 'output/env.go') };
    expect({ declaration: plan.evidence_paths.includes('output/env.go'), verdict: verdict(root, n, plan), withoutDeclaration: verdict(root, n, without) }).toEqual({
      declaration: true,
      verdict: 'ok',
      withoutDeclaration: expect.stringMatching(/neither the test nor its evidence files mention the subject NO_NOISE/),
    });
  });

  it('prefers a test spelling the subject over one that only uses a renamed carrier (Go NO_NOISE)', async () => {
    const renamedOnly = await focused(GO_HUSH, 'configuration_key', 'NO_NOISE');
    const withDirect = await focused(GO_HUSH_DIRECT, 'configuration_key', 'NO_NOISE');
    // Both call `Announce` in the paired test file; the later, longer test wins because it sets NO_NOISE itself.
    expect([renamedOnly.plan.identifier, withDirect.plan.identifier]).toEqual(['TestAnnounceStaysQuiet', 'TestAnnounceHonoursEnvironment']);
    // Spelling the key itself, it needs no declaration file added to its evidence.
    expect({ declaration: withDirect.plan.evidence_paths.includes('output/env.go'), verdict: verdict(withDirect.root, withDirect.n, withDirect.plan) }).toEqual({ declaration: false, verdict: 'ok' });
  });
});

describe('titles and siblings', () => {
  it('does not count a title naming the subject as a side condition (`… even when maxDepth is set`) as named after it (JavaScript)', async () => {
    const { root, n, plan } = await focused(JS_TREEVIEW, 'cli_option', '--max-depth');
    expect({ test: chosen(plan), lines: [plan.location.start_line, plan.location.end_line], verdict: verdict(root, n, plan) }).toEqual({
      test: 'test/walk.test.js stops descending at maxDepth',
      lines: [10, 14],
      verdict: 'ok',
    });
  });

  it('takes the first defined of sibling variants (`limit_file` before the shorter `limit_file_preview`) (Python)', async () => {
    const { root, n, plan } = await focused(PY_HEADR, 'cli_option', '--limit');
    expect({ test: chosen(plan), lines: [plan.location.start_line, plan.location.end_line], verdict: verdict(root, n, plan) }).toEqual({
      test: 'tests/test_cli.py test_limit_file',
      lines: [6, 9],
      verdict: 'ok',
    });
  });

  it('takes the base case before a variant that qualifies its name in front (`limit_file` before the shorter `quick_limit_file`) (Python)', async () => {
    const renamed = { ...PY_HEADR, 'tests/test_cli.py': PY_HEADR['tests/test_cli.py']!.replace('def test_limit_file_preview(', 'def test_quick_limit_file(') };
    const { root, n, plan } = await focused(renamed, 'cli_option', '--limit');
    expect({ test: chosen(plan), lines: [plan.location.start_line, plan.location.end_line], verdict: verdict(root, n, plan) }).toEqual({
      test: 'tests/test_cli.py test_limit_file',
      lines: [6, 9],
      verdict: 'ok',
    });
  });
});

describe('the tests-only route', () => {
  it('ranks by the behaviour site although only focused_tests is required: the test calling its function beats a CLI test named after the option (Python)', async () => {
    const { root, n, plan } = await focused(PY_TAILOR, 'cli_option', '--max-lines', 'tests.relevant');
    expect({ required: n.required.map((o) => o.predicate), test: chosen(plan), verdict: verdict(root, n, plan) }).toEqual({
      required: ['focused_tests'],
      test: 'tests/test_clip.py test_keeps_the_last_rows',
      verdict: 'ok',
    });
  });
});
