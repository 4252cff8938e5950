// Ranking candidate constructs and turning the winner into an
// ImplementationLocation. Ranking is a total, deterministic order; when the
// best rank is shared by several candidates the answer is `ambiguous`, never a
// pick. Supporting locations are non-test lines where the carrier is read.
import type { ImplementationLocation, Location } from '../core/contracts.js';
import { EVIDENCE, STATIC_LOCATE } from '../core/limits.js';
import { type AnalysisContext, type GrepMatch, type GrepOptions } from './context.js';
import { isTestPath } from '../core/test-code.js';
import type { Span } from './languages/index.js';
import type { SyntaxNode } from './parse/treesitter.js';
import { clipUtf8, escapeRegExp } from '../core/text.js';
import { isGeneratedLine, isPeripheralPath, isVendoredPath } from './peripheral.js';

export interface Candidate {
  readonly path: string;
  readonly span: Span;
  /** Identifier shown next to the location; must occur in the span. */
  readonly symbol: string | null;
  /** Short label for ambiguity listings (`function`, `clap-derive`, `schema-field`). */
  readonly kind: string;
  readonly name: string;
  /** Lower is stronger evidence of the defining construct. */
  readonly tier: number;
  readonly inTest: boolean;
  /** Identifiers through which the subject's value travels (for supporting locations). */
  readonly carriers: readonly string[];
}

export type LocateResult =
  | { readonly kind: 'found'; readonly payload: ImplementationLocation }
  | { readonly kind: 'ambiguous'; readonly candidates: string[] }
  | { readonly kind: 'unresolved'; readonly reason: string };

export type Choice =
  | { readonly kind: 'chosen'; readonly best: Candidate; readonly others: readonly Candidate[] }
  | { readonly kind: 'ambiguous'; readonly candidates: string[]; readonly tied: readonly Candidate[] }
  | { readonly kind: 'none'; readonly onlyInTests: readonly Candidate[] };

/** Code outside the product proper: a definition there loses to one in the product's sources. */
export function pathTier(path: string): number {
  return isPeripheralPath(path) ? 1 : 0;
}

const describe = (c: Candidate): string => `${c.path}:${c.span.startLine} ${c.kind} ${c.name}`;

function compare(a: Candidate, b: Candidate): number {
  return a.tier - b.tier || pathTier(a.path) - pathTier(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.span.startLine - b.span.startLine;
}

function dedupe(cands: readonly Candidate[]): Candidate[] {
  const seen = new Map<string, Candidate>();
  for (const c of cands) {
    const key = `${c.path}\0${c.span.startLine}\0${c.span.endLine}`;
    const prev = seen.get(key);
    if (!prev || compare(c, prev) < 0) seen.set(key, c);
  }
  return [...seen.values()];
}

/** The best candidate, or ambiguity when the best rank is shared; test code only when `allowTest`. */
export function choose(all: readonly Candidate[], allowTest: boolean): Choice {
  const unique = dedupe(all);
  const eligible = unique.filter((c) => allowTest || !c.inTest).sort(compare);
  const best = eligible[0];
  if (!best) return { kind: 'none', onlyInTests: unique.filter((c) => c.inTest).sort(compare) };
  const tied = eligible.filter((c) => c.tier === best.tier && pathTier(c.path) === pathTier(best.path));
  if (tied.length > 1) return { kind: 'ambiguous', candidates: tied.slice(0, STATIC_LOCATE.maxAmbiguousCandidates).map(describe), tied };
  return { kind: 'chosen', best, others: eligible.slice(1) };
}

/** Ranges over the location bound keep the construct's head (through the line its body opens). */
export function clip(span: Span): { start: number; end: number } {
  const max = EVIDENCE.maxLocationLines;
  if (span.endLine - span.startLine + 1 <= max) return { start: span.startLine, end: span.endLine };
  const head = span.bodyLine !== undefined && span.bodyLine >= span.startLine && span.bodyLine - span.startLine < max ? span.bodyLine : span.startLine + max - 1;
  return { start: span.startLine, end: head };
}

/** Whether one of `spellings` occurs in lines [start, end] of `path`. */
export function mentions(ctx: AnalysisContext, path: string, start: number, end: number, spellings: readonly string[]): boolean {
  const text = ctx.read(path);
  return text !== null && spellsAny(text.split('\n').slice(start - 1, end).join('\n'), spellings);
}

/** Whether `text` holds one of `spellings`; identifier-like ones only as whole words, as validators check them (`helpFlagName` does not spell `help`). */
export function spellsAny(text: string, spellings: readonly string[]): boolean {
  return spellings.some((s) => (/^\w+$/.test(s) ? new RegExp(`(^|\\W)${s}(\\W|$)`).test(text) : text.includes(s)));
}

/** Whether the lines spell the subject outside comments (a remark about an option is not where it acts). */
export function mentionsInCode(ctx: AnalysisContext, path: string, start: number, end: number, spellings: readonly string[]): boolean {
  const text = ctx.read(path);
  return text !== null && spellsAny(text.split('\n').slice(start - 1, end).filter((l) => !COMMENT_LINE.test(l)).join('\n'), spellings);
}

export function primaryLocation(ctx: AnalysisContext, c: Candidate): Location {
  const { start, end } = clip(c.span);
  const symbol = c.symbol !== null && mentions(ctx, c.path, start, end, [c.symbol]) ? c.symbol : null;
  return { role: 'primary', path: c.path, symbol, start_line: start, end_line: end };
}

export interface SupportingQuery {
  /** Identifiers that carry the subject's value or name it. */
  readonly carriers: readonly string[];
  /** `reads`: member reads first (options, keys); `calls`: call sites first (symbols). */
  readonly prefer: 'reads' | 'calls';
  /** Files whose mentions refer to something else (they define a namesake). */
  readonly excludePaths?: ReadonlySet<string>;
}

const COMMENT_LINE = /^\s*(\/\/|\/\*|\*|#(?!\[)|"""|''')/;
const IMPORT_LINE = /^\s*(use\s|import\s|from\s+\S+\s+import\s|export\s+\{|export\s+\*|pub\s+use\s|package\s|mod\s+\w+;|#include)/;

function priority(text: string, carrier: string, prefer: SupportingQuery['prefer']): number {
  const c = escapeRegExp(carrier);
  const call = new RegExp(`(^|[^\\w])${c}\\s*(\\(|::<|!\\()`).test(text);
  const read = new RegExp(`(\\.|->|\\*|\\[['"])${c}(?![\\w(])`).test(text);
  if (prefer === 'calls') return call ? 0 : read ? 1 : 2;
  return read ? 0 : call ? 2 : 1;
}

const sharedPrefix = (a: string, b: string): number => {
  const x = a.split('/');
  const y = b.split('/');
  let i = 0;
  while (i < x.length - 1 && i < y.length - 1 && x[i] === y[i]) i++;
  return i;
};

/** Whether line `line` of `path` lies in in-file test code (a #[cfg(test)] module, a test function). */
function inFileTest(ctx: AnalysisContext, path: string, line: number): boolean {
  return ctx.facts(path)?.definitions.some((d) => d.inTest && line >= d.startLine && line <= d.endLine) ?? false;
}

const STRING_NODE = /string|char_literal|heredoc/;
const CODE_IN_STRING = /substitution|interpolation/;

/** Whether every occurrence of `carrier` on the line sits inside a string literal (a message, not a use). */
function onlyInStrings(ctx: AnalysisContext, path: string, line: number, text: string, carrier: string): boolean {
  if (!/['"`]/.test(text)) return false;
  const parsed = ctx.parsed(path);
  if (!parsed) return false;
  const word = new RegExp(`(^|[^\\w$])(${escapeRegExp(carrier)})(?=[^\\w$]|$)`, 'g');
  for (const m of text.matchAll(word)) {
    const column = Buffer.byteLength(text.slice(0, m.index + m[1]!.length));
    let node: SyntaxNode | null = parsed.tree.rootNode.descendantForPosition({ row: line - 1, column });
    let quoted = false;
    for (; node; node = node.parent) {
      if (CODE_IN_STRING.test(node.type)) break;
      if (STRING_NODE.test(node.type)) {
        quoted = true;
        break;
      }
    }
    if (!quoted) return false;
  }
  return true;
}

export function supportingLocations(ctx: AnalysisContext, primary: Location, q: SupportingQuery): Location[] {
  const carriers = [...new Set(q.carriers.filter((c) => /^[A-Za-z_$][\w$]*$/.test(c)))];
  if (carriers.length === 0) return [];
  const hits = ctx
    .grep(carriers, { word: true, maxMatches: STATIC_LOCATE.maxCandidateMatches })
    .filter((m) => ctx.languageOf(m.path) !== null && !isTestPath(m.path) && !isVendoredPath(m.path) && !ctx.isMarkedNotCode(m.path) && !q.excludePaths?.has(m.path))
    .filter((m) => !(m.path === primary.path && m.line >= primary.start_line && m.line <= primary.end_line))
    .filter((m) => !IMPORT_LINE.test(m.text) && !COMMENT_LINE.test(m.text) && !isGeneratedLine(m.text))
    .flatMap((m) => {
      // git grep's word boundary ignores `$`, so `$DRY_RUN` in a string matched; it names no carrier in code.
      const carrier = carriers.find((c) => new RegExp(`(^|[^\\w$])${escapeRegExp(c)}([^\\w$]|$)`).test(m.text));
      return carrier ? [{ ...m, carrier, rank: priority(m.text, carrier, q.prefer) }] : [];
    })
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        Number(b.path === primary.path) - Number(a.path === primary.path) ||
        sharedPrefix(b.path, primary.path) - sharedPrefix(a.path, primary.path) ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
        a.line - b.line,
    );
  const out: Location[] = [];
  const checked = new Set<string>();
  for (const h of hits) {
    if (out.length >= STATIC_LOCATE.maxSupporting) break;
    if (h.path.endsWith('.rs')) {
      // Rust keeps unit tests inside source files; a file we cannot check is not vouched for.
      if (!checked.has(h.path) && checked.size >= STATIC_LOCATE.maxSupportingFilesParsed) continue;
      checked.add(h.path);
      if (inFileTest(ctx, h.path, h.line)) continue;
    }
    if (onlyInStrings(ctx, h.path, h.line, h.text, h.carrier)) continue;
    ctx.read(h.path);
    const call = keywordCall(ctx, h.path, h.line, h.carrier);
    out.push({ role: 'supporting', path: h.path, symbol: h.carrier, start_line: call?.[0] ?? h.line, end_line: call?.[1] ?? h.line });
  }
  return out;
}

/** Lines a call handing the subject over as a keyword argument may span and still be cited whole. */
const KEYWORD_CALL_LINES = 12;

/**
 * `add_argument("--user", action=EnvironmentDefault, env="APP_USER")`: a
 * use passed as a keyword argument is configured by the call's other
 * arguments, so the whole call is the use; cited whole when it is short.
 */
function keywordCall(ctx: AnalysisContext, path: string, line: number, carrier: string): [number, number] | null {
  const file = path.endsWith('.py') ? ctx.parsed(path) : null;
  const text = file?.text.split('\n', line)[line - 1];
  const column = text ? new RegExp(`(^|[^\\w$])${escapeRegExp(carrier)}([^\\w$]|$)`).exec(text) : null;
  if (!file || !text || !column) return null;
  let n: SyntaxNode | null = file.tree.rootNode.descendantForPosition({ row: line - 1, column: Buffer.byteLength(text.slice(0, column.index + column[1]!.length)) });
  while (n && n.type !== 'keyword_argument' && n.type !== 'call' && !/statement|definition|block/.test(n.type)) n = n.parent;
  const call = n?.type === 'keyword_argument' && n.parent?.type === 'argument_list' ? n.parent.parent : null;
  if (!call || call.type !== 'call') return null;
  const [start, end] = [call.startPosition.row + 1, call.endPosition.row + 1];
  return end > start && end - start < KEYWORD_CALL_LINES ? [start, end] : null;
}

export function found(primary: Location, supporting: readonly Location[], gaps: readonly string[] = []): LocateResult {
  return {
    kind: 'found',
    payload: {
      locations: [primary, ...supporting].slice(0, EVIDENCE.maxLocations),
      gaps: gaps.slice(0, EVIDENCE.maxGaps).map((g) => clipUtf8(g, EVIDENCE.gapMaxBytes)),
    },
  };
}

/**
 * Tied declarations inside one function (`if … { BoolP("version", "v") } else {
 * Bool("version") }`) are one declaration site: that function, when it fits the
 * location bound.
 */
function sameFunction(ctx: AnalysisContext, tied: readonly Candidate[]): Candidate | null {
  const first = tied[0]!;
  if (tied.some((c) => c.path !== first.path || c.inTest)) return null;
  const facts = ctx.facts(first.path);
  if (!facts) return null;
  const holder = facts.definitions
    .filter((d) => (d.kind === 'function' || d.kind === 'method') && tied.every((c) => c.span.startLine >= d.startLine && c.span.endLine <= d.endLine))
    .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
  if (!holder || holder.endLine - holder.startLine + 1 > EVIDENCE.maxLocationLines) return null;
  return { ...first, span: { startLine: holder.startLine, endLine: holder.endLine }, symbol: holder.name };
}

/**
 * Chooses among `candidates` (dropping any whose clipped range does not name the
 * subject, since a validator would reject it) and builds the result.
 */
export function settle(
  ctx: AnalysisContext,
  candidates: readonly Candidate[],
  opts: {
    readonly allowTest: boolean;
    readonly spellings: readonly string[];
    readonly support: (primary: Location, best: Candidate, others: readonly Candidate[]) => SupportingQuery | null;
    readonly notFound: string;
    /** False when discovery stopped at a bound, so an equally good candidate may be missing. */
    readonly searchComplete: boolean;
  },
): LocateResult {
  const named = candidates.filter((c) => {
    const { start, end } = clip(c.span);
    return mentions(ctx, c.path, start, end, opts.spellings);
  });
  let choice = choose(named, opts.allowTest);
  if (choice.kind === 'ambiguous') {
    const merged = sameFunction(ctx, choice.tied);
    if (!merged) return { kind: 'ambiguous', candidates: choice.candidates };
    choice = { kind: 'chosen', best: merged, others: [] };
  }
  if (choice.kind === 'none') {
    const inTests = choice.onlyInTests.slice(0, 3).map(describe);
    return { kind: 'unresolved', reason: inTests.length > 0 ? `${opts.notFound} outside test code (seen only in ${inTests.join(', ')})` : opts.notFound };
  }
  const primary = primaryLocation(ctx, choice.best);
  const q = opts.support(primary, choice.best, choice.others);
  const gaps = ctx.truncated || !opts.searchComplete ? ['candidate search stopped at its match bound; an equally good definition may exist elsewhere'] : [];
  return found(primary, q ? supportingLocations(ctx, primary, q) : [], gaps);
}

export interface Discovery {
  readonly matches: readonly GrepMatch[];
  /** Parseable files holding a match, product sources first, capped. */
  readonly files: readonly string[];
  readonly complete: boolean;
}

/** Candidate files for a subject: only files whose text matches are ever parsed. */
export function discover(ctx: AnalysisContext, patterns: readonly string[], opts: GrepOptions, allowTest: boolean): Discovery {
  const matches = ctx.grep(patterns, { ...opts, maxMatches: STATIC_LOCATE.maxCandidateMatches }).filter((m) => ctx.languageOf(m.path) !== null && !ctx.isMarkedNotCode(m.path));
  const paths = [...new Set(matches.map((m) => m.path))]
    .filter((p) => allowTest || !isTestPath(p))
    .sort((a, b) => pathTier(a) - pathTier(b) || (a < b ? -1 : a > b ? 1 : 0));
  const files = paths.slice(0, STATIC_LOCATE.maxCandidateFiles);
  return { matches, files, complete: files.length === paths.length };
}

export function candidateFrom(
  path: string,
  span: Span & { readonly inTest: boolean },
  c: Pick<Candidate, 'kind' | 'name' | 'tier' | 'symbol' | 'carriers'>,
): Candidate {
  const s: Span = span.bodyLine === undefined ? { startLine: span.startLine, endLine: span.endLine } : { startLine: span.startLine, endLine: span.endLine, bodyLine: span.bodyLine };
  return { path, span: s, inTest: span.inTest, ...c };
}
