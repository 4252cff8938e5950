// Rust shapes the generic walk cannot read from statement structure alone:
// enum variants that carry the value, `match` arms that select on them or
// rebind it, tuple constructors that wrap it, and module or type names that
// merely share its spelling.
import type { FlowRole } from '../../core/contracts.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { ancestors, enclosingFunctionName, snippet, within } from './syntax.js';
import { DEFAULT_ATTRIBUTE, PARSER_ATTRIBUTE } from './value-syntax.js';
import type { AlsoStep } from './verdict.js';
import { TEST_FUNCTION_ATTRIBUTES } from '../languages/rust.js';

/** `Some(x)`, `Iteration::Warmup(i)`: a tuple struct or variant built around its argument, not a function call. */
export function isTupleConstructor(call: SyntaxNode): boolean {
  if (call.type !== 'call_expression') return false;
  const callee = call.childForFieldName('function');
  if (!callee || (callee.type !== 'identifier' && callee.type !== 'scoped_identifier')) return false;
  const last = callee.type === 'scoped_identifier' ? callee.childForFieldName('name') : callee;
  return /^[A-Z]/.test(last?.text ?? '');
}

type RustShape =
  | { readonly kind: 'variant'; readonly node: SyntaxNode; readonly owner: string | null }
  | { readonly kind: 'arm'; readonly node: SyntaxNode; readonly pattern: SyntaxNode }
  | { readonly kind: 'bind'; readonly node: SyntaxNode; readonly pattern: SyntaxNode }
  | { readonly kind: 'yield'; readonly node: SyntaxNode }
  | { readonly kind: 'wrap'; readonly node: SyntaxNode };

/** The Rust-specific construct `leaf` names, if any. */
function rustShape(leaf: SyntaxNode): RustShape | null {
  const parent = leaf.parent;
  if (parent?.type === 'enum_variant' && parent.childForFieldName('name')?.equals(leaf) === true) {
    const owner = parent.parent?.parent?.type === 'enum_item' ? parent.parent.parent.childForFieldName('name')?.text ?? null : null;
    return { kind: 'variant', node: parent, owner };
  }
  for (const n of ancestors(leaf)) {
    if (n.type === 'match_arm') {
      const pattern = n.childForFieldName('pattern');
      if (n.childForFieldName('value')?.equals(leaf)) return { kind: 'yield', node: n };
      if (!pattern || !within(leaf, pattern)) return null;
      // `Some(theme) =>` binds a new `theme` from the matched value; `Round::Retries(_) =>` selects on the variant.
      return isBoundName(leaf) ? { kind: 'bind', node: n, pattern } : { kind: 'arm', node: n, pattern };
    }
    if (n.type === 'block' || n.type === 'arguments') break;
  }
  const callee = parent?.type === 'scoped_identifier' && parent.childForFieldName('name')?.equals(leaf) === true ? parent : leaf;
  const call = callee.parent;
  if (call && isTupleConstructor(call) && call.childForFieldName('function')?.equals(callee) === true) {
    return { kind: 'wrap', node: call };
  }
  return null;
}

/**
 * An occurrence that names a module or a type rather than a value: `use
 * crate::paging::PagingMode;`, `mod paging;`, `shell: &Shell`, the `Shell` of
 * `Shell::Bash`. No value moves there, whatever it is spelled like.
 */
export function namesModuleOrType(leaf: SyntaxNode): boolean {
  const parent = leaf.parent;
  if (!parent) return false;
  if (ancestors(leaf).some((n) => n.type === 'use_declaration')) return true;
  if (parent.type === 'mod_item') return parent.childForFieldName('name')?.equals(leaf) === true;
  if ((parent.type === 'scoped_identifier' || parent.type === 'scoped_type_identifier') && parent.childForFieldName('path')?.equals(leaf) === true) return true;
  if (leaf.type !== 'type_identifier') return false;
  // `impl Warmup` and `struct Warmup` define the subject's own type.
  return parent.childForFieldName('name')?.equals(leaf) !== true && !(parent.type === 'impl_item' && parent.childForFieldName('type')?.equals(leaf) === true);
}

/** A name a pattern introduces, as opposed to the constructor or path it matches against. */
function isBoundName(leaf: SyntaxNode): boolean {
  const parent = leaf.parent;
  if (leaf.type !== 'identifier' || !parent || parent.type === 'scoped_identifier') return false;
  return !(parent.type === 'tuple_struct_pattern' && parent.childForFieldName('type')?.equals(leaf) === true);
}

export interface RustStep {
  readonly role: FlowRole;
  readonly node: SyntaxNode;
  /** Set when the step names its own symbol; otherwise the enclosing function is used. */
  readonly symbol: string | null;
  readonly description: string;
}

/** The flow step a Rust-specific construct stands for, if `leaf` names one. */
export function rustStep(leaf: SyntaxNode): RustStep | null {
  const shape = rustShape(leaf);
  if (!shape) return null;
  const fn = enclosingFunctionName('rust', shape.node);
  const where = fn ? ` in \`${fn}\`` : '';
  switch (shape.kind) {
    case 'variant': {
      const name = shape.owner ? `${shape.owner}::${leaf.text}` : leaf.text;
      return { role: 'carrier', node: shape.node, symbol: leaf.text, description: `variant \`${name}\` carries the value` };
    }
    case 'bind':
      return { role: 'transformation', node: shape.pattern, symbol: null, description: `arm \`${snippet(shape.pattern.text, 60)}\` of the \`match\`${where} binds \`${leaf.text}\` from the matched value` };
    case 'yield':
      return { role: 'transformation', node: shape.node, symbol: null, description: `\`${leaf.text}\` is what the \`match\` arm${where} yields` };
    case 'arm':
      return { role: 'consumer', node: shape.pattern, symbol: null, description: `arm \`${snippet(shape.pattern.text, 60)}\` of the \`match\`${where} selects what runs` };
    case 'wrap':
      return { role: 'transformation', node: shape.node, symbol: null, description: `value wrapped in \`${snippet(shape.node.text, 60)}\`${where}` };
  }
}

const PARSER_DERIVE = /#\[derive\([^)]*\b(Parser|Args|StructOpt|Deserialize)\b/;

export function precedingAttributes(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let p = n.previousNamedSibling; p; p = p.previousNamedSibling) {
    if (p.type === 'attribute_item') out.unshift(p);
    else if (p.type !== 'line_comment' && p.type !== 'block_comment') break;
  }
  return out;
}

export function recordDerivesParser(field: SyntaxNode): boolean {
  for (let p = field.parent; p; p = p.parent) {
    if (p.type === 'struct_item') return precedingAttributes(p).some((a) => PARSER_DERIVE.test(a.text));
  }
  return false;
}

/** `#[test]` functions and `#[cfg(test)]` modules are test code even inside `src/`. */
/** `#[test]`, `#[tokio::test]`, rstest's `#[rstest]`, the test-case crate's `#[test_case(…)]`. */
export const RUST_TEST_ATTRIBUTE = new RegExp(`^#\\[(\\w+::)*(${[...TEST_FUNCTION_ATTRIBUTES].join('|')})\\b`);

/** Attributes that make one test function into several generated cases (`fn_name::case_1`, …). */
const RUST_CASE_ATTRIBUTE = /^#\[(\w+::)*(case|test_case)\b/;

/** rstest `#[case(…)]`/`#[values(…)]` and test-case's `#[test_case(…)]`: the runner names each case under the function's name. */
export function rustTestHasCases(fn: SyntaxNode): boolean {
  return precedingAttributes(fn).some((a) => RUST_CASE_ATTRIBUTE.test(a.text)) || /#\[(\w+::)*(case|values)\b/.test(fn.childForFieldName('parameters')?.text ?? '');
}

export function isRustTestItem(n: SyntaxNode): boolean {
  if (n.type !== 'function_item' && n.type !== 'mod_item') return false;
  return precedingAttributes(n).some((a) =>
    n.type === 'mod_item' ? /^#\[cfg\(test\)\]$/.test(a.text.replace(/\s+/g, '')) : RUST_TEST_ATTRIBUTE.test(a.text),
  );
}

/** A Rust block's tail that yields a value: an expression, or a block-like one (`if`, `match`) without a `;`. */
function isValueExpression(n: SyntaxNode): boolean {
  if (n.type === 'expression_statement') return !n.text.trimEnd().endsWith(';') && /^(if|match|block|unsafe_block|loop)_?/.test(n.namedChildren[0]?.type ?? '');
  return !n.type.endsWith('_item') && n.type !== 'let_declaration';
}

/** `if … { a } else { b }`: a block's last expression is the value of the expression the block belongs to. */
export function yieldsTail(block: SyntaxNode, prev: SyntaxNode): boolean {
  if (block.type !== 'block' || block.lastNamedChild?.equals(prev) !== true) return false;
  const owner = block.parent?.type === 'else_clause' ? block.parent.parent : block.parent;
  return isValueExpression(prev) && (owner?.type === 'if_expression' || owner?.type === 'match_arm');
}

/** The last expression of a function body, which is its return value. */
export function isTailExpression(n: SyntaxNode): boolean {
  const block = n.parent;
  if (block?.type !== 'block' || block.lastNamedChild?.equals(n) !== true) return false;
  return isValueExpression(n) && block.parent?.type === 'function_item';
}

/**
 * What a parser attribute puts in place of a missing flag: `#[arg(default_value_t = 0)]`, and
 * `#[arg(env = "APP_PORT")]`, an environment variable read when the flag is not given.
 */
export function parsedFallbacks(attrs: readonly SyntaxNode[], label: string): AlsoStep[] | undefined {
  const out: AlsoStep[] = [];
  const defaulted = attrs.find((a) => PARSER_ATTRIBUTE.test(a.text) && DEFAULT_ATTRIBUTE.test(a.text));
  const env = attrs.find((a) => PARSER_ATTRIBUTE.test(a.text) && ENV_ATTRIBUTE.test(a.text));
  if (env) out.push({ role: 'precedence', node: env, description: `the flag wins over the environment variable \`${ENV_ATTRIBUTE.exec(env.text)?.[1] ?? 'env'}\` that fills \`${label}\` without it` });
  if (defaulted) out.push({ role: 'precedence', node: defaulted, description: `\`${label}\` defaults to the declared \`${snippet(DEFAULT_ATTRIBUTE.exec(defaulted.text)?.[0] ?? 'default', 60)}\`` });
  return out.length > 0 ? out : undefined;
}

/** Macros that write the value out (print, log, fail with it) rather than compute with it. */
const OUTPUT_MACRO = /^((\w+::)*(e?print(ln)?|write(ln)?|info|debug|warn|error|trace|panic|bail|assert(_eq|_ne)?|debug_assert(_eq|_ne)?))$/;

/** clap's `env = "APP_PORT"` (not `env` alone, which names the variable after the field). */
const ENV_ATTRIBUTE = /\benv\s*=\s*"([^"]+)"/;

export function outputMacro(name: string): boolean {
  return OUTPUT_MACRO.test(name);
}
