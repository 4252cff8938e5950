// Go extraction: functions, methods with receiver types, type specs, struct
// fields, interface methods, package-level consts and vars, Test* functions;
// flag/pflag/cobra/kingpin flag calls, urfave/cli flag literals and the
// `case "--height":` arms of hand-written argument loops; struct tags,
// os.Getenv and Get*/index key reads.
import type { ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { lazyDeclarations, type ConfigKeyDeclaration, type Definition, type DefinitionKind, type FileFacts, type OptionDeclaration, type Span } from './facts.js';
import { STATIC_GO } from '../../core/limits.js';
import { ancestors, closest, ENV_GETTER, ENV_NAME, endLine, matchesOf, namedChildren, spanOf, startLine, statementSpan, stringValue, type NameFocus } from './syntax.js';

const DEFINITIONS = `
(function_declaration name: (identifier) @name) @def
(method_declaration receiver: (parameter_list) @recv name: (field_identifier) @name) @def
(type_spec name: (type_identifier) @name) @def
(type_alias name: (type_identifier) @name) @def
(const_spec name: (identifier) @name) @def
(source_file (var_declaration (var_spec name: (identifier) @name) @def))
(field_declaration name: (field_identifier) @name) @def
(method_elem name: (field_identifier) @name) @def
`;
const CALLS = `(call_expression function: (_) @fn arguments: (argument_list) @args) @call`;
const LITERALS = `(composite_literal type: (_) @type body: (literal_value) @body) @lit`;
const INDEXES = `(index_expression index: (interpreted_string_literal) @key) @index`;
const CASES = `(expression_case value: (expression_list) @values) @case`;
const STRING_CONSTS = `(const_spec name: (identifier) @name value: (expression_list . (interpreted_string_literal) @value .))`;
const DASHED = /^(--?)([A-Za-z0-9][\w.-]*)$/;

const STATEMENTS = new Set(['short_var_declaration', 'assignment_statement', 'expression_statement', 'var_spec', 'return_statement', 'keyed_element']);
const BODY_STOP = new Set(['block', 'source_file']);
const FLAG_CALL = /^(Bool|String|Int|Int64|Int32|Uint|Uint64|Uint32|Float64|Float32|Duration|Count|StringSlice|StringArray|IntSlice|BoolSlice|StringToString|IP|IPNet|Func|BoolFunc|Text|Var)(Var)?(P)?$/;
export const TAG_KEYS: ReadonlySet<string> = new Set(['json', 'yaml', 'toml', 'mapstructure', 'env', 'envconfig', 'koanf', 'hcl', 'ini', 'xml', 'flag']);
const KEY_READ = /^Get(String|Int|Int32|Int64|Uint|Bool|Float64|Duration|Time|StringSlice|IntSlice|StringMap\w*|SizeInBytes)?$/;
const TEST_FUNC = /^(Test|Benchmark|Fuzz|Example)($|[^a-z])/;

function receiverType(recv: SyntaxNode): string | null {
  let t = namedChildren(recv)[0]?.childForFieldName('type') ?? null;
  while (t && (t.type === 'pointer_type' || t.type === 'generic_type' || t.type === 'parenthesized_type'))
    t = t.type === 'generic_type' ? t.childForFieldName('type') : namedChildren(t)[0] ?? null;
  return t?.text ?? null;
}

function typeSpecOf(node: SyntaxNode): SyntaxNode | null {
  for (const p of ancestors(node)) {
    if (p.type === 'type_spec') return p;
    if (p.type === 'function_declaration' || p.type === 'method_declaration') return null;
  }
  return null;
}

function kindOf(def: SyntaxNode, name: string, fileIsTest: boolean): DefinitionKind {
  switch (def.type) {
    case 'function_declaration':
      return fileIsTest && TEST_FUNC.test(name) ? 'test' : 'function';
    case 'method_declaration':
    case 'method_elem':
      return 'method';
    case 'type_spec': {
      const t = def.childForFieldName('type')?.type;
      return t === 'struct_type' ? 'struct' : t === 'interface_type' ? 'interface' : 'type';
    }
    case 'type_alias':
      return 'type';
    case 'const_spec':
      return 'const';
    case 'field_declaration':
      return 'field';
    default:
      return 'variable';
  }
}

/** A single-spec `type X struct {…}` / `const X = …` is shown with its keyword line. */
function outer(def: SyntaxNode): SyntaxNode {
  const p = def.parent;
  if (p && (p.type === 'type_declaration' || p.type === 'const_declaration' || p.type === 'var_declaration') && namedChildren(p).length === 1) return p;
  return def;
}

/** The file's definitions; with `focus`, only those named `focus.name`. */
export function goDefinitions(file: ParsedFile, fileIsTest: boolean, focus?: NameFocus): Definition[] {
  const matches = matchesOf('go', DEFINITIONS, file.tree.rootNode, focus?.rows);
  return (focus ? matches.filter((m) => m.get('name')!.text === focus.name) : matches).map((m) => {
    const def = m.get('def')!;
    const name = m.get('name')!;
    const spec = def.type === 'type_spec' ? null : typeSpecOf(def);
    const container = m.has('recv') ? receiverType(m.get('recv')!) : (spec?.childForFieldName('name')?.text ?? null);
    const node = outer(def);
    const body = def.childForFieldName('body') ?? def.childForFieldName('type');
    return {
      name: name.text,
      kind: kindOf(def, name.text, fileIsTest),
      container,
      scope: container ? [container] : [],
      nameLine: startLine(name),
      inTest: fileIsTest,
      ...spanOf(node, node, body),
    };
  });
}

const statementSpanOf = (node: SyntaxNode): Span => statementSpan(node, STATEMENTS, BODY_STOP);

/** The identifier a flag's value lands in: `&opts.DryRun` → DryRun, `dryRun := flag.Bool(…)` → dryRun. */
function carrierOf(call: SyntaxNode, pointerArg: SyntaxNode | null): string | null {
  if (pointerArg) return /(\w+)\s*$/.exec(pointerArg.text)?.[1] ?? null;
  const stmt = closest(call, new Set(['short_var_declaration', 'assignment_statement', 'var_spec']), BODY_STOP);
  const left = stmt?.childForFieldName('left') ?? stmt?.childForFieldName('name');
  return left ? (/(\w+)\s*$/.exec(namedChildren(left)[0]?.text ?? left.text)?.[1] ?? null) : null;
}

/** `helpFlagName = "help"`: string constants a flag call may name its flag by. */
function stringConstants(root: SyntaxNode): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of matchesOf('go', STRING_CONSTS, root)) {
    const value = stringValue(m.get('value'));
    if (value !== null) out.set(m.get('name')!.text, value);
  }
  return out;
}

/** The small function around a flag named by a constant, where its help text spells it; else the statement. */
function constFlagSpan(call: SyntaxNode): Span {
  const fn = closest(call, new Set(['function_declaration', 'method_declaration']));
  if (fn && endLine(fn) - startLine(fn) < STATIC_GO.maxConstFlagFunctionLines) return spanOf(fn);
  return statementSpanOf(call);
}

function flagCall(call: SyntaxNode, fn: SyntaxNode, args: SyntaxNode, fileIsTest: boolean, consts: ReadonlyMap<string, string>): OptionDeclaration | null {
  if (fn.type !== 'selector_expression') return null;
  const method = fn.childForFieldName('field')?.text ?? '';
  const argv = namedChildren(args).filter((a) => a.type !== 'comment');
  let nameAt: number;
  if (method === 'Flag') nameAt = 0;
  else {
    const shape = FLAG_CALL.exec(method);
    if (!shape) return null;
    nameAt = shape[2] || shape[1] === 'Var' || shape[1] === 'Text' ? 1 : 0;
  }
  // A declaration passes the name and at least a default or usage (`flag.String("relay", "", usage)`);
  // a one-argument `c.String("relay")` (urfave/cli's context) reads a flag declared elsewhere.
  if (method !== 'Flag' && argv.length < nameAt + 2) return null;
  const nameArg = argv[nameAt];
  const viaConst = nameArg?.type === 'identifier';
  const long = viaConst ? consts.get(nameArg.text) ?? null : stringValue(nameArg);
  if (!long || !/^[A-Za-z0-9][\w.-]*$/.test(long)) return null;
  const short = method.endsWith('P') ? stringValue(argv[nameAt + 1]) : null;
  const pointer = nameAt === 1 ? argv[0]! : null;
  return {
    framework: 'go-flag',
    longs: [long],
    shorts: short ? [short] : [],
    carrier: carrierOf(call, pointer),
    inTest: fileIsTest,
    ...(viaConst ? constFlagSpan(call) : statementSpanOf(call)),
  };
}

/** urfave/cli: `&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}}` */
function flagLiteral(type: SyntaxNode, body: SyntaxNode, lit: SyntaxNode, fileIsTest: boolean): OptionDeclaration | null {
  if (!/(^|\.)\w*Flag$/.test(type.text)) return null;
  const fields = new Map<string, SyntaxNode>();
  for (const el of namedChildren(body).filter((e) => e.type === 'keyed_element')) {
    const [k, v] = namedChildren(el);
    if (k && v) fields.set(k.text, namedChildren(v)[0] ?? v);
  }
  const name = stringValue(fields.get('Name'));
  if (!name) return null;
  const aliasList = fields.get('Aliases');
  const aliases = namedChildren(aliasList?.childForFieldName('body') ?? aliasList)
    .map((e) => stringValue(namedChildren(e)[0] ?? e))
    .filter((s): s is string => s !== null);
  return {
    framework: 'go-flag',
    longs: [name, ...aliases.filter((a) => a.length > 1)],
    shorts: aliases.filter((a) => a.length === 1),
    carrier: null,
    inTest: fileIsTest,
    ...spanOf(lit),
  };
}

/**
 * `case "-m", "--multi": opts.Multi, err = …`: an arm of a hand-written
 * argument loop declares the options its labels spell; the first field the arm
 * assigns carries the value.
 */
function switchCase(arm: SyntaxNode, values: SyntaxNode, fileIsTest: boolean): OptionDeclaration | null {
  const longs: string[] = [];
  const shorts: string[] = [];
  for (const v of namedChildren(values)) {
    const m = DASHED.exec(stringValue(v) ?? '');
    if (m?.[1] === '--') longs.push(m[2]!);
    else if (m && m[2]!.length === 1) shorts.push(m[2]!);
  }
  if (longs.length === 0 && shorts.length === 0) return null;
  const body = namedChildren(arm).filter((c) => !c.equals(values));
  return {
    framework: 'go-switch',
    longs,
    shorts,
    carrier: assignedField(body),
    inTest: fileIsTest,
    // Long arms clip to their `case` line.
    ...spanOf(arm, arm, arm),
  };
}

/** The field name of the first `x.Field = …` among `stmts` (looking into if-initializers, not into closures). */
function assignedField(stmts: readonly SyntaxNode[]): string | null {
  const queue = [...stmts];
  while (queue.length > 0) {
    const n = queue.shift()!;
    if (n.type === 'func_literal') continue;
    if (n.type === 'assignment_statement') {
      const target = namedChildren(n.childForFieldName('left')).find((t) => t.type === 'selector_expression');
      const field = target?.childForFieldName('field')?.text;
      if (field) return field;
    }
    queue.push(...namedChildren(n));
  }
  return null;
}

/**
 * A struct field's tag as key → value (`short:"r" long:"raw-output"`); for a
 * key given twice, the first.
 */
export function tagPairs(tag: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const [, k, v] of tag.matchAll(/(\w+):"([^"]*)"/g)) if (!pairs.has(k!)) pairs.set(k!, v!);
  return pairs;
}

/** `NoLimit` → `no-limit`, `HTTPPort` → `http-port`: the long name kong derives from a field. */
function kebab(field: string): string {
  return field
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/**
 * An option a struct field's tag declares, for the parsers that read their
 * options off a struct: go-flags (`short:"r" long:"raw-output"`), go-arg
 * (`arg:"-r,--raw-output"`), kong (`name:"raw-output"`, or, on a field that
 * has a `help` and is not a command or positional argument, the field's name
 * in kebab case). The field carries the value.
 */
export function tagOption(name: string, pairs: ReadonlyMap<string, string>): { longs: string[]; shorts: string[] } | null {
  const longs: string[] = [];
  const shorts: string[] = [];
  const long = pairs.get('long');
  if (long) longs.push(...long.split(',').map((l) => l.trim()).filter(Boolean));
  const arg = pairs.get('arg');
  for (const part of (arg ?? '').split(',')) {
    const m = DASHED.exec(part.trim());
    if (m?.[1] === '--') longs.push(m[2]!);
    else if (m && m[2]!.length === 1) shorts.push(m[2]!);
  }
  const short = pairs.get('short');
  if (short && /^[A-Za-z0-9]$/.test(short)) shorts.push(short);
  const named = pairs.get('name');
  if (longs.length === 0 && named && pairs.has('help')) longs.push(named);
  // kong: a field with a help text is a flag named after the field, unless it is a command or a positional argument.
  if (longs.length === 0 && arg === undefined && pairs.has('help') && !pairs.has('cmd') && !pairs.has('embed') && /^[A-Z]/.test(name)) longs.push(kebab(name));
  const valid = longs.filter((l) => /^[A-Za-z0-9][\w.-]*$/.test(l));
  return valid.length > 0 || shorts.length > 0 ? { longs: valid, shorts } : null;
}

/** Struct fields whose tags name configuration keys (`json:"max_size"`) or declare options (tagOption). */
function taggedFields(file: ParsedFile, fileIsTest: boolean): { keys: ConfigKeyDeclaration[]; options: OptionDeclaration[] } {
  const keys: ConfigKeyDeclaration[] = [];
  const options: OptionDeclaration[] = [];
  for (const m of matchesOf('go', '(field_declaration name: (field_identifier) @name tag: (_) @tag) @field', file.tree.rootNode)) {
    const pairs = tagPairs(m.get('tag')!.text);
    const name = m.get('name')!.text;
    const field = m.get('field')!;
    const named = new Set<string>();
    for (const [k, v] of pairs) {
      const key = v.split(',')[0]!;
      if (TAG_KEYS.has(k) && key && key !== '-') named.add(key);
    }
    for (const key of named) keys.push({ key, kind: 'schema-field', carrier: name, inTest: fileIsTest, ...spanOf(field) });
    const option = tagOption(name, pairs);
    if (option) options.push({ framework: 'go-struct-tag', ...option, carrier: name, inTest: fileIsTest, ...spanOf(field) });
  }
  return { keys, options };
}

export function extractGo(file: ParsedFile, fileIsTest: boolean): FileFacts {
  const root = file.tree.rootNode;
  const defs = goDefinitions(file, fileIsTest);
  return lazyDeclarations(defs, () => {
    const tagged = taggedFields(file, fileIsTest);
    const options: OptionDeclaration[] = [...tagged.options];
    const configKeys = tagged.keys;
    const consts = stringConstants(root);
    for (const m of matchesOf('go', CALLS, root)) {
      const [call, fn, args] = [m.get('call')!, m.get('fn')!, m.get('args')!];
      const opt = flagCall(call, fn, args, fileIsTest, consts);
      if (opt) {
        options.push(opt);
        continue;
      }
      const method = fn.type === 'selector_expression' ? fn.childForFieldName('field')?.text ?? '' : '';
      const key = stringValue(namedChildren(args)[0]);
      if (!key) continue;
      const callee = fn.type === 'identifier' ? fn.text : method;
      if (/^(os|syscall)\.(Getenv|LookupEnv)$/.test(fn.text) || (ENV_GETTER.test(callee) && ENV_NAME.test(key))) configKeys.push({ key, kind: 'env-read', carrier: null, inTest: fileIsTest, ...statementSpanOf(call) });
      else if (KEY_READ.test(method)) configKeys.push({ key, kind: 'key-read', carrier: null, inTest: fileIsTest, ...statementSpanOf(call) });
    }
    for (const m of matchesOf('go', LITERALS, root)) {
      const opt = flagLiteral(m.get('type')!, m.get('body')!, m.get('lit')!, fileIsTest);
      if (opt) options.push(opt);
    }
    for (const m of matchesOf('go', CASES, root)) {
      const opt = switchCase(m.get('case')!, m.get('values')!, fileIsTest);
      if (opt) options.push(opt);
    }
    for (const m of matchesOf('go', INDEXES, root)) {
      const key = stringValue(m.get('key'));
      if (key) configKeys.push({ key, kind: 'key-read', carrier: null, inTest: fileIsTest, ...statementSpanOf(m.get('index')!) });
    }
    return { options, configKeys };
  });
}
