// Test definitions in one parsed file, as each runner names them: Rust
// `#[test]` functions inside their inline modules, `it`/`test` calls inside
// their `describe` titles, pytest functions inside `Test*` classes, and Go
// `TestXxx(t *testing.T)` functions.
import type { ParsedFile } from '../context.js';
import { stringContent } from '../flow/value-syntax.js';
import { isRustTestItem, precedingAttributes, rustTestHasCases } from '../flow/rust.js';
import { familyOf, type Family } from '../flow/syntax.js';
import type { SyntaxNode } from '../parse/treesitter.js';

export interface TestCase {
  readonly path: string;
  readonly family: Family;
  /** The test's own name: function name or `it(...)` title. */
  readonly name: string;
  /** Enclosing names the runner composes into the full name, outermost first. */
  readonly scopes: readonly string[];
  readonly startLine: number;
  readonly endLine: number;
  /** Source text of the definition (with a Rust test's attributes, where rstest's cases spell their arguments). */
  readonly body: string;
  /** The runner generates one case per argument set under the test's name (rstest `#[case]`, `#[test_case]`). */
  readonly cases?: boolean;
  /** One case of a parametrized pytest function, by the id its parameters give it (`test_parse_args[outdir]`). */
  readonly caseId?: string;
  /** The name as the file defines it, when the runner's name adds to it (a case id). */
  readonly defined?: string;
}

// `test.serial` and `test.failing` are ava's; `skip` and `todo` never run, so they are no focused test.
const JS_TEST_CALLEE = /^(it|test)(\.(only|concurrent|sequential|serial|failing))?$/;
const JS_SUITE_CALLEE = /^(describe|suite)(\.(only|concurrent|sequential))?$/;
const GO_TEST_NAME = /^Test([A-Z0-9_]|$)/;
const RUST_TEST_MACRO = /^\w*test$/;

export function testsInFile(file: ParsedFile): TestCase[] {
  const family = familyOf(file.language);
  const out: TestCase[] = [];
  const visit = (node: SyntaxNode, scopes: string[]): void => {
    const found = testAt(family, file, node, scopes);
    if (found) {
      out.push(found);
      if (family === 'python') out.push(...pytestCases(file, node, found));
      return;
    }
    const scope = scopeName(family, node);
    const inner = scope === null ? scopes : [...scopes, scope];
    for (const child of node.namedChildren) if (child) visit(child, inner);
  };
  visit(file.tree.rootNode, []);
  return out;
}

function testAt(family: Family, file: ParsedFile, node: SyntaxNode, scopes: string[]): TestCase | null {
  const make = (name: string): TestCase => ({
    path: file.path,
    family,
    name,
    scopes,
    startLine: node.startPosition.row + 1,
    endLine: node.endPosition.row + 1,
    body: node.text,
  });
  switch (family) {
    case 'rust': {
      if (node.type === 'function_item') {
        if (!isRustTestItem(node)) return null;
        const first = precedingAttributes(node)[0] ?? node;
        const test = make(node.childForFieldName('name')?.text ?? '');
        // The location stays the function; its attributes (rstest's `#[case(…)]` arguments) count as its body.
        return {
          ...test,
          body: file.text.slice(first.startIndex, node.endIndex),
          ...(rustTestHasCases(node) ? { cases: true } : {}),
        };
      }
      const name = macroTestName(node);
      return name ? make(name) : null;
    }
    case 'js': {
      if (node.type !== 'call_expression') return null;
      const callee = node.childForFieldName('function')?.text ?? '';
      const title = firstStringArgument(node);
      return JS_TEST_CALLEE.test(callee) && title !== null ? make(title) : null;
    }
    case 'python': {
      if (node.type !== 'function_definition') return null;
      const name = node.childForFieldName('name')?.text ?? '';
      const inClass = scopes.length > 0;
      const atTop = node.parent?.type === 'module' || node.parent?.type === 'decorated_definition';
      return name.startsWith('test') && (inClass || atTop) ? make(name) : null;
    }
    case 'go': {
      if (node.type !== 'function_declaration' || !file.path.endsWith('_test.go')) return null;
      const name = node.childForFieldName('name')?.text ?? '';
      const params = node.childForFieldName('parameters')?.text ?? '';
      return GO_TEST_NAME.test(name) && /\*testing\.T\b/.test(params) ? make(name) : null;
    }
  }
}

/**
 * `@pytest.mark.parametrize(…, [pytest.param(['-o', 'out'], id='outdir'), …])` or `ids=['outdir', …]`:
 * each named case is a test of its own, `test_parse_args[outdir]`, cited from its decorators on.
 */
function pytestCases(file: ParsedFile, fn: SyntaxNode, test: TestCase): TestCase[] {
  const decorated = fn.parent?.type === 'decorated_definition' ? fn.parent : null;
  if (!decorated) return [];
  const out: TestCase[] = [];
  for (const decorator of decorated.namedChildren) {
    if (decorator?.type !== 'decorator' || !/\bparametrize\s*\(/.test(decorator.text)) continue;
    for (const kw of decorator.descendantsOfType('keyword_argument')) {
      const key = kw?.childForFieldName('name')?.text;
      const value = kw?.childForFieldName('value');
      if (!kw || !value) continue;
      // `pytest.param(…, id='x')`: the case is that call; `ids=[…]`: each string names the case at its position.
      const cases =
        key === 'id' && value.type === 'string' ? [{ id: stringContent(value), at: kw.parent?.parent ?? kw }]
        : key === 'ids' && value.type === 'list' ? value.namedChildren.filter((c) => c?.type === 'string').map((c) => ({ id: stringContent(c!), at: c! }))
        : [];
      for (const c of cases) {
        if (!/^[\w.-]+$/.test(c.id)) continue;
        out.push({
          ...test,
          name: `${test.name}[${c.id}]`,
          caseId: c.id,
          defined: test.name,
          startLine: decorated.startPosition.row + 1,
          body: `${c.at.text}\n${test.body}`,
        });
      }
    }
  }
  return out;
}

/** A name the runner puts in front of the tests inside `node`, if any. */
function scopeName(family: Family, node: SyntaxNode): string | null {
  switch (family) {
    case 'rust':
      return node.type === 'mod_item' && node.childForFieldName('body') ? node.childForFieldName('name')?.text ?? null : null;
    case 'js': {
      if (node.type !== 'call_expression') return null;
      const callee = node.childForFieldName('function')?.text ?? '';
      return JS_SUITE_CALLEE.test(callee) ? firstStringArgument(node) : null;
    }
    case 'python': {
      if (node.type !== 'class_definition') return null;
      const name = node.childForFieldName('name')?.text ?? '';
      // pytest also collects unittest classes whatever their name (`class BlackTestCase(BlackBaseTestCase)`).
      const bases = node.childForFieldName('superclasses')?.namedChildren ?? [];
      const unittest = bases.some((b) => b !== null && /(^|\.)\w*TestCase$/.test(b.text));
      return name.startsWith('Test') || unittest ? name : null;
    }
    case 'go':
      return null;
  }
}

/** A literal title; a template with substitutions is not a fixed name. */
function firstStringArgument(call: SyntaxNode): string | null {
  const first = call.childForFieldName('arguments')?.namedChildren[0];
  if (!first || (first.type !== 'string' && first.type !== 'template_string')) return null;
  if (first.namedChildren.some((c) => c?.type === 'template_substitution' || c?.type === 'escape_sequence')) return null;
  return stringContent(first);
}

/**
 * `rgtest!(name, |dir, cmd| { … })`: a project macro named `*test` whose first
 * token is the generated `#[test] fn`'s name, a common way to stamp out tests.
 */
function macroTestName(node: SyntaxNode): string | null {
  if (node.type !== 'macro_invocation' || node.parent?.type !== 'expression_statement') return null;
  if (!RUST_TEST_MACRO.test(node.childForFieldName('macro')?.text ?? '')) return null;
  const tokens = node.namedChildren.find((c) => c?.type === 'token_tree');
  const first = tokens?.child(1);
  const comma = tokens?.child(2);
  return first?.type === 'identifier' && comma?.text === ',' ? first.text : null;
}
