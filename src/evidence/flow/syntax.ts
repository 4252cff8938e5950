// Language-neutral views of tree-sitter nodes for the four supported language
// families. The flow tracer and the test finder ask structural questions
// ("is this the condition of a branch?", "what function encloses this?") once,
// here, instead of repeating per-grammar node names in every rule.
import type { LanguageId, SyntaxNode } from '../parse/treesitter.js';

export type Family = 'rust' | 'js' | 'python' | 'go';

export function familyOf(lang: LanguageId): Family {
  return lang === 'typescript' || lang === 'tsx' || lang === 'javascript' ? 'js' : lang;
}

export interface Shapes {
  readonly comments: ReadonlySet<string>;
  readonly strings: ReadonlySet<string>;
  /** Nodes whose children are statements; a statement is a direct child of one. */
  readonly containers: ReadonlySet<string>;
  /** Field or property declarations, with the field holding the declared name. */
  readonly fields: Readonly<Record<string, string>>;
  /** Parameter declarations, with the field holding the name (null: the node itself is the name). */
  readonly params: Readonly<Record<string, string | null>>;
  /** Bindings and assignments: [target field, value field]. */
  readonly bindings: Readonly<Record<string, readonly [string, string]>>;
  /** Keyed initializers (`key: value`, `key=value`): [key field, value field]. */
  readonly keyed: Readonly<Record<string, readonly [string, string]>>;
  /** Shorthand initializers whose single identifier is both key and value. */
  readonly shorthand: ReadonlySet<string>;
  /** Branching constructs and the field that holds the deciding expression (null: second named child). */
  readonly branches: Readonly<Record<string, string | null>>;
  readonly functions: ReadonlySet<string>;
  /** Call nodes: [callee field, arguments field]. */
  readonly calls: Readonly<Record<string, readonly [string, string]>>;
  readonly returns: ReadonlySet<string>;
  /** Nodes that name a type holding fields (struct, class, interface), with their name field. */
  readonly records: Readonly<Record<string, string>>;
}

const SHAPES: Record<Family, Shapes> = {
  rust: {
    comments: new Set(['line_comment', 'block_comment']),
    strings: new Set(['string_literal', 'raw_string_literal']),
    containers: new Set(['block', 'declaration_list', 'field_declaration_list', 'source_file']),
    fields: { field_declaration: 'name' },
    params: { parameter: 'pattern' },
    bindings: {
      let_declaration: ['pattern', 'value'],
      assignment_expression: ['left', 'right'],
      compound_assignment_expr: ['left', 'right'],
      const_item: ['name', 'value'],
      static_item: ['name', 'value'],
    },
    keyed: { field_initializer: ['field', 'value'] },
    shorthand: new Set(['shorthand_field_initializer']),
    branches: { if_expression: 'condition', while_expression: 'condition', for_expression: 'value', match_expression: 'value', let_condition: 'value' },
    functions: new Set(['function_item', 'function_signature_item']),
    calls: { call_expression: ['function', 'arguments'] },
    returns: new Set(['return_expression']),
    records: { struct_item: 'name', enum_item: 'name', union_item: 'name' },
  },
  js: {
    comments: new Set(['comment']),
    strings: new Set(['string', 'template_string']),
    containers: new Set(['statement_block', 'program', 'class_body', 'interface_body', 'object_type', 'switch_body']),
    fields: { property_signature: 'name', public_field_definition: 'name', field_definition: 'property' },
    params: { required_parameter: 'pattern', optional_parameter: 'pattern' },
    bindings: {
      variable_declarator: ['name', 'value'],
      assignment_expression: ['left', 'right'],
      augmented_assignment_expression: ['left', 'right'],
    },
    keyed: { pair: ['key', 'value'] },
    shorthand: new Set(['shorthand_property_identifier']),
    branches: {
      if_statement: 'condition',
      while_statement: 'condition',
      do_statement: 'condition',
      for_statement: 'condition',
      // `for (const file of files)`: iterating over the value is a use of it.
      for_in_statement: 'right',
      ternary_expression: 'condition',
      switch_statement: 'value',
    },
    functions: new Set(['function_declaration', 'method_definition', 'function_expression', 'generator_function_declaration']),
    calls: { call_expression: ['function', 'arguments'], new_expression: ['constructor', 'arguments'] },
    returns: new Set(['return_statement']),
    records: { interface_declaration: 'name', class_declaration: 'name', type_alias_declaration: 'name', class: 'name' },
  },
  python: {
    comments: new Set(['comment']),
    strings: new Set(['string']),
    containers: new Set(['block', 'module']),
    fields: {},
    params: { typed_parameter: null, default_parameter: 'name', typed_default_parameter: 'name', identifier: null },
    bindings: { assignment: ['left', 'right'], augmented_assignment: ['left', 'right'] },
    keyed: { keyword_argument: ['name', 'value'], pair: ['key', 'value'] },
    shorthand: new Set(),
    branches: { if_statement: 'condition', elif_clause: 'condition', while_statement: 'condition', for_statement: 'right', conditional_expression: null, match_statement: 'subject' },
    functions: new Set(['function_definition']),
    calls: { call: ['function', 'arguments'] },
    returns: new Set(['return_statement']),
    records: { class_definition: 'name' },
  },
  go: {
    comments: new Set(['comment']),
    strings: new Set(['interpreted_string_literal', 'raw_string_literal']),
    containers: new Set(['statement_list', 'block', 'source_file', 'field_declaration_list']),
    fields: { field_declaration: 'name' },
    params: { parameter_declaration: 'name' },
    bindings: {
      short_var_declaration: ['left', 'right'],
      assignment_statement: ['left', 'right'],
      // `case r, ok := <-res:` in a select receives what the channel carries into `r`.
      receive_statement: ['left', 'right'],
      var_spec: ['name', 'value'],
      const_spec: ['name', 'value'],
    },
    keyed: { keyed_element: ['key', 'value'] },
    shorthand: new Set(),
    branches: {
      if_statement: 'condition',
      for_statement: 'condition',
      // `for _, p := range paths`: iterating over the value is a use of it.
      range_clause: 'right',
      expression_switch_statement: 'value',
      expression_case: 'value',
    },
    functions: new Set(['function_declaration', 'method_declaration']),
    calls: { call_expression: ['function', 'arguments'] },
    returns: new Set(['return_statement']),
    records: { type_spec: 'name' },
  },
};

export function shapes(family: Family): Shapes {
  return SHAPES[family];
}

const ALL_CONTAINERS = new Set(Object.values(SHAPES).flatMap((s) => [...s.containers]));

/** A node whose children are statements, in any supported language. */
export function isContainer(type: string): boolean {
  return ALL_CONTAINERS.has(type);
}

/** True when `inner` lies within `outer` (same node included). */
export function within(inner: SyntaxNode, outer: SyntaxNode): boolean {
  return inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;
}

export function ancestors(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let n = node.parent; n; n = n.parent) out.push(n);
  return out;
}

/** The deciding expression of a branching construct, if `node` is one. */
export function branchCondition(family: Family, node: SyntaxNode): SyntaxNode | null {
  const field = shapes(family).branches[node.type];
  if (field === undefined) return null;
  if (field === null) return node.namedChildren[1] ?? null;
  return node.childForFieldName(field);
}

/** The name of the nearest enclosing function, method or named arrow function. */
export function enclosingFunctionName(family: Family, node: SyntaxNode): string | null {
  const fns = shapes(family).functions;
  for (let n: SyntaxNode | null = node; n; n = n.parent) {
    if (fns.has(n.type)) return n.childForFieldName('name')?.text ?? null;
    if (family === 'js' && n.type === 'arrow_function' && n.parent?.type === 'variable_declarator') {
      return n.parent.childForFieldName('name')?.text ?? null;
    }
  }
  return null;
}

/** The name of the record type (struct, class, interface) that declares `node`, if any. */
export function enclosingRecordName(family: Family, node: SyntaxNode): string | null {
  const records = shapes(family).records;
  for (let n = node.parent; n; n = n.parent) {
    const field = records[n.type];
    if (field) return n.childForFieldName(field)?.text ?? null;
    if (shapes(family).functions.has(n.type)) return null;
  }
  return null;
}

/** How far below its record's header a field may sit for the header to open its citation. */
const RECORD_HEADER_LINES = 16;

/**
 * The record declaring a field (`type Config struct {`, `pub struct Prefs {`),
 * when its header is close enough above the field to be cited with it: which
 * type carries the value is half of what a reader wants from a field step.
 */
export function recordHeader(family: Family, field: SyntaxNode): SyntaxNode | undefined {
  const records = shapes(family).records;
  for (let n = field.parent; n; n = n.parent) {
    if (shapes(family).functions.has(n.type)) return undefined;
    if (!records[n.type]) continue;
    // A Go `type_spec` sits in its `type_declaration`, which holds the `type` keyword.
    const header = n.type === 'type_spec' && n.parent?.type === 'type_declaration' ? n.parent : n;
    return field.startPosition.row - header.startPosition.row <= RECORD_HEADER_LINES ? header : undefined;
  }
  return undefined;
}

/** One line of source text for a description: whitespace collapsed, bounded. */
export function snippet(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Offsets of each line start, so a (line, column) from grep maps to a tree index. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

export function descendants(n: SyntaxNode, pred: (d: SyntaxNode) => boolean): SyntaxNode | null {
  const stack = [n];
  for (let budget = 4_096; stack.length > 0 && budget > 0; budget--) {
    const d = stack.pop()!;
    if (pred(d)) return d;
    for (let i = d.namedChildCount - 1; i >= 0; i--) stack.push(d.namedChild(i)!);
  }
  return null;
}

export function operatorText(n: SyntaxNode): string | null {
  const op = n.childForFieldName('operator');
  if (op) return op.text;
  for (const c of n.children) if (c && !c.isNamed) return c.text;
  return null;
}

export function branchWord(type: string): string {
  if (type.startsWith('if') || type === 'elif_clause') return 'if';
  if (type.startsWith('while') || type.startsWith('do')) return 'while';
  if (type.startsWith('for') || type === 'range_clause') return 'for';
  if (type.startsWith('match')) return 'match';
  if (type.includes('switch') || type.includes('case')) return 'switch';
  return 'conditional';
}

export function isClassBodyStatement(n: SyntaxNode): boolean {
  const stmt = n.parent?.type === 'expression_statement' ? n.parent : n;
  return stmt.parent?.type === 'block' && stmt.parent.parent?.type === 'class_definition';
}

/** The nearest enclosing function, method or arrow function node. */
export function enclosingFunction(family: Family, node: SyntaxNode): SyntaxNode | null {
  const fns = shapes(family).functions;
  for (let n = node.parent; n; n = n.parent) if (fns.has(n.type) || n.type === 'arrow_function') return n;
  return null;
}

/** Member access in any supported language: `a.b`, `a->b`, Python's attribute, Go's selector. */
export const MEMBER_TYPES: ReadonlySet<string> = new Set(['field_expression', 'member_expression', 'attribute', 'selector_expression']);

/** The whole member chain around an occurrence: `cfg.dry_run`, not just `dry_run`. */
export function referenceText(n: SyntaxNode): string {
  let cur = n;
  while (cur.parent && MEMBER_TYPES.has(cur.parent.type)) cur = cur.parent;
  return cur.text;
}

/** The start of a member chain: `builder` in `builder.hidden(x).max_depth(y)`. */
export function rootOf(n: SyntaxNode): SyntaxNode {
  let cur = n;
  for (;;) {
    const inner = MEMBER_TYPES.has(cur.type) ? cur.namedChildren[0] : cur.type.startsWith('call') ? cur.namedChildren[0] : null;
    if (!inner) return cur;
    cur = inner;
  }
}

/** The last identifier of a target (`o.path` → path). */
export function lastName(target: SyntaxNode): string | null {
  const m = /([A-Za-z_$][\w$]*)\s*$/.exec(target.text);
  return m ? m[1]! : null;
}


const ASSIGNMENTS_WITH_OPERATOR = new Set(['augmented_assignment', 'augmented_assignment_expression', 'compound_assignment_expr', 'assignment_statement']);
// Logical forms (`??=`, `||=`) pick between sources and keep their own verdicts.
const ARITHMETIC_OPERATOR = /^(\+|-|\*\*?|\/\/?|%|@|<<|>>>?|&\^?|\||\^)=$/;

/** `x += n`, `x -= n`: the value adjusted in place. */
export function isArithmeticAssignment(n: SyntaxNode): boolean {
  return ASSIGNMENTS_WITH_OPERATOR.has(n.type) && ARITHMETIC_OPERATOR.test(n.childForFieldName('operator')?.text ?? '');
}

/**
 * JavaScript declares parameters without a wrapping node: `(diff, dryRun) =>`,
 * `run(dryRun = false)`, and `constructor({ dryRun, cwd })` or
 * `function run({ dryRun } = {})`, where a name destructured from an options
 * argument is a parameter exactly as if it had been declared one by one.
 * (TypeScript wraps each in a `required_parameter`, which the shapes table names.)
 */
export function isPlainParameter(n: SyntaxNode): boolean {
  let p = n.parent;
  if (n.type === 'identifier' && p?.type === 'assignment_pattern' && p.childForFieldName('left')?.equals(n)) p = p.parent;
  if (n.type === 'identifier') return p?.type === 'formal_parameters';
  if (p?.type !== 'object_pattern') return false;
  p = p.parent;
  if (p?.type === 'assignment_pattern') p = p.parent;
  if (p?.type === 'required_parameter' || p?.type === 'optional_parameter') p = p.parent;
  return p?.type === 'formal_parameters';
}

/** Lists of targets and of values an assignment pairs by position (Go's and Python's `a, b = x, y`). */
const PARALLEL_LISTS = new Set(['expression_list', 'pattern_list']);

/**
 * The target and value in the position of `origin`, when an assignment pairs
 * as many targets as values; null otherwise (one target, or one call's several results).
 */
export function pairedBinding(target: SyntaxNode, value: SyntaxNode, origin: SyntaxNode): [SyntaxNode, SyntaxNode] | null {
  if (!PARALLEL_LISTS.has(target.type) || !PARALLEL_LISTS.has(value.type)) return null;
  const targets = target.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type !== 'comment');
  const values = value.namedChildren.filter((c): c is SyntaxNode => c !== null && c.type !== 'comment');
  if (targets.length < 2 || targets.length !== values.length) return null;
  const at = Math.max(targets.findIndex((c) => within(origin, c)), values.findIndex((c) => within(origin, c)));
  return at < 0 ? null : [targets[at]!, values[at]!];
}
