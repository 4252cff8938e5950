// Fallback for options declared by a project's own flag machinery (e.g.
// ripgrep's `impl Flag for Crlf { fn name_long() -> &str { "crlf" } }`): the
// construct around a string literal that spells the option. A literal returned
// by a tiny accessor names its container (the flag's type); any other literal
// names its statement.
import type { ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import type { Span } from './facts.js';
import { factsOf } from './index.js';
import { closest, endLine, spanOf, startLine, stringValue } from './syntax.js';

export interface LiteralSite {
  readonly span: Span;
  readonly symbol: string | null;
  /** True when the literal is returned by a small accessor of a type (a flag definition object). */
  readonly accessor: boolean;
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
      out.push({ span: spanOf(head, container, container.childForFieldName('body')), symbol: name, accessor: true, inTest: inTest(line) });
    } else {
      const stmt = closest(lit, STATEMENTS) ?? lit;
      out.push({ span: spanOf(stmt), symbol: null, accessor: false, inTest: inTest(line) });
    }
  }
  return out;
}
