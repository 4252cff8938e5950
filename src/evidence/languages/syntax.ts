// Node helpers shared by the language extractors: line spans, string literal
// values, statement and ancestor lookups. Tree-sitter rows are 0-based; every
// span here is 1-based and inclusive.
import { query, type LanguageId, type QueryMatch, type SyntaxNode } from '../parse/treesitter.js';
import type { Span } from './facts.js';

export const startLine = (n: SyntaxNode): number => n.startPosition.row + 1;

/** A node that ends at column 0 (doc comments swallow their newline) ends on the previous line. */
export function endLine(n: SyntaxNode): number {
  const { row, column } = n.endPosition;
  return column === 0 && row > n.startPosition.row ? row : row + 1;
}

/** A condition that compares with a string literal (`arg === '--delay'`, `name == "x"`). */
const COMPARES_WITH_LITERAL = /(===?|!==?)\s*['"`]|['"`]\s*(===?|!==?)/;

/**
 * Where an `if` cited with the block it controls ends: at its consequence when it dispatches on a
 * name and an `else if` (`elif`) follows — in a hand-written parser's `if (arg === '--delay') { … }
 * else if …` chain that is every later option. Otherwise the whole `if`: a plain `else`, or a chain
 * choosing between sources of one value (`let dir = if let Ok(v) = env::var(…) { … } else if …`),
 * is what the same decision makes.
 */
export function branchEnd(branch: SyntaxNode): SyntaxNode {
  const consequence = branch.childForFieldName('consequence');
  const alternative = branch.childForFieldName('alternative');
  if (!consequence || !alternative || !COMPARES_WITH_LITERAL.test(branch.childForFieldName('condition')?.text ?? '')) return branch;
  const inner = alternative.type === 'else_clause' ? alternative.namedChildren.find((c) => c?.type !== 'comment') : alternative;
  return alternative.type === 'elif_clause' || /^if_/.test(inner?.type ?? '') ? consequence : branch;
}

export function spanOf(first: SyntaxNode, last: SyntaxNode = first, body?: SyntaxNode | null): Span {
  const span = { startLine: startLine(first), endLine: endLine(last) };
  return body ? { ...span, bodyLine: startLine(body) } : span;
}

const STRING_PARTS = new Set([
  'string_content',
  'string_fragment',
  'interpreted_string_literal_content',
  'raw_string_literal_content',
  'escape_sequence',
]);
const STRING_NODES = new Set([
  'string_literal',
  'raw_string_literal',
  'string',
  'interpreted_string_literal',
  'template_string',
  'char_literal',
]);

/** The value of a string literal without interpolation, or null for anything else. */
export function stringValue(n: SyntaxNode | null | undefined): string | null {
  if (!n || !STRING_NODES.has(n.type)) return null;
  if (n.type === 'char_literal') return n.text.slice(1, -1);
  let out = '';
  for (const c of n.namedChildren) {
    if (!c) continue;
    if (!STRING_PARTS.has(c.type) && c.type !== 'string_start' && c.type !== 'string_end') return null;
    if (STRING_PARTS.has(c.type)) out += c.type === 'escape_sequence' ? unescape(c.text) : c.text;
  }
  return out;
}

function unescape(seq: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0' };
  const ch = seq.slice(1);
  return simple[ch] ?? ch;
}

export function namedChildren(n: SyntaxNode | null | undefined): SyntaxNode[] {
  return n ? n.namedChildren.filter((c): c is SyntaxNode => c !== null) : [];
}

export function children(n: SyntaxNode | null | undefined): SyntaxNode[] {
  return n ? n.children.filter((c): c is SyntaxNode => c !== null) : [];
}

export function* ancestors(n: SyntaxNode): Generator<SyntaxNode> {
  for (let p = n.parent; p; p = p.parent) yield p;
}

/**
 * Where an extraction looks for one name only: the 0-based rows on which the
 * name occurs, and the name. A definition's name node lies on a row whose text
 * holds the name, so the matches that touch those rows are all the matches
 * that can name it; a query limited to them visits a few paths from the root
 * instead of the whole tree.
 */
export interface NameFocus {
  readonly name: string;
  readonly rows: readonly number[];
}

/** The focus on `name` in `text`: every row holding it, ascending (none: the file cannot define it). */
export function focusOn(text: string, name: string): NameFocus {
  const rows: number[] = [];
  if (name.length === 0) return { name, rows };
  let row = 0;
  let scanned = 0;
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
    for (let nl = text.indexOf('\n', scanned); nl !== -1 && nl < at; nl = text.indexOf('\n', nl + 1)) {
      row++;
      scanned = nl + 1;
    }
    if (rows[rows.length - 1] !== row) rows.push(row);
  }
  return { name, rows };
}

type Captures = Map<string, SyntaxNode>;

/**
 * Every match of `source` in the file, as capture-name → node maps, in the
 * query's order. With `rows` (0-based, ascending), only the matches that touch
 * one of those rows, range by range.
 */
export function matchesOf(lang: LanguageId, source: string, root: SyntaxNode, rows?: readonly number[]): Captures[] {
  const q = query(lang, source);
  const toMap = (m: QueryMatch): Captures => new Map(m.captures.map((c) => [c.name, c.node] as const));
  if (!rows) return q.matches(root).map(toMap);
  const out: Captures[] = [];
  const seen = new Set<string>();
  // Consecutive rows are one range; a match touching several ranges is kept once.
  for (let i = 0; i < rows.length; ) {
    let end = i;
    while (end + 1 < rows.length && rows[end + 1] === rows[end]! + 1) end++;
    const range = { startPosition: { row: rows[i]!, column: 0 }, endPosition: { row: rows[end]! + 1, column: 0 } };
    for (const m of q.matches(root, range)) {
      const key = `${m.patternIndex}:${m.captures.map((c) => c.node.id).join(',')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(toMap(m));
    }
    i = end + 1;
  }
  return out;
}

/** Smallest ancestor-or-self whose type is in `types`, stopping at any type in `stop`. */
export function closest(n: SyntaxNode, types: ReadonlySet<string>, stop: ReadonlySet<string> = new Set()): SyntaxNode | null {
  for (let p: SyntaxNode | null = n; p; p = p.parent) {
    if (types.has(p.type)) return p;
    if (p !== n && stop.has(p.type)) return null;
  }
  return null;
}

const STATEMENT_MAX_LINES = 5;

/**
 * The statement around `node` (so a read shows with its assignment), unless that
 * statement is long — then just `node`, which is what a reader would point at.
 */
export function statementSpan(node: SyntaxNode, statements: ReadonlySet<string>, stop: ReadonlySet<string>): Span {
  const stmt = closest(node, statements, stop);
  if (stmt && endLine(stmt) - startLine(stmt) < STATEMENT_MAX_LINES) return spanOf(stmt);
  return spanOf(node);
}

/** The literal arguments of a call's argument list, in order (non-literals are null). */
export function literalArgs(args: SyntaxNode | null): (string | null)[] {
  return namedChildren(args)
    .filter((a) => a.type !== 'comment')
    .map((a) => stringValue(a));
}

export function isWithin(span: Span, line: number): boolean {
  return line >= span.startLine && line <= span.endLine;
}

/** Flags named in declaration strings such as `-n, --dry-run <v>` or `--jobs=N`. */
export function flagNames(specs: readonly string[]): { longs: string[]; shorts: string[] } {
  const longs: string[] = [];
  const shorts: string[] = [];
  for (const token of specs.flatMap((s) => s.split(/[\s,|]+/))) {
    const long = /^--([A-Za-z0-9][\w.-]*)/.exec(token);
    const short = /^-([A-Za-z0-9?])$/.exec(token.replace(/[=<[].*$/, ''));
    if (long) longs.push(long[1]!);
    else if (short) shorts.push(short[1]!);
  }
  return { longs, shorts };
}

/** `x.f` in `x.f(…)`: the member is called, not read. */
export function calledAsFunction(node: SyntaxNode): boolean {
  return node.parent?.type === 'call_expression' && node.parent.childForFieldName('function')?.equals(node) === true;
}

const receiversByTree = new WeakMap<object, ReadonlySet<string>>();

/**
 * JavaScript names bound to what a parser made of the program's raw arguments
 * (`const argv = minimist(process.argv.slice(2))`, `argv = yargs(hideBin(process.argv)).argv`):
 * the raw arguments are handed to a call, not only sliced. Computed once per tree.
 */
export function parsedArgumentReceivers(root: SyntaxNode): ReadonlySet<string> {
  const known = receiversByTree.get(root.tree);
  if (known) return known;
  const names = new Set<string>();
  for (const n of root.descendantsOfType(['variable_declarator', 'assignment_expression'])) {
    const target = n?.childForFieldName(n.type === 'variable_declarator' ? 'name' : 'left');
    const value = n?.childForFieldName(n.type === 'variable_declarator' ? 'value' : 'right');
    if (target?.type !== 'identifier' || !value || !value.text.includes('process.argv')) continue;
    if (value.descendantsOfType('arguments').some((a) => a?.text.includes('process.argv') === true)) names.add(target.text);
  }
  receiversByTree.set(root.tree, names);
  return names;
}

/**
 * A function named for reading the environment (`getenv`, `get_env`, `getEnvOrDefault`,
 * `get_environment_value`, `lookupEnv`, `env_var`): a key handed to it is an environment read.
 */
export const ENV_GETTER = /^(get_?|lookup_?|read_?)?env(iron(ment)?)?(_?(var(iable)?|value|or_?default))?$/i;
/** How environment variables are named (`APP_TOKEN`). */
export const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;
