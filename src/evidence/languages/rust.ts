// Rust extraction: items with their impl/trait containers, clap options
// (derive fields, builder chains, the arg! macro), serde fields, env and key
// reads, and in-file test code (#[cfg(test)] modules, #[test] functions).
import type { ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { lazyDeclarations, type ConfigKeyDeclaration, type Definition, type DefinitionKind, type FileFacts, type OptionDeclaration, type Span } from './facts.js';
import { ancestors, children, literalArgs, matchesOf, namedChildren, spanOf, startLine, statementSpan, stringValue, type NameFocus } from './syntax.js';

const DEFINITIONS = `
(function_item name: (identifier) @name) @def
(function_signature_item name: (identifier) @name) @def
(struct_item name: (type_identifier) @name) @def
(union_item name: (type_identifier) @name) @def
(enum_item name: (type_identifier) @name) @def
(enum_variant name: (identifier) @name) @def
(trait_item name: (type_identifier) @name) @def
(type_item name: (type_identifier) @name) @def
(const_item name: (identifier) @name) @def
(static_item name: (identifier) @name) @def
(mod_item name: (identifier) @name) @def
(macro_definition name: (identifier) @name) @def
(field_declaration name: (field_identifier) @name) @def
`;
const CALLS = `(call_expression function: (_) @fn arguments: (arguments) @args) @call`;
const MACROS = `(macro_invocation macro: (_) @macro (token_tree) @tokens) @call`;
const INDEXES = `(index_expression (_) (string_literal) @key) @index`;

const ITEM_KIND: Record<string, DefinitionKind> = {
  function_item: 'function',
  function_signature_item: 'method',
  struct_item: 'struct',
  union_item: 'struct',
  enum_item: 'enum',
  enum_variant: 'variant',
  trait_item: 'trait',
  type_item: 'type',
  const_item: 'const',
  static_item: 'static',
  mod_item: 'module',
  macro_definition: 'macro',
  field_declaration: 'field',
};
const STATEMENTS = new Set(['let_declaration', 'expression_statement', 'field_initializer', 'static_item', 'const_item']);
const BODY_STOP = new Set(['block', 'function_item', 'source_file']);
const KEY_READ_METHODS = new Set(['get', 'get_str', 'get_string', 'get_int', 'get_bool', 'get_float', 'get_table', 'get_array']);

interface Attribute {
  readonly path: string;
  readonly args: ReadonlyMap<string, SyntaxNode | null>;
  readonly text: string;
}

/** Attributes and doc comments directly above an item, nearest last. */
function leading(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let s = node.previousNamedSibling; s; s = s.previousNamedSibling) {
    const isDoc = (s.type === 'line_comment' || s.type === 'block_comment') && s.childForFieldName('doc') !== null;
    if (s.type !== 'attribute_item' && !isDoc) break;
    out.unshift(s);
  }
  return out;
}

function attributesOf(node: SyntaxNode): Attribute[] {
  return leading(node)
    .filter((s) => s.type === 'attribute_item')
    .flatMap((item) => namedChildren(item).filter((a) => a.type === 'attribute'))
    .map((attr) => {
      const [head] = namedChildren(attr);
      const tokens = attr.childForFieldName('arguments');
      return { path: head?.text ?? '', args: tokenArgs(tokens), text: tokens?.text ?? '' };
    });
}

/** `long, short = 'j', rename = "x"` → {long: null, short: 'j', rename: "x"}; later duplicates are dropped. */
function tokenArgs(tokens: SyntaxNode | null): Map<string, SyntaxNode | null> {
  const out = new Map<string, SyntaxNode | null>();
  const cs = children(tokens);
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i]!;
    if (c.type !== 'identifier' || out.has(c.text)) continue;
    const hasValue = cs[i + 1]?.type === '=';
    out.set(c.text, hasValue ? (cs[i + 2] ?? null) : null);
  }
  return out;
}

const lastSegment = (path: string): string => path.slice(path.lastIndexOf(':') + 1);

/** `#[test]`, `#[tokio::test]`, `#[rstest]`, `#[test_case(…)]` on a function. */
export const TEST_FUNCTION_ATTRIBUTES: ReadonlySet<string> = new Set(['test', 'rstest', 'test_case']);

function isTestAttribute(a: Attribute): boolean {
  return TEST_FUNCTION_ATTRIBUTES.has(lastSegment(a.path)) || (a.path === 'cfg' && a.args.has('test') && !a.text.includes('not'));
}

function typeName(n: SyntaxNode | null): string | null {
  let t = n;
  while (t && (t.type === 'generic_type' || t.type === 'reference_type')) t = t.childForFieldName('type');
  if (t?.type === 'scoped_type_identifier') t = t.childForFieldName('name');
  return t?.text ?? null;
}

function containerOf(node: SyntaxNode): string | null {
  for (const p of ancestors(node)) {
    if (p.type === 'impl_item') return typeName(p.childForFieldName('type'));
    if (p.type === 'trait_item' || p.type === 'struct_item' || p.type === 'enum_item' || p.type === 'union_item')
      return p.childForFieldName('name')?.text ?? null;
    if (p.type === 'function_item' || p.type === 'mod_item') return null;
  }
  return null;
}

function scopeOf(node: SyntaxNode): string[] {
  const out: string[] = [];
  for (const p of ancestors(node)) {
    const name =
      p.type === 'impl_item' ? typeName(p.childForFieldName('type')) : p.type === 'source_file' ? null : ITEM_KIND[p.type] ? p.childForFieldName('name')?.text : null;
    if (name) out.unshift(name);
  }
  return out;
}

function inTestCode(node: SyntaxNode, fileIsTest: boolean): boolean {
  if (fileIsTest) return true;
  for (let p: SyntaxNode | null = node; p; p = p.parent) {
    if ((p.type === 'mod_item' || p.type === 'function_item') && attributesOf(p).some(isTestAttribute)) return true;
  }
  return false;
}

/** The file's definitions; with `focus`, only those named `focus.name`. */
export function rustDefinitions(file: ParsedFile, fileIsTest: boolean, focus?: NameFocus): Definition[] {
  return matchesOf('rust', DEFINITIONS, file.tree.rootNode, focus?.rows).flatMap((m) => {
    const def = m.get('def')!;
    const name = m.get('name')!;
    if (focus && name.text !== focus.name) return [];
    let kind = ITEM_KIND[def.type]!;
    const container = containerOf(def);
    if (kind === 'function' && container !== null) kind = 'method';
    if (kind === 'function' && attributesOf(def).some((a) => TEST_FUNCTION_ATTRIBUTES.has(lastSegment(a.path)))) kind = 'test';
    const head = leading(def)[0] ?? def;
    const body = def.childForFieldName('body');
    return [
      {
        name: name.text,
        kind,
        container,
        scope: scopeOf(def),
        nameLine: startLine(name),
        inTest: inTestCode(def, fileIsTest),
        ...spanOf(head, def, body),
      },
    ];
  });
}

const dashless = (name: string): string => name.replace(/_/g, '-');

function deriveOption(field: SyntaxNode, fileIsTest: boolean): OptionDeclaration | null {
  const name = field.childForFieldName('name')?.text;
  if (!name) return null;
  const longs: string[] = [];
  const shorts: string[] = [];
  for (const a of attributesOf(field)) {
    if (a.path === 'argh' && (a.args.has('switch') || a.args.has('option'))) longs.push(dashless(name));
    if (a.path !== 'arg' && a.path !== 'clap' && a.path !== 'structopt') continue;
    for (const [key, value] of a.args) {
      const v = stringValue(value);
      if (key === 'long') longs.push(v ?? dashless(name));
      else if (key === 'short') shorts.push(v ?? name[0]!);
      else if ((key === 'alias' || key === 'visible_alias') && v) longs.push(v);
    }
  }
  if (longs.length === 0 && shorts.length === 0) return null;
  const head = leading(field)[0] ?? field;
  return { framework: 'clap-derive', longs, shorts, carrier: name, inTest: inTestCode(field, fileIsTest), ...spanOf(head, field) };
}

/** The outermost call of a method chain that `call` belongs to (`Arg::new(..).long(..).short(..)`). */
function chainTop(call: SyntaxNode): SyntaxNode {
  let top = call;
  for (;;) {
    const field = top.parent;
    const next = field?.parent;
    if (field?.type !== 'field_expression' || next?.type !== 'call_expression' || next.childForFieldName('function')?.id !== field.id) return top;
    top = next;
  }
}

/** Every call in the chain below `top`, outermost first, as [method or path, first literal argument]. */
function chainCalls(top: SyntaxNode): [string, string | null][] {
  const out: [string, string | null][] = [];
  for (let c: SyntaxNode | null = top; c?.type === 'call_expression'; ) {
    const fn = c.childForFieldName('function');
    const first = literalArgs(c.childForFieldName('arguments'))[0] ?? null;
    if (fn?.type === 'field_expression') {
      out.push([fn.childForFieldName('field')?.text ?? '', first]);
      c = fn.childForFieldName('value');
    } else {
      out.push([fn?.text ?? '', first]);
      c = null;
    }
  }
  return out;
}

function builderOption(call: SyntaxNode, fileIsTest: boolean): OptionDeclaration | null {
  const top = chainTop(call);
  const calls = chainCalls(top);
  const root = calls[calls.length - 1];
  if (!root || !/(^|::)Arg::(new|with_name)$/.test(root[0])) return null;
  const longs = calls.filter(([m, v]) => (m === 'long' || m === 'alias' || m === 'visible_alias') && v).map(([, v]) => v!);
  const shorts = calls.filter(([m, v]) => m === 'short' && v).map(([, v]) => v!);
  if (longs.length === 0) return null;
  return { framework: 'clap-builder', longs, shorts, carrier: root[1], inTest: inTestCode(top, fileIsTest), ...spanOf(top) };
}

function macroOption(call: SyntaxNode, tokens: SyntaxNode, fileIsTest: boolean): OptionDeclaration | null {
  const longs = [...tokens.text.matchAll(/--([A-Za-z0-9][\w-]*)/g)].map((x) => x[1]!);
  const shorts = [...tokens.text.matchAll(/(?:^|[\s(])-([A-Za-z0-9])\b/g)].map((x) => x[1]!);
  if (longs.length === 0) return null;
  return { framework: 'clap-macro', longs, shorts, carrier: longs[0]!.replace(/-/g, '_'), inTest: inTestCode(call, fileIsTest), ...spanOf(call) };
}

const statementSpanOf = (node: SyntaxNode): Span => statementSpan(node, STATEMENTS, BODY_STOP);

function serdeFields(file: ParsedFile, fileIsTest: boolean): ConfigKeyDeclaration[] {
  const out: ConfigKeyDeclaration[] = [];
  for (const m of matchesOf('rust', '(struct_item body: (field_declaration_list) @body) @struct', file.tree.rootNode)) {
    const derives = attributesOf(m.get('struct')!).some((a) => a.path === 'derive' && /\bDeserialize\b/.test(a.text));
    if (!derives) continue;
    for (const field of namedChildren(m.get('body')!).filter((f) => f.type === 'field_declaration')) {
      const name = field.childForFieldName('name')?.text;
      if (!name) continue;
      const serde = attributesOf(field).filter((a) => a.path === 'serde');
      const renamed = serde.map((a) => stringValue(a.args.get('rename'))).find((v) => v);
      const aliases = serde.map((a) => stringValue(a.args.get('alias'))).filter((v): v is string => !!v);
      const head = leading(field)[0] ?? field;
      for (const key of [renamed ?? name, ...aliases])
        out.push({ key, kind: 'schema-field', carrier: name, inTest: inTestCode(field, fileIsTest), ...spanOf(head, field) });
    }
  }
  return out;
}

export function extractRust(file: ParsedFile, fileIsTest: boolean): FileFacts {
  const root = file.tree.rootNode;
  return lazyDeclarations(rustDefinitions(file, fileIsTest), () => {
    const options: OptionDeclaration[] = [];
    const configKeys: ConfigKeyDeclaration[] = serdeFields(file, fileIsTest);

    for (const m of matchesOf('rust', '(field_declaration name: (field_identifier)) @field', root)) {
      const opt = deriveOption(m.get('field')!, fileIsTest);
      if (opt) options.push(opt);
    }
    for (const m of matchesOf('rust', CALLS, root)) {
      const call = m.get('call')!;
      const fn = m.get('fn')!;
      const firstArg = literalArgs(m.get('args')!)[0] ?? null;
      const method = fn.type === 'field_expression' ? fn.childForFieldName('field')?.text : null;
      if (method === 'long' && firstArg) {
        const opt = builderOption(call, fileIsTest);
        if (opt && !options.some((o) => o.startLine === opt.startLine && o.framework === 'clap-builder')) options.push(opt);
      }
      if (!firstArg) continue;
      const env = /(^|::)env::var(_os)?$/.test(fn.text) || /^(std::)?env::var(_os)?$/.test(fn.text);
      if (env) configKeys.push({ key: firstArg, kind: 'env-read', carrier: null, inTest: inTestCode(call, fileIsTest), ...statementSpanOf(call) });
      else if (method && KEY_READ_METHODS.has(method))
        configKeys.push({ key: firstArg, kind: 'key-read', carrier: null, inTest: inTestCode(call, fileIsTest), ...statementSpanOf(call) });
    }
    for (const m of matchesOf('rust', MACROS, root)) {
      const call = m.get('call')!;
      const name = m.get('macro')!.text;
      const tokens = m.get('tokens')!;
      if (name === 'arg' || name === 'clap::arg') {
        const opt = macroOption(call, tokens, fileIsTest);
        if (opt) options.push(opt);
      } else if (name === 'env' || name === 'option_env') {
        const key = stringValue(namedChildren(tokens).find((t) => t.type === 'string_literal'));
        if (key) configKeys.push({ key, kind: 'env-read', carrier: null, inTest: inTestCode(call, fileIsTest), ...statementSpanOf(call) });
      }
    }
    for (const m of matchesOf('rust', INDEXES, root)) {
      const key = stringValue(m.get('key'));
      const index = m.get('index')!;
      if (key) configKeys.push({ key, kind: 'key-read', carrier: null, inTest: inTestCode(index, fileIsTest), ...statementSpanOf(index) });
    }
    return { options, configKeys };
  });
}

