// Fallback for options declared by a project's own flag machinery (e.g.
// ripgrep's `impl Flag for Crlf { fn name_long() -> &str { "crlf" } }`): the
// construct around a string literal that spells the option. A literal returned
// by a tiny accessor names its container (the flag's type); any other literal
// names its statement.
import type { ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import type { Span } from './facts.js';
import { factsOf } from './index.js';
import { branchEnd, closest, endLine, spanOf, startLine, stringValue } from './syntax.js';

/**
 * What the code does with the literal, strongest evidence of the option's own
 * handling first: returned by a flag type's accessor; tested in a branch (a
 * hand-written parser acting on it); an entry of a declaration table; looked up
 * as a key of parsed values; anything else (passed on, printed).
 */
export type LiteralUse = 'accessor' | 'condition' | 'table' | 'read' | 'other';
export const LITERAL_USES: readonly LiteralUse[] = ['accessor', 'condition', 'table', 'read', 'other'];

export interface LiteralSite {
  readonly span: Span;
  readonly symbol: string | null;
  readonly use: LiteralUse;
  readonly inTest: boolean;
}

const STRING_TYPES = ['string_literal', 'raw_string_literal', 'string', 'interpreted_string_literal', 'raw_string_literal'];
const FUNCTIONS = new Set([
  'function_item',
  'function_definition',
  'function_declaration',
  'method_definition',
  'method_declaration',
  'arrow_function',
  'function_expression',
]);
const CONTAINERS = new Set(['impl_item', 'trait_item', 'class_declaration', 'class_definition', 'class', 'object']);
const STATEMENTS = new Set([
  'let_declaration',
  'expression_statement',
  'match_arm',
  'field_initializer',
  'const_item',
  'static_item',
  'lexical_declaration',
  'variable_declaration',
  'return_statement',
  'pair',
  'short_var_declaration',
  'assignment_statement',
  'keyed_element',
  'var_spec',
  'assignment',
  'decorator',
]);
const ACCESSOR_MAX_LINES = 6;

/** Branching constructs with the field holding the deciding expression (null: the literal is a case label). */
const BRANCHES: Readonly<Record<string, string | null>> = {
  if_statement: 'condition',
  if_expression: 'condition',
  elif_clause: 'condition',
  while_statement: 'condition',
  while_expression: 'condition',
  ternary_expression: 'condition',
  conditional_expression: 'condition',
  switch_case: 'value',
  expression_case: 'value',
  case_clause: null,
  match_arm: 'pattern',
};
const BRANCH_STOP = new Set([...FUNCTIONS, 'expression_statement', 'lexical_declaration', 'let_declaration', 'short_var_declaration']);
const KEYED = new Set(['pair', 'keyed_element', 'keyword_argument', 'field_initializer']);
const TABLES = new Set(['object', 'dictionary', 'literal_value', 'argument_list', 'field_initializer_list']);
const SUBSCRIPTS = new Set(['subscript_expression', 'subscript', 'index_expression']);

const within = (inner: SyntaxNode, outer: SyntaxNode): boolean => inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;

/** The branch whose deciding expression (or case label) holds `lit`, with the block it controls. */
function deciding(lit: SyntaxNode): SyntaxNode | null {
  for (let p = lit.parent; p && !BRANCH_STOP.has(p.type); p = p.parent) {
    const field = BRANCHES[p.type];
    if (field === undefined) continue;
    if (field === null) return p;
    const cond = p.childForFieldName(field);
    if (cond && within(lit, cond)) return p;
  }
  return null;
}

function useOf(lit: SyntaxNode): { use: LiteralUse; node: SyntaxNode | null } {
  const parent = lit.parent;
  // `values['dry-run'] !== undefined ? …`: looking the parsed value up is a read wherever it stands.
  if (parent && SUBSCRIPTS.has(parent.type) && !parent.namedChildren[0]?.equals(lit)) return { use: 'read', node: null };
  const branch = deciding(lit);
  if (branch) return { use: 'condition', node: branch };
  // `{ flag: 'dry-run', type: 'boolean', description: … }`: the literal is one entry of a record describing the option.
  if (parent && KEYED.has(parent.type) && !parent.namedChildren[0]?.equals(lit)) {
    const table = parent.parent;
    if (table && TABLES.has(table.type) && table.namedChildren.filter((c) => c && KEYED.has(c.type)).length >= 3) return { use: 'table', node: table };
  }
  return { use: 'other', node: null };
}
function containerName(c: SyntaxNode): string | null {
  const named = c.type === 'impl_item' ? c.childForFieldName('type') : c.childForFieldName('name');
  return named ? (/[\w$]+/.exec(named.text)?.[0] ?? null) : null;
}

/** A Rust `struct X;` right above `impl … for X` is part of the same definition. */
function withTypeAbove(c: SyntaxNode, name: string | null): SyntaxNode {
  let prev = c.previousNamedSibling;
  while (prev && prev.type === 'attribute_item') prev = prev.previousNamedSibling;
  if (c.type !== 'impl_item' || prev?.type !== 'struct_item' || prev.childForFieldName('name')?.text !== name) return c;
  let head: SyntaxNode = prev;
  for (let s = prev.previousNamedSibling; s && (s.type === 'attribute_item' || s.type === 'line_comment'); s = s.previousNamedSibling) head = s;
  return head;
}

export function literalSites(file: ParsedFile, line: number, values: readonly string[]): LiteralSite[] {
  const row = line - 1;
  const defs = factsOf(file).definitions;
  const inTest = (l: number) => defs.some((d) => d.inTest && (d.kind === 'module' || d.kind === 'test') && l >= d.startLine && l <= d.endLine);
  const out: LiteralSite[] = [];
  const nodes = file.tree.rootNode.descendantsOfType(STRING_TYPES, { row, column: 0 }, { row, column: Number.MAX_SAFE_INTEGER });
  for (const lit of nodes) {
    if (!lit || startLine(lit) !== line || !values.includes(stringValue(lit) ?? '\0')) continue;
    const fn = closest(lit, FUNCTIONS);
    const container = fn && endLine(fn) - startLine(fn) < ACCESSOR_MAX_LINES ? closest(fn, CONTAINERS) : null;
    if (container) {
      const name = containerName(container);
      const head = withTypeAbove(container, name);
      out.push({ span: spanOf(head, container, container.childForFieldName('body')), symbol: name, use: 'accessor', inTest: inTest(line) });
      continue;
    }
    const { use, node } = useOf(lit);
    // A branch is cited with the block it controls; a table entry with its record.
    const stmt = node ?? closest(lit, STATEMENTS) ?? lit;
    out.push({ span: spanOf(stmt, use === 'condition' ? branchEnd(stmt) : stmt), symbol: null, use, inTest: inTest(line) });
  }
  return out;
}
