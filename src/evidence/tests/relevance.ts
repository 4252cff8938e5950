// Signals that tell the test a maintainer would point to from tests that only
// touch the subject: it exercises the behaviour site (calls the function that
// holds it, lives in the test file paired with its source file), it is not an
// end-to-end run, its title does not describe the option being absent, and its
// title shares words with the subject. Language-neutral: names and paths only.
import type { Location } from '../../core/contracts.js';
import type { AnalysisContext, ParsedFile } from '../context.js';
import { nonTestDefinitions } from '../languages/index.js';
import type { TestCase } from './discover.js';
import { enclosingDefinition } from '../behaviour.js';

/** `chunkFiles.spec.js`, `test_core.py`, `handler_test.go`, `core_tests.rs` → the source stem they test. */
export function testedStem(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
  return base
    .replace(/[._-](test|tests|spec|specs|e2e)$/i, '')
    .replace(/^(test|tests)[._-]/i, '')
    .toLowerCase();
}

const sourceStem = (path: string): string => path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '').toLowerCase();

/** The test file is the one kept for the behaviour site's source file. */
export function isPairedWith(testPath: string, source: Location | null): boolean {
  if (!source) return false;
  const stem = sourceStem(source.path);
  return stem.length > 0 && testedStem(testPath) === stem && stem !== 'mod' && stem !== 'index' && stem !== 'lib' && stem !== 'main';
}

/** Runs that go through the whole program rather than the unit holding the behaviour. */
const END_TO_END = /(^|[^a-z])(e2e|end[_-]?to[_-]?end|integration|acceptance)([^a-z]|$)/i;

export function isEndToEnd(test: TestCase): boolean {
  return END_TO_END.test(test.path) || END_TO_END.test(test.name) || test.scopes.some((s) => END_TO_END.test(s));
}

/** A title about the subject being absent or off (`should not add …`, `test_no_x`, `… when unset`, `cors set to false`). */
const NEGATED = new Set(['not', 'no', 'without', 'unset', 'disabled', 'never', 'off', 'none', 'ignores', 'ignored', 'omitted', 'false']);

/** The subject's own words (`--no-cross`'s `no`) do not negate it. */
export function isNegatedTitle(words: readonly string[], subjectWords: readonly string[] = []): boolean {
  return words.some((w) => NEGATED.has(w) && !subjectWords.includes(w));
}

/** Words that speak of a one-word option as a setting: `test_e501_with_aggressive`, `test_raw_flag`. */
const SETTING_BEFORE = new Set(['with', 'without', 'by', 'using', 'via', 'under']);
const SETTING_AFTER = new Set(['option', 'flag', 'mode', 'enabled', 'disabled', 'switch', 'argument', 'arg']);

/** Whether the title names a one-word option as a setting rather than using the word (`runs_successfully` is not about `--runs`). */
export function namesAsSetting(title: readonly string[], word: string): boolean {
  return title.some((w, i) => w === word && (SETTING_BEFORE.has(title[i - 1] ?? '') || SETTING_AFTER.has(title[i + 1] ?? '')));
}

/** A title about the program refusing its input (`cannot combine …`, `… unknown encoding`, `invalid …`). */
const FAILURE = new Set(['cannot', 'invalid', 'unknown', 'error', 'errors', 'fail', 'fails', 'failure', 'reject', 'rejects', 'refuses', 'unsupported', 'illegal', 'malformed']);

export function isFailureTitle(words: readonly string[]): boolean {
  return words.some((w) => FAILURE.has(w));
}

/** Subject words the title carries, a title word counting when one is a prefix of the other (`arg` / `argument`). */
export function titleOverlap(titleWords: readonly string[], subjectWords: readonly string[]): number {
  return subjectWords.filter((s) => s.length >= 3 && titleWords.some((t) => t.length >= 3 && (t.startsWith(s) || s.startsWith(t)))).length;
}

/** Words too common in help texts and test titles to tie one to the other. */
const HELP_STOPWORDS = new Set([
  'about', 'after', 'also', 'before', 'being', 'both', 'default', 'does', 'each', 'either', 'enable', 'enabled', 'every', 'false',
  'flag', 'from', 'given', 'have', 'into', 'made', 'many', 'more', 'most', 'must', 'none', 'only', 'option', 'other', 'same',
  'should', 'some', 'such', 'than', 'that', 'their', 'them', 'then', 'there', 'these', 'they', 'this', 'true', 'used', 'uses',
  'using', 'value', 'when', 'which', 'will', 'with', 'without', 'works', 'your',
]);

/** A help text's or title's content words, crudely singular (`spawns` / `spawn`, `processes` / `process`). */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().split(/[^a-z]+/)) {
    if (raw.length < 4 || HELP_STOPWORDS.has(raw)) continue;
    out.add(raw.length > 4 ? raw.replace(/ies$/, 'y').replace(/(?<=[sxz]|ch|sh)es$|(?<!s)s$/, '') : raw);
  }
  return out;
}

const COMMENT_LINE = /^\s*(\/\/|#(?!\[)|\*|\/\*)/;

/**
 * The words of the option's help text: the prose in its declaration — string literals of more than one
 * word (`describe: 'How many processes should run at once'`; `requires = "command_or_file"` names another
 * argument) and comment lines (a clap field's `///` doc comment), in it or right above it — without the
 * option's own name words.
 */
export function helpWords(ctx: AnalysisContext, declaration: Location | null, nameWords: readonly string[]): Set<string> {
  const text = declaration ? ctx.read(declaration.path) : null;
  if (!declaration || text === null) return new Set();
  const lines = text.split('\n');
  let first = declaration.start_line - 1;
  while (first > 0 && COMMENT_LINE.test(lines[first - 1] ?? '')) first--;
  const range = lines.slice(first, declaration.end_line);
  const comments = range.filter((l) => COMMENT_LINE.test(l)).join(' ');
  const literals = [...range.filter((l) => !COMMENT_LINE.test(l)).join('\n').matchAll(/(["'`])((?:\\.|(?!\1)[^\\])*)\1/g)].map((m) => m[2] ?? '').filter((l) => /\S\s+\S/.test(l));
  const out = contentWords(`${comments} ${literals.join(' ')}`);
  for (const w of contentWords(nameWords.join(' '))) out.delete(w);
  return out;
}

/** The smallest function or method enclosing the behaviour site: calling it exercises the behaviour. */
export function behaviourFunction(ctx: AnalysisContext, site: Location | null): string | null {
  const fn = site ? enclosingDefinition(ctx, site.path, site.start_line)?.symbol : null;
  // Short or generic names (`run`, `new`, `main`) are called by too many tests to single one out.
  return fn && fn.length >= 4 && fn !== 'main' ? fn : null;
}

export function callsFunction(body: string, name: string | null): boolean {
  if (!name) return false;
  return new RegExp(`(^|[^\\w$])${name.replace(/[$]/g, '\\$')}\\s*(\\(|::<|!\\()`).test(body);
}

const PLAIN_NAME = /^[A-Za-z_$][\w$]*$/;

/** Every plain name `body` calls as callsFunction() sees a call (`name(`, `name::<`, `name!(`), in one pass. */
function calledNames(body: string): Set<string> {
  return new Set([...body.matchAll(/(?<![\w$])([A-Za-z_$][\w$]*)\s*(?:\(|::<|!\()/g)].map((m) => m[1]!));
}

/** Same-file helpers the test calls (`it('…', _(true, …))` with `function _(…) { … parseNi(agent, ['--x']) … }`), with their text. */
function calledHelpers(file: ParsedFile, test: TestCase): { startLine: number; endLine: number; text: string }[] {
  const helpers = nonTestDefinitions(file).filter(
    (d) => (d.kind === 'function' || d.kind === 'variable' || d.kind === 'const') && (d.endLine < test.startLine || d.startLine > test.endLine),
  );
  if (helpers.length === 0) return [];
  const called = calledNames(test.body);
  const lines = file.text.split('\n');
  return helpers
    .filter((h) => (PLAIN_NAME.test(h.name) ? called.has(h.name) : callsFunction(test.body, h.name)) && h.endLine - h.startLine <= 80)
    .map((h) => ({ startLine: h.startLine, endLine: h.endLine, text: lines.slice(h.startLine - 1, h.endLine).join('\n') }));
}

/**
 * The test's body with the bodies of same-file helpers it calls (`it('…', run(true))`,
 * `check(args)`), one level deep: what the test executes, not only what it spells.
 */
export function effectiveBody(file: ParsedFile, test: TestCase): string {
  const extra = calledHelpers(file, test).map((h) => h.text);
  return extra.length > 0 ? `${test.body}\n${extra.join('\n')}` : test.body;
}

/** A test this far below its helper is cited with it; farther, the test alone. */
const HELPER_CITATION_LINES = 40;

/**
 * Where to cite a test that reaches the subject only through a helper above it in the same
 * file: from that helper's first line, when the two lie close together.
 */
export function citedFrom(file: ParsedFile, test: TestCase, spells: (text: string) => boolean): number {
  if (spells(test.body)) return test.startLine;
  const helper = calledHelpers(file, test)
    .filter((h) => h.endLine < test.startLine && spells(h.text) && test.endLine - h.startLine < HELPER_CITATION_LINES)
    .sort((a, b) => a.startLine - b.startLine)[0];
  return helper?.startLine ?? test.startLine;
}

/** Short names declared with the option at `declaration` (`-n` for `--max-count`). */
export function declaredShorts(ctx: AnalysisContext, declaration: Location | null): string[] {
  if (!declaration) return [];
  return (ctx.facts(declaration.path)?.options ?? [])
    .filter((o) => o.startLine <= declaration.end_line && declaration.start_line <= o.endLine)
    .flatMap((o) => o.shorts);
}

const TRIVIAL_ARGUMENT = /^(undefined|null|None|nil|true|false|True|False|-?\d[\d_.]*|(["'`]).*\2|\{\s*\}|\[\s*\]|)$/s;

/**
 * Arguments of the calls to `fn` in `body` that set something (not a literal
 * placeholder such as `undefined`): a call that sets fewer other inputs
 * isolates the subject better, as a command line with fewer other options does.
 */
export function settingArguments(body: string, fn: string): number {
  let count = 0;
  const call = new RegExp(`(^|[^\\w$])${fn.replace(/[$]/g, '\\$')}\\s*\\(`, 'g');
  for (const m of body.matchAll(call)) {
    let depth = 0;
    let current = '';
    const args: string[] = [];
    for (let i = m.index + m[0].length; i < body.length; i++) {
      const ch = body[i]!;
      if ('([{'.includes(ch)) depth++;
      if (')]}'.includes(ch)) {
        if (depth === 0) break;
        depth--;
      }
      if (ch === ',' && depth === 0) {
        args.push(current.trim());
        current = '';
      } else current += ch;
    }
    args.push(current.trim());
    count += args.filter((a) => !TRIVIAL_ARGUMENT.test(a)).length;
  }
  return count;
}

/** Assertions that the code under test fails (pytest, unittest, jest/vitest, Go testify/gotest.tools, Rust). */
const EXPECTS_ERROR = /pytest\.raises|assertRaises|\.toThrow|\.rejects\b|should_panic|assert\.Error|require\.Error|assert\.ErrorContains|\.is_err\(\)|\.unwrap_err\(\)/;

export function expectsError(body: string): boolean {
  return EXPECTS_ERROR.test(body);
}

/** Titles that name a condition beside their point (`resolves paths even when the limit is set`). */
const INCIDENTAL = /\b(even (when|if|with)|regardless of|despite|irrespective of)\b/i;

export function isIncidentalTitle(title: string): boolean {
  return INCIDENTAL.test(title);
}
