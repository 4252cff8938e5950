// Shapes met in real Python and JavaScript CLIs that the static worker used to
// get wrong: docstrings quoting `{opts.width}`, in-place `room -= 4`, an example
// listed before the option's own declaration, tests whose names only
// contain the subject as part of a longer word, and a test file named after
// the method it covers, unittest classes pytest collects whatever their name.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Location, RuntimeFlow } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest } from '../../src/core/need.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { findFocusedTests } from '../../src/evidence/tests/find.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const PY_RULER: Files = {
  'pyproject.toml': lines('[project]', 'name = "ruler"', '', '[tool.pytest.ini_options]', 'addopts = "-q"'),
  'ruler/cli.py': lines(
    'import argparse', //                                        1
    '', //                                                       2
    '', //                                                       3
    'def parser():', //                                          4
    '    p = argparse.ArgumentParser()', //                      5
    '    p.add_argument("--width", type=int, default=80)', //    6
    '    return p', //                                           7
    '', //                                                       8
    '', //                                                       9
    'def main(argv):', //                                        10
    '    """Lays text out in `{opts.width}` columns."""', //     11
    '    opts = parser().parse_args(argv)', //                   12
    '    return layout(opts.width)', //                          13
    '', //                                                       14
    '', //                                                       15
    'def layout(width):', //                                     16
    '    room = width', //                                       17
    '    room -= 4', //                                          18
    '    if room < 10:', //                                      19
    '        return "narrow"', //                                20
    '    return "wide"', //                                      21
  ),
  'examples/bench.py': lines('from ruler.cli import layout', '', '', 'def run(sizes):', '    width = max(sizes)', '    return layout(width)'),
  'ruler/algo.py': lines('def widest(sizes):', '    width = max(sizes)', '    return width'),
  'tests/test_cli.py': lines(
    'from ruler.cli import main', //                             1
    '', //                                                       2
    '', //                                                       3
    'def test_widths():', //                                     4
    '    assert main([]) == "wide"', //                          5
    '', //                                                       6
    '', //                                                       7
    'def test_narrow_layout():', //                              8
    '    out = main(["--width", "8"])', //                       9
    '    assert out == "narrow"', //                             10
  ),
};

const JS_RULER: Files = {
  'package.json': `${JSON.stringify({ name: 'ruler', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'lib/ruler.js': lines(
    'export class Ruler {',
    '  setWidth(width) {',
    '    this.width = width;',
    '    return this;',
    '  }',
    '',
    '  fits(text) {',
    '    return text.length <= this.width;',
    '  }',
    '}',
  ),
  'test/chain.test.js': lines(
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { Ruler } from '../lib/ruler.js';",
    '',
    "test('setWidth() returns this', () => {",
    '  const r = new Ruler();',
    '  assert.equal(r.setWidth(3), r);',
    '});',
  ),
  'test/ruler.setWidth.test.js': lines(
    "import { describe, test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { Ruler } from '../lib/ruler.js';",
    '',
    "describe('Ruler.setWidth()', () => {",
    "  test('text longer than setWidth(3) does not fit', () => {",
    '    const r = new Ruler();',
    '    r.setWidth(3);',
    "    assert.equal(r.fits('abcd'), false);",
    '  });',
    '',
    "  test('other widths are unaffected', () => {",
    '    assert.ok(true);',
    '  });',
    '});',
  ),
};

const repo = fixtureRepos();

const summary = (flow: RuntimeFlow) =>
  flow.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}-${s.location.end_line}`);

describe('runtime_flow on Python shapes', () => {
  const primary: Location = { role: 'primary', path: 'ruler/cli.py', symbol: null, start_line: 6, end_line: 6 };

  it('starts at the declaration, leaves one-word namesakes out, and calls `room -= 4` a transformation', () => {
    const { ctx } = repo(PY_RULER);
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--width' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const steps = summary(result.payload);
    expect(steps[0]).toBe('producer ruler/cli.py:6-6');
    expect(result.payload.steps[0]!.location.role).toBe('primary');
    // `width = max(sizes)` in algo.py and the example are namesakes: nothing there reads the option.
    expect(steps.filter((s) => s.startsWith('producer'))).toEqual(['producer ruler/cli.py:6-6']);
    expect(steps).toContain('transformation ruler/cli.py:18-18');
    expect(steps).not.toContain('producer ruler/cli.py:18-18');
    expect(result.payload.steps.find((s) => s.location.start_line === 18 && s.location.path === 'ruler/cli.py')!.description).toMatch(/adjusted by `room -= 4`/);
    expect(steps).toContain('consumer ruler/cli.py:19-20');
    // The value goes into `layout`; what `main` returns is layout's verdict.
    expect(result.payload.steps.find((s) => s.location.start_line === 13)!.description).toBe('`opts.width` passed to `layout` (in `main`)');
  });

  it('treats braces in a docstring as prose, not as an unfollowed read', () => {
    const { ctx } = repo(PY_RULER);
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--width' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.gaps.filter((g) => g.includes(':11'))).toEqual([]);
    expect(summary(result.payload).some((s) => s.includes('cli.py:11-'))).toBe(false);
  });

  it('still reports a `.format` template that reads the carrier', () => {
    const files = { ...PY_RULER, 'ruler/report.py': lines('def report(opts):', '    return "{o.width} cols".format(o=opts)') };
    const { ctx } = repo(files);
    const result = traceFlow(ctx, { kind: 'cli_option', name: '--width' }, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.gaps.some((g) => g.startsWith('ruler/report.py:2'))).toBe(true);
  });
});

const JS_SETTING: Files = {
  'lib/pager.js': lines(
    'export class Pager {', //                                   1
    '  constructor() {', //                                      2
    '    this._wrapLines = true;', //                            3
    '  }', //                                                    4
    '', //                                                       5
    '  wrapLines(wrap) {', //                                    6
    '    this._wrapLines = !!wrap;', //                          7
    '    return this;', //                                      8
    '  }', //                                                    9
    '', //                                                       10
    '  render(text) {', //                                       11
    '    if (this._wrapLines) return text.split(" ").join("\\n");', // 12
    '    return text;', //                                       13
    '  }', //                                                    14
    '', //                                                       15
    '  copyFrom(other) {', //                                    16
    '    this._wrapLines = other._wrapLines;', //                17
    '  }', //                                                    18
    '}', //                                                      19
  ),
};

describe('runtime_flow on a JavaScript class setting', () => {
  it('takes the constructor assignment as where the field lives, so the flow is complete', () => {
    const { ctx } = repo(JS_SETTING);
    const result = traceFlow(ctx, { kind: 'symbol', name: '_wrapLines' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(summary(result.payload)).toEqual([
      'producer lib/pager.js:7-7',
      'carrier lib/pager.js:3-3',
      'transformation lib/pager.js:17-17',
      'precedence lib/pager.js:3-3',
      'consumer lib/pager.js:12-12',
    ]);
    expect(result.payload.steps[1]!.description).toMatch(/is established by the constructor/);
    expect(result.payload.gaps).toEqual([]);
  });
});

const PY_CLASSES: Files = {
  'pyproject.toml': lines('[project]', 'name = "ruler"', '', '[tool.pytest.ini_options]', 'addopts = "-q"'),
  'ruler/core.py': lines('class Ruler:', '    def __init__(self, width):', '        self.width = width'),
  'tests/test_help.py': lines('def test_help_ruler():', '    assert "ruler" in "the ruler help"'),
  'tests/test_rulers.py': lines(
    'import unittest',
    '',
    'from ruler.core import Ruler',
    '',
    '',
    'class RulerChecks(unittest.TestCase):',
    '    def test_keeps_width(self):',
    '        self.assertEqual(Ruler(8).width, 8)',
  ),
};

describe('focused_tests on real naming habits', () => {
  it('finds unittest methods in a class not named Test*, in the suite named after the symbol', () => {
    const { ctx } = repo(PY_CLASSES);
    const result = findFocusedTests(ctx, { kind: 'symbol', name: 'Ruler' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    // `test_help_ruler` carries the name but never uses the class.
    expect(result.payload.argv).toEqual(['pytest', 'tests/test_rulers.py::RulerChecks::test_keeps_width']);
    expect(result.payload.identifier).toBe('RulerChecks::test_keeps_width');
  });

  it('does not take `test_widths` for a test of --width; picks the test that passes the flag', () => {
    const { ctx } = repo(PY_RULER);
    const result = findFocusedTests(ctx, { kind: 'cli_option', name: '--width' }, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    expect(result.payload.argv).toEqual(['pytest', 'tests/test_cli.py::test_narrow_layout']);
  });

  it('prefers the file named after the method, and the regex-escaped title runs exactly that test and validates', () => {
    const { root, ctx } = repo(JS_RULER);
    const subject = { kind: 'symbol' as const, name: 'setWidth' };
    const result = findFocusedTests(ctx, subject, null);
    if (result.kind !== 'found') throw new Error(result.reason);
    const p = result.payload;
    expect(p.location.path).toBe('test/ruler.setWidth.test.js');
    expect(p.identifier).toBe('text longer than setWidth(3) does not fit');
    expect(p.argv).toEqual(['node', '--test', '--test-name-pattern', 'text longer than setWidth\\(3\\) does not fit', 'test/ruler.setWidth.test.js']);

    const need = compileNeed({ route: 'tests.relevant', subject, required: [], preferred: [], world: DEFAULT_WORLD, task: 'test setWidth' }, lineageDigest(['0'.repeat(40)]));
    const verdict = validateProposal(new SnapshotReader(root), need, need.required, { predicate: 'focused_tests', payload: p });
    expect(verdict.ok ? 'ok' : verdict.reasons.join('; ')).toBe('ok');

    const out = execFileSync(p.argv[0]!, p.argv.slice(1), { cwd: join(root, p.cwd_relative), encoding: 'utf8', timeout: 60_000 });
    expect(out).toMatch(/# pass 1\b/);
    expect(out).toMatch(/# fail 0\b/);
  }, 90_000);
});
