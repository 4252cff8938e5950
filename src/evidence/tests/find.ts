// focused_tests (SPEC §7): the most specific test that exercises the subject,
// with the exact command that runs only it. "Specific" means, in order: the
// test is the subject; then it passes the option on a command line (a test
// merely named after a flag exercises it less surely than one that passes it);
// then its own name carries the subject; then it is short. Ties break by path
// and line so the answer is deterministic.
import { focusedTestsSchema, type FocusedTests, type Location } from '../../core/contracts.js';
import { TEST_FINDER } from '../../core/limits.js';
import { type AnalysisContext } from '../context.js';
import { isTestPath } from '../../core/test-code.js';
import { SOURCE_PATHSPECS } from '../flow/sites.js';
import { Spellings, subjectSpellings, type Subject } from '../flow/spellings.js';
import { commandFor } from './commands.js';
import { optionDeclaredAt } from '../option-at.js';
import { testsInFile, type TestCase } from './discover.js';
import { behaviourFunction, callsFunction, citedFrom, contentWords, declaredShorts, helpWords, effectiveBody, expectsError, isEndToEnd, isFailureTitle, isIncidentalTitle, isNegatedTitle, isPairedWith, namesAsSetting, settingArguments, titleOverlap } from './relevance.js';
import { escapeRegExp } from '../../core/text.js';

export type TestsResult = { kind: 'found'; payload: FocusedTests } | { kind: 'unresolved'; reason: string };

interface Ranked {
  readonly test: TestCase;
  /** The body passes the option as a command-line argument (`"--crlf"`): it exercises the option itself. */
  readonly passesOption: boolean;
  /** 3: the test is the subject; 2: its name carries a spelling; 1: an enclosing suite's does; 0: only its body mentions it. */
  readonly nameScore: number;
  /** The test file is named after the subject (`command.allowExcessArguments.test.js`): the suite a maintainer keeps for it. */
  readonly dedicatedFile: boolean;
  /** The name is the subject and nothing else (`test_hidden`, `TestFind`): the test a maintainer keeps for it. */
  readonly namedExactly: boolean;
  /** Distinct options the body passes: a command line that sets fewer other options isolates the subject better. */
  readonly otherOptions: number;
  readonly lines: number;
  /** How strongly the test exercises the behaviour site (see relevance.ts). */
  readonly relevance: number;
  /** Subject words its title carries. */
  readonly overlap: number;
  /** Words of the option's help text its title carries (`spawns … at once` for "how many processes run at once"). */
  readonly helpOverlap: number;
}

const TRIES = 8;

/**
 * The focused test of a key, or — when no test mentions the key — of the command-line
 * option its declaration also makes (clap's `#[arg(long = "port", env = "APP_PORT")]`, click's `envvar=`,
 * oclif's `env:`):
 * tests set such a value on the command line. The declaration names both, so it joins
 * the test's evidence.
 */
export function findFocusedTests(
  ctx: AnalysisContext,
  subject: Subject,
  primary: Location | null,
  behaviour: { readonly location: Location; readonly rejects: boolean } | null = null,
  carriers: readonly string[] = [],
): TestsResult {
  const direct = testsFor(ctx, subject, primary, behaviour, carriers);
  if (direct.kind === 'found' || subject.kind !== 'configuration_key' || !primary) return direct;
  const option = optionDeclaredAt(ctx, primary);
  if (!option) return direct;
  // The option's own declaration, with the field or variable it lands in, ties tests to it as for the option itself.
  const declaration: Location = { ...primary, symbol: option.carrier ?? primary.symbol ?? null, start_line: option.startLine, end_line: option.endLine };
  const viaOption = testsFor(ctx, { kind: 'cli_option', name: `--${option.longs[0]!}` }, declaration, behaviour, carriers);
  if (viaOption.kind !== 'found') return direct;
  const paths = viaOption.payload.evidence_paths.includes(primary.path) ? viaOption.payload.evidence_paths : [...viaOption.payload.evidence_paths, primary.path];
  return { kind: 'found', payload: { ...viaOption.payload, evidence_paths: paths } };
}

function testsFor(
  ctx: AnalysisContext,
  subject: Subject,
  primary: Location | null,
  behaviour: { readonly location: Location; readonly rejects: boolean } | null = null,
  carriers: readonly string[] = [],
): TestsResult {
  if (subject.kind === 'behavior') {
    return { kind: 'unresolved', reason: 'a behavior subject names no identifier a test could mention' };
  }
  const spellings = subjectSpellings(subject);
  if (!spellings) return { kind: 'unresolved', reason: `\`${subject.name}\` has no identifier spelling to search tests for` };
  const extra = primary?.symbol && /^[A-Za-z_$][\w$]*$/.test(primary.symbol) && !spellings.identifiers.includes(primary.symbol) ? primary.symbol : null;
  // Names the value was followed into (`forceNoColor` for NO_COLOR) are how its tests set it; short or
  // one-word names (`limit`) are too common to tie a test to the subject.
  const renamed = carriers.filter((c) => c.length >= 8 && words(c).length > 1 && !spellings.identifiers.includes(c));
  const extras = [...(extra ? [extra] : []), ...renamed];
  const mention = extras.length > 0 ? new Spellings([...spellings.identifiers, ...extras], spellings.dashed) : spellings;

  const shorts = subject.kind === 'cli_option' ? declaredShorts(ctx, primary) : [];
  const optionArg = subject.kind === 'cli_option' ? optionArgument(spellings, shorts) : null;
  const longArgument = subject.kind === 'cli_option' ? optionArgument(spellings, []) : null;
  const effective = new Map<TestCase, string>();
  const behaviourFn = behaviourFunction(ctx, behaviour?.location ?? null);
  const carrierUse = subject.kind === 'cli_option' ? carrierUsage(spellings, primary?.symbol ?? null, renamed) : null;
  const directUse = subject.kind === 'cli_option' ? carrierUsage(spellings, primary?.symbol ?? null, []) : null;
  const files = candidateFiles(ctx, mention, spellings);
  const ranked: Ranked[] = [];
  const key = words(spellings.identifiers[0]!);
  const help = subject.kind === 'cli_option' || subject.kind === 'configuration_key' ? helpWords(ctx, primary, key) : new Set<string>();
  for (const path of files) {
    const file = ctx.parsed(path);
    if (!file) continue;
    // `test_options.py` is the suite for `Option` as much as `test_option.py` would be.
    const dedicatedFile = containsWords(words(path.slice(path.lastIndexOf('/') + 1)), key, true);
    for (const test of testsInFile(file)) {
      const body = effectiveBody(file, test);
      effective.set(test, body);
      // A help text lists every option (`--any-branch  Allow publishing from any branch`): spelling it there passes nothing.
      const passesOption = (optionArg?.test(body) ?? false) && distinctOptions(body) < TEST_FINDER.helpListingOptions;
      // An option's test passes it or touches its carrier; `r.height` in a renderer test is another `height`.
      const mentioned = carrierUse ? passesOption || carrierUse.test(body) : mention.positions(body).length > 0;
      // Spelling the subject itself ties a test to it more surely than a name the value was copied into. A
      // carrier spelled only in a same-file helper (`options.time_unit` in a helper that builds every option)
      // is plumbing every test of the file shares: direct only in the test's own body, or when the option is passed.
      const direct = passesOption || (carrierUse ? directUse!.test(test.body) : spellings.positions(body).length > 0) || (extra !== null && new RegExp(`\\b${extra}\\b`).test(body));
      // A symbol's test uses it: `test_help_option` that never says `Option` is not a test of `Option`.
      const named = Math.min(nameScore(subject, key, test), subject.kind === 'symbol' && !mentioned ? 1 : 3);
      // A parametrized case whose id is the subject (`test_parse_args[outdir]`) is the case a maintainer keeps for it.
      const namedExactly = named === 2 && (test.caseId !== undefined ? words(test.caseId) : words(test.name).filter((w) => w !== 'test' && w !== 'tests')).join(' ') === key.join(' ');
      // `runs_successfully` is not about `--runs`: one word of a name ties a test to a one-word option only when it is the whole name.
      // `… even when maxArgLength is set` is about something else, with the subject as a side condition.
      const incidental = named === 2 && isIncidentalTitle(test.name);
      // `cannot_combine_compress_with_chunked` names the option as one side of a refusal, not as the setting under test.
      const asSetting = key.length === 1 && namesAsSetting(words(test.name), key[0]!) && !isFailureTitle(words(test.name));
      const score = (named === 2 && subject.kind === 'cli_option' && key.length === 1 && !namedExactly && !asSetting) || incidental ? 0 : named;
      if (score < 2 && !mentioned) continue;
      const title = words(test.name);
      // Calling the function that holds the behaviour with the value set is what fails when the behaviour breaks;
      // the unit's own test file comes next; an end-to-end run or a title about the option's absence last.
      const relevance =
        (mentioned && callsFunction(test.body, behaviourFn) ? 6 : mentioned && callsFunction(body, behaviourFn) ? 2 : 0) +
        (mentioned && isPairedWith(test.path, behaviour?.location ?? null) ? 2 : 0) -
        // A test that expects an error exercises a validation, unless rejecting is the behaviour itself;
        // so does one titled for a refusal (`cannot combine --compress and --chunked`), a weaker sign.
        (behaviour && !behaviour.rejects && expectsError(test.body) ? 3 : 0) -
        (!behaviour?.rejects && isFailureTitle(title) ? 2 : 0) +
        (direct ? 2 : mentioned ? 1 : 0) -
        (isEndToEnd(test) ? 2 : 0) -
        // An option's test titled for its absence (`… when unset`) checks the default, not the option.
        (subject.kind !== 'symbol' && subject.kind !== 'test' && isNegatedTitle(title, key) ? 1 : 0);
      ranked.push({
        test,
        passesOption,
        nameScore: score,
        dedicatedFile,
        namedExactly,
        otherOptions: behaviourFn && callsFunction(body, behaviourFn) ? settingArguments(body, behaviourFn) : optionArg ? distinctOptions(body) : 0,
        lines: test.endLine - test.startLine + 1,
        relevance,
        // One word of a title ties a test to a one-word option no more than its name does (see `score`).
        overlap: key.length > 1 && !incidental ? titleOverlap(title, key) : 0,
        helpOverlap: [...contentWords(test.name)].filter((w) => help.has(w)).length,
      });
    }
  }
  if (ranked.length === 0) {
    const names = mention.grepPatterns.map((s) => `\`${s}\``).join(', ');
    return { kind: 'unresolved', reason: `no test in ${files.length} candidate files mentions ${names}` };
  }
  ranked.sort(
    (a, b) =>
      Number(b.nameScore === 3) - Number(a.nameScore === 3) ||
      specificity(b) + b.relevance - (specificity(a) + a.relevance) ||
      Number(b.namedExactly) - Number(a.namedExactly) ||
      Number(b.dedicatedFile) - Number(a.dedicatedFile) ||
      b.overlap - a.overlap ||
      b.helpOverlap - a.helpOverlap ||
      a.otherOptions - b.otherOptions ||
      siblingOrder(a.test, b.test) ||
      a.lines - b.lines ||
      (a.test.path < b.test.path ? -1 : a.test.path > b.test.path ? 1 : 0) ||
      a.test.startLine - b.test.startLine,
  );
  const reasons: string[] = [];
  for (const { test } of ranked.slice(0, TRIES)) {
    const result = commandFor(ctx, test);
    if (result.kind === 'unresolved') {
      reasons.push(result.reason);
      continue;
    }
    // A test that passes only the short name is tied to the subject by the declaration that names both.
    // So is a test that uses only a name the value was bound to there (`forceNoColor` for NO_COLOR).
    const body = effective.get(test) ?? test.body;
    const indirect = !(longArgument?.test(body) ?? false) && spellings.positions(test.body).length === 0;
    // A test that passes the option through a same-file helper is cited from that helper on, so the citation shows it.
    const file = ctx.parsed(test.path);
    const start = file ? citedFrom(file, test, (text) => spellings.positions(text).length > 0 || (longArgument?.test(text) ?? false)) : test.startLine;
    const evidencePaths = primary !== null && indirect && !result.command.evidence_paths.includes(primary.path) ? [...result.command.evidence_paths, primary.path] : result.command.evidence_paths;
    const payload = focusedTestsSchema.parse(
      {
        ...result.command,
        evidence_paths: evidencePaths,
        selection: 'representative',
        location: { role: 'primary', path: test.path, symbol: test.defined ?? test.name, start_line: start, end_line: Math.min(test.endLine, start + 199) },
      },
      'focused_tests',
    );
    return { kind: 'found', payload };
  }
  return { kind: 'unresolved', reason: `tests mention the subject but none has a runnable command: ${reasons[0]}` };
}

/**
 * Test files (and Rust sources, whose unit tests live beside the code) that
 * contain a spelling, test paths first. Not whole-word: a test named
 * `dry_run_plans_nothing` is a candidate even if its body never says `dry_run`.
 */
function candidateFiles(ctx: AnalysisContext, spellings: Spellings, own: Spellings): string[] {
  const matches = ctx.grep(spellings.grepPatterns, { pathspecs: SOURCE_PATHSPECS });
  const paths = new Set(matches.map((m) => m.path));
  // Files that spell the subject itself come before those that only name a carrier it was copied into,
  // so that widely used carriers cannot crowd the subject's own tests out of the bound.
  const spelled = new Set(matches.filter((m) => own.positions(m.text).length > 0).map((m) => m.path));
  const order = (a: string, b: string): number => Number(spelled.has(b)) - Number(spelled.has(a)) || (a < b ? -1 : a > b ? 1 : 0);
  const tests = [...paths].filter(isTestPath).sort(order);
  const rustSources = [...paths].filter((p) => !isTestPath(p) && p.endsWith('.rs')).sort(order);
  return [...tests, ...rustSources].slice(0, TEST_FINDER.maxCandidateFiles);
}

/**
 * Variants of one test (`limit_file`, `limit_stdin`, `limit_file_preview`) are
 * written after the base case: among siblings of one file, the first is the
 * test a maintainer points to.
 */
const FILLER = new Set(['test', 'tests', 'should', 'it']);

function siblingOrder(a: TestCase, b: TestCase): number {
  if (a.path !== b.path) return 0;
  const x = words(a.name).filter((w) => !FILLER.has(w));
  const y = words(b.name).filter((w) => !FILLER.has(w));
  let shared = 0;
  while (shared < x.length && shared < y.length && x[shared] === y[shared]) shared++;
  // `glob_searches` and `smart_case_glob_searches`: one name is the other with qualifiers around it.
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  const qualified = short.length >= 2 && short.length < long.length && long.some((_, i) => short.every((w, k) => long[i + k] === w));
  return (shared >= 2 && shared < Math.max(x.length, y.length)) || qualified ? a.startLine - b.startLine : 0;
}

/** Passing the option outweighs carrying its name; together they beat either. */
const specificity = (r: Ranked): number => Math.min(r.nameScore, 2) + (r.passesOption ? 3 : 0);


/**
 * `"--crlf"`, `"--width=80"`, a word of a command line written as one string
 * (`"fd --hidden foo"`), or a declared short name standing as its own argument (`"-n"`).
 */
function optionArgument(spellings: Spellings, shorts: readonly string[]): RegExp {
  const name = escapeRegExp(spellings.dashed ?? spellings.identifiers[0]!);
  const long = `(["'\`]|["'\`][^"'\`\n]*\\s)--${name}(=[^"'\`]*|\\s[^"'\`\n]*)?["'\`]`;
  const short = shorts.length > 0 ? `|["'\`]-(${shorts.map(escapeRegExp).join('|')})["'\`]` : '';
  return new RegExp(`${long}${short}`);
}

function distinctOptions(body: string): number {
  return new Set([...body.matchAll(/["'`\s]--([A-Za-z][\w-]*)/g)].map((m) => m[1])).size;
}

/**
 * The option's carrier used as a field, attribute or keyword (`opts.Height`,
 * `args.dry_run`, `dry_run=True`, `Options{Width: 3}`). A one-word spelling
 * counts only when it is the declared carrier itself: `height` alone is too
 * common a word to tie a test to `--height`.
 */
function carrierUsage(spellings: Spellings, carrier: string | null, renamed: readonly string[]): RegExp {
  const names = [...spellings.identifiers.filter((s) => words(s).length > 1 || s === carrier), ...renamed];
  if (carrier && /^[A-Za-z_$][\w$]*$/.test(carrier) && !names.includes(carrier)) names.push(carrier);
  if (names.length === 0) return /(?!)/;
  const alt = names.map(escapeRegExp).join('|');
  return new RegExp(`(\\.(${alt})(?![\\w$])|(?<![\\w$.])(${alt})\\s*(=(?!=)|:(?!:)))`);
}

/** Lower-case words of an identifier, title or file name: `allowExcessArguments()` → allow, excess, arguments. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * Whole words in a row, so `Option` does not match `test_..._options_...` and
 * `line_length` does not match `read_cache_line_lengths`.
 */
function containsWords(haystack: readonly string[], needle: readonly string[], plural = false): boolean {
  if (needle.length === 0) return false;
  const last = needle.length - 1;
  const same = (h: string | undefined, w: string, j: number) => h === w || (plural && j === last && h === `${w}s`);
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((w, j) => same(haystack[i + j], w, j))) return true;
  }
  return false;
}

function nameScore(subject: Subject, key: readonly string[], test: TestCase): number {
  if (subject.kind === 'test') {
    const full = [...test.scopes, test.name];
    const wanted = subject.name.split(/::|\.| > /).filter(Boolean);
    if (full.join('::').endsWith(wanted.join('::')) || test.name === subject.name) return 3;
  }
  if (containsWords(words(test.name), key)) return 2;
  return test.scopes.some((s) => containsWords(words(s), key)) ? 1 : 0;
}
