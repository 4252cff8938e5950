// TypeScript/JavaScript extraction: functions, classes, methods, interfaces,
// type aliases, enums, namespaces, fields and top-level constants; commander
// `.option()`/`new Option()`, yargs `.option()`, node:util parseArgs option
// objects, `arg` spec objects; process.env, subscript and `.get()` key reads, settings-type fields;
// it/test/describe blocks as tests.
import type { ParsedFile } from '../context.js';
import type { LanguageId, SyntaxNode } from '../parse/treesitter.js';
import { lazyDeclarations, type ConfigKeyDeclaration, type Definition, type DefinitionKind, type FileFacts, type OptionDeclaration, type Span } from './facts.js';
import { ancestors, calledAsFunction, ENV_GETTER, ENV_NAME, flagNames, matchesOf, namedChildren, parsedArgumentReceivers, spanOf, startLine, statementSpan, stringValue, type NameFocus } from './syntax.js';

const COMMON_DEFINITIONS = `
(function_declaration name: (identifier) @name) @def
(generator_function_declaration name: (identifier) @name) @def
(method_definition name: (property_identifier) @name) @def
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def
(expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def)
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def)))
`;
const TS_DEFINITIONS = `${COMMON_DEFINITIONS}
(class_declaration name: (type_identifier) @name) @def
(abstract_class_declaration name: (type_identifier) @name) @def
(interface_declaration name: (type_identifier) @name) @def
(type_alias_declaration name: (type_identifier) @name) @def
(enum_declaration name: (identifier) @name) @def
(internal_module name: (identifier) @name) @def
(public_field_definition name: (property_identifier) @name) @def
(property_signature name: (property_identifier) @name) @def
(method_signature name: (property_identifier) @name) @def
`;
const JS_DEFINITIONS = `${COMMON_DEFINITIONS}
(class_declaration name: (identifier) @name) @def
(field_definition property: (property_identifier) @name) @def
`;
const CALLS = `(call_expression function: (_) @fn arguments: (arguments) @args) @call`;
const NEWS = `(new_expression constructor: (identifier) @ctor arguments: (arguments) @args) @call`;
const SUBSCRIPTS = `(subscript_expression object: (_) @obj index: (string) @key) @sub`;
const MEMBERS = `(member_expression object: (member_expression) @obj property: (property_identifier) @key) @member`;
const NAMED_MEMBERS = `(member_expression object: [(identifier) (member_expression)] @obj property: (property_identifier) @key) @member`;
/** An object a program keeps its settings in, by its own name (`config`, `this.options`, `opts.git`'s `opts`). */
const SETTINGS_OBJECT = /(^|\.)(config|configuration|conf|cfg|settings|options|opts|preferences|prefs)(\.[A-Za-z_$][\w$]*)?$/i;
const PAIRS = `(pair key: [(property_identifier) (string)] @key value: (object) @value) @pair`;
const OBJECTS = `(object) @obj`;
/** oclif's flag table: `force: Flags.boolean({ char: 'f' })`, `'dry-run': flags.string(…)`. */
const FLAG_BUILDERS = `(pair key: [(property_identifier) (string)] @key value: (call_expression function: (member_expression object: (identifier) @ns property: (property_identifier) @type) arguments: (arguments) @args)) @pair`;
const OCLIF_NAMESPACES = new Set(['Flags', 'flags']);
const OCLIF_TYPES = new Set(['boolean', 'string', 'integer', 'option', 'directory', 'file', 'url', 'custom', 'enum', 'build']);
const NAMED_READS = `[(member_expression object: (identifier) @obj property: (property_identifier) @key) (subscript_expression object: (identifier) @obj index: (string) @key)] @read`;

const KIND: Record<string, DefinitionKind> = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  method_definition: 'method',
  method_signature: 'method',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  interface_declaration: 'interface',
  type_alias_declaration: 'type',
  enum_declaration: 'enum',
  internal_module: 'module',
  public_field_definition: 'field',
  field_definition: 'field',
  property_signature: 'field',
};
const CONTAINERS = new Set([
  'class_declaration',
  'abstract_class_declaration',
  'class',
  'interface_declaration',
  'type_alias_declaration',
  'internal_module',
]);
const STATEMENTS = new Set([
  'expression_statement',
  'lexical_declaration',
  'variable_declaration',
  'return_statement',
  'pair',
  'public_field_definition',
  'field_definition',
  'if_statement',
]);
const BODY_STOP = new Set(['statement_block', 'program', 'class_body']);
const TEST_CALLS = new Set(['it', 'test', 'describe', 'suite']);
const KEY_READ_METHODS = new Set(['get', 'getString', 'getNumber', 'getBoolean', 'getInt']);
const SETTINGS_TYPE = /config|settings|options|env$/i;
const ARG_SPEC_VALUES = new Set(['identifier', 'array', 'member_expression', 'call_expression']);

const nameOf = (n: SyntaxNode | null | undefined): string | null => n?.childForFieldName('name')?.text ?? null;

function containerOf(node: SyntaxNode): string | null {
  for (const p of ancestors(node)) {
    if (CONTAINERS.has(p.type)) return nameOf(p) ?? (p.parent?.type === 'variable_declarator' ? nameOf(p.parent) : null);
    if (p.type === 'function_declaration' || p.type === 'statement_block') return null;
  }
  return null;
}

function scopeOf(node: SyntaxNode): string[] {
  const out: string[] = [];
  for (const p of ancestors(node)) if (CONTAINERS.has(p.type) && nameOf(p)) out.unshift(nameOf(p)!);
  return out;
}

/** The construct a maintainer sees: `export …`, the whole `const x = …` declaration. */
function outer(def: SyntaxNode): SyntaxNode {
  if (def.type === 'assignment_expression' && def.parent?.type === 'expression_statement') return def.parent;
  let n = def;
  if (n.type === 'variable_declarator' && n.parent && namedChildren(n.parent).length === 1) n = n.parent;
  if (n.parent?.type === 'export_statement') n = n.parent;
  return n;
}

function bodyOf(def: SyntaxNode): SyntaxNode | null {
  return def.childForFieldName('body') ?? (def.childForFieldName('value') ?? def.childForFieldName('right'))?.childForFieldName('body') ?? null;
}

/** The file's definitions; with `focus`, only those named `focus.name`; without `it('…')` blocks when `tests` is false. */
export function typeScriptDefinitions(file: ParsedFile, fileIsTest: boolean, focus?: NameFocus, tests = true): Definition[] {
  const seen = new Set<number>();
  const out: Definition[] = [];
  const source = file.language === 'javascript' ? JS_DEFINITIONS : TS_DEFINITIONS;
  for (const m of matchesOf(file.language, source, file.tree.rootNode, focus?.rows)) {
    const def = m.get('def')!;
    const name = m.get('name')!;
    if (focus && name.text !== focus.name) continue;
    if (seen.has(def.id)) continue;
    seen.add(def.id);
    // `exports.listFiles = function (…) {…}`, `Walker.prototype.walk = function (…) {…}`: a function assigned to a member.
    const value = def.type === 'variable_declarator' ? def.childForFieldName('value') : def.type === 'assignment_expression' ? def.childForFieldName('right') : null;
    let kind: DefinitionKind = KIND[def.type] ?? 'variable';
    if (value && (value.type === 'arrow_function' || value.type === 'function_expression')) kind = 'function';
    else if (value?.type === 'class') kind = 'class';
    else if (def.type === 'variable_declarator') kind = def.parent?.text.startsWith('const') ? 'const' : 'variable';
    // `Walker.prototype.walk = function …` is a method of `Walker`.
    const assignedTo = def.type === 'assignment_expression' ? def.childForFieldName('left')?.childForFieldName('object') : null;
    const prototypeOf = assignedTo?.type === 'member_expression' && assignedTo.childForFieldName('property')?.text === 'prototype' ? (assignedTo.childForFieldName('object')?.text ?? null) : null;
    const container = prototypeOf ?? containerOf(def);
    if (kind === 'function' && container) kind = 'method';
    const node = outer(def);
    out.push({ name: name.text, kind, container, scope: scopeOf(def), nameLine: startLine(name), inTest: fileIsTest, ...spanOf(node, node, bodyOf(def)) });
  }
  return tests ? out.concat(testBlocks(file, fileIsTest, focus)) : out;
}

function calleeName(fn: SyntaxNode): string | null {
  if (fn.type === 'identifier') return fn.text;
  if (fn.type === 'member_expression') return fn.childForFieldName('object')?.type === 'identifier' ? fn.childForFieldName('object')!.text : null;
  return null;
}

/** `describe('x', …)` / `it('y', …)` blocks; the container is the enclosing describe titles joined with ' > '. */
function testBlocks(file: ParsedFile, fileIsTest: boolean, focus?: NameFocus): Definition[] {
  if (!fileIsTest) return [];
  const out: Definition[] = [];
  for (const m of matchesOf(file.language, CALLS, file.tree.rootNode, focus?.rows)) {
    const callee = calleeName(m.get('fn')!);
    const title = stringValue(namedChildren(m.get('args')!)[0]);
    if (!callee || !TEST_CALLS.has(callee) || title === null || (focus && title !== focus.name)) continue;
    const call = m.get('call')!;
    const titles: string[] = [];
    for (const p of ancestors(call)) {
      if (p.type !== 'call_expression') continue;
      const outerCallee = calleeName(p.childForFieldName('function')!);
      const outerTitle = stringValue(namedChildren(p.childForFieldName('arguments'))[0]);
      if (outerCallee && TEST_CALLS.has(outerCallee) && outerTitle !== null) titles.unshift(outerTitle);
    }
    const node = call.parent?.type === 'expression_statement' ? call.parent : call;
    const body = namedChildren(m.get('args')!)[1]?.childForFieldName('body') ?? null;
    out.push({
      name: title,
      kind: 'test',
      container: titles.length > 0 ? titles.join(' > ') : null,
      scope: titles,
      nameLine: startLine(call),
      inTest: true,
      ...spanOf(node, node, body),
    });
  }
  return out;
}

const statementSpanOf = (node: SyntaxNode): Span => statementSpan(node, STATEMENTS, BODY_STOP);

const camel = (long: string): string => long.replace(/^no-/, '').replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function objectStrings(obj: SyntaxNode | undefined, key: string): string[] {
  const out: string[] = [];
  for (const pair of namedChildren(obj).filter((p) => p.type === 'pair')) {
    const k = pair.childForFieldName('key');
    if ((k?.type === 'string' ? stringValue(k) : k?.text) !== key) continue;
    const v = pair.childForFieldName('value');
    const values = v?.type === 'array' ? namedChildren(v).map((e) => stringValue(e)) : [stringValue(v)];
    out.push(...values.filter((s): s is string => s !== null));
  }
  return out;
}

/** `.option()` in a chain spans from its `.option` to its closing parenthesis. */
function chainedSpan(call: SyntaxNode, fn: SyntaxNode): Span {
  const object = fn.type === 'member_expression' ? fn.childForFieldName('object')?.type : undefined;
  if (object !== 'call_expression' && object !== 'new_expression') return statementSpanOf(call);
  return spanOf(fn.childForFieldName('property')!, call);
}

function optionCall(call: SyntaxNode, fn: SyntaxNode, args: SyntaxNode, inTest: boolean): OptionDeclaration | null {
  const method = fn.type === 'member_expression' ? fn.childForFieldName('property')?.text : null;
  if (method !== 'option' && method !== 'requiredOption') return null;
  const [first, second] = namedChildren(args);
  const spec = stringValue(first);
  if (spec === null) return null;
  if (spec.startsWith('-')) {
    const { longs, shorts } = flagNames([spec]);
    if (longs.length === 0 && shorts.length === 0) return null;
    return { framework: 'commander', longs, shorts, carrier: longs[0] ? camel(longs[0]) : null, inTest, ...chainedSpan(call, fn) };
  }
  if (!/^[A-Za-z0-9][\w-]*$/.test(spec)) return null;
  const aliases = objectStrings(second?.type === 'object' ? second : undefined, 'alias');
  const longs = [spec, ...aliases.filter((a) => a.length > 1)];
  const shorts = aliases.filter((a) => a.length === 1);
  return { framework: 'yargs', longs, shorts, carrier: camel(spec), inTest, ...chainedSpan(call, fn) };
}

/** cleye's flag types are constructors (`type: Boolean`, `type: [String]`), not strings. */
const CONSTRUCTOR_TYPES: Readonly<Record<string, string>> = { Boolean: 'boolean', String: 'string', Number: 'number' };

/** A record's `type`: a string (`'boolean'`), or a constructor, alone or in an array (cleye). */
function declaredType(record: SyntaxNode): string | undefined {
  const named = objectStrings(record, 'type')[0];
  if (named !== undefined) return named;
  const value = namedChildren(record).find((p) => p.type === 'pair' && p.childForFieldName('key')?.text === 'type')?.childForFieldName('value');
  const constructor = value?.type === 'array' ? namedChildren(value)[0] : value;
  return constructor?.type === 'identifier' ? CONSTRUCTOR_TYPES[constructor.text] : undefined;
}

/**
 * A table of typed options: `parseArgs({ options: { 'dry-run': { type: 'boolean', short: 'n' } } })`
 * (the key is the flag as written), and meow's `meow(help, { flags: { anyBranch: { type: 'boolean',
 * shortFlag: 'a' } } })` (a camelCase key is the dashed flag `--any-branch`).
 */
function parseArgsOption(pair: SyntaxNode, key: string, value: SyntaxNode, inTest: boolean): OptionDeclaration | null {
  const type = declaredType(value);
  const holder = pair.parent?.parent;
  const table = holder?.type === 'pair' ? holder.childForFieldName('key')?.text : null;
  if (type !== 'boolean' && type !== 'string' && type !== 'number') return null;
  if (table === 'options' && type !== 'number') return { framework: 'node-parseargs', longs: [key], shorts: objectStrings(value, 'short'), carrier: key, inTest, ...spanOf(pair) };
  // citty's `defineCommand({ args: { force: { type: 'boolean', alias: 'f' } } })`: the key is the flag as written.
  if (table === 'args' && type !== 'number') {
    const aliases = objectStrings(value, 'alias');
    return { framework: 'node-parseargs', longs: [key, ...aliases.filter((a) => a.length > 1)], shorts: aliases.filter((a) => a.length === 1), carrier: key, inTest, ...spanOf(pair) };
  }
  // meow's and cleye's `flags: { noCache: { type: 'boolean' } }`; a constructor type marks a cleye flag record
  // wherever its table is built (`const tsxFlags = { noCache: { type: Boolean } }`, spread into `flags`).
  const constructed = objectStrings(value, 'type').length === 0;
  if ((table !== 'flags' && !constructed) || !/^[A-Za-z][\w-]*$/.test(key)) return null;
  const aliases = [...objectStrings(value, 'aliases'), ...objectStrings(value, 'alias')];
  const dashed = key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return {
    framework: 'meow',
    longs: [...new Set([dashed, ...aliases.filter((a) => a.length > 1)])],
    shorts: [...objectStrings(value, 'shortFlag'), ...aliases.filter((a) => a.length === 1)],
    carrier: key,
    inTest,
    ...spanOf(pair),
  };
}

/**
 * yargs' table form, `.options({ 'kill-timeout': { type: 'number', alias: 'k' }, group: { … } })`:
 * each key whose value is an object declares the option, as `.option('kill-timeout', { … })` does.
 */
function yargsTableOption(pair: SyntaxNode, key: string, value: SyntaxNode, inTest: boolean): OptionDeclaration | null {
  const call = pair.parent?.parent?.parent;
  const fn = call?.type === 'call_expression' ? call.childForFieldName('function') : null;
  const method = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : null;
  if ((method !== 'options' && method !== 'option') || pair.parent?.parent?.type !== 'arguments' || !/^[A-Za-z0-9][\w-]*$/.test(key)) return null;
  const aliases = objectStrings(value, 'alias');
  return { framework: 'yargs', longs: [key, ...aliases.filter((a) => a.length > 1)], shorts: aliases.filter((a) => a.length === 1), carrier: camel(key), inTest, ...spanOf(pair) };
}

/**
 * oclif's `static flags = { 'dry-run': Flags.boolean({ char: 'n', aliases: ['dryrun'], env: 'APP_DRY_RUN' }) }`:
 * the key is the flag as written and the name the parsed `flags` object is read by; `env` names
 * the environment variable the flag falls back to.
 */
function oclifFlag(m: ReadonlyMap<string, SyntaxNode>, inTest: boolean): { option: OptionDeclaration; env: string[] } | null {
  if (!OCLIF_NAMESPACES.has(m.get('ns')!.text) || !OCLIF_TYPES.has(m.get('type')!.text)) return null;
  const keyNode = m.get('key')!;
  const key = keyNode.type === 'string' ? stringValue(keyNode) : keyNode.text;
  if (!key || !/^[A-Za-z0-9][\w-]*$/.test(key)) return null;
  const settings = namedChildren(m.get('args')!)[0];
  const aliases = objectStrings(settings, 'aliases');
  const pair = m.get('pair')!;
  return {
    option: { framework: 'oclif', longs: [key, ...aliases.filter((a) => a.length > 1)], shorts: [...objectStrings(settings, 'char'), ...objectStrings(settings, 'charAliases')], carrier: key, inTest, ...spanOf(pair) },
    env: objectStrings(settings, 'env'),
  };
}

/**
 * `arg({ '--no-clipboard': Boolean, '-n': '--no-clipboard' })`: a flag-named key
 * with a type (not a string) declares the option; a string value names the flag
 * the key is an alias of. The parsed result is read as `args['--no-clipboard']`,
 * so the carrier is the flag text itself.
 */
function argSpecOptions(obj: SyntaxNode, inTest: boolean): OptionDeclaration[] {
  const flagPairs = namedChildren(obj)
    .filter((p) => p.type === 'pair' && p.childForFieldName('key')?.type === 'string')
    .map((p) => ({ pair: p, key: stringValue(p.childForFieldName('key')) ?? '', value: p.childForFieldName('value')! }))
    .filter((p) => /^--?[A-Za-z0-9]/.test(p.key));
  const aliases = flagPairs.filter((p) => p.value.type === 'string');
  return flagPairs
    // A spec's value is a type (`Boolean`, `[String]`, `arg.COUNT`, `arg.flag(…)`); any other value is data keyed by a flag's text.
    .filter((p) => p.key.startsWith('--') && ARG_SPEC_VALUES.has(p.value.type))
    .map(({ pair, key }) => {
      const names = flagNames([key, ...aliases.filter((a) => stringValue(a.value) === key).map((a) => a.key)]);
      return { framework: 'arg' as const, ...names, carrier: null, inTest, ...spanOf(pair) };
    });
}

/**
 * Parsers that take no declarations (minimist, mri, yargs without `.option`)
 * leave the option's name only where the parsed object is read: `argv.cors`,
 * `argv['proxy-options']`. The first read of each name in a file stands for
 * its declaration (a `parsed-argv` option, below every declaring framework).
 */
function parsedArgvReads(lang: LanguageId, root: SyntaxNode, inTest: boolean): OptionDeclaration[] {
  const receivers = parsedArgumentReceivers(root);
  if (receivers.size === 0) return [];
  const first = new Map<string, OptionDeclaration>();
  for (const m of matchesOf(lang, NAMED_READS, root)) {
    const read = m.get('read')!;
    const keyNode = m.get('key')!;
    const key = keyNode.type === 'string' ? stringValue(keyNode) : keyNode.text;
    // A method of the parsed object (`argv.hasOwnProperty(…)`) is not an option; `_` holds the positionals.
    if (!key || key === '_' || !/^[A-Za-z0-9][\w-]*$/.test(key) || !receivers.has(m.get('obj')!.text)) continue;
    if (calledAsFunction(read)) continue;
    if (first.has(key)) continue;
    const names = key.length === 1 ? { longs: [], shorts: [key] } : { longs: [key], shorts: [] };
    first.set(key, { framework: 'parsed-argv', ...names, carrier: key, inTest, ...statementSpanOf(read) });
  }
  return [...first.values()];
}

/**
 * `this.options.requireUpstream`, `config.multipass`, `options.git.tagName`: a key read from the
 * object a program keeps its settings in, where no type declares the settings (plain JavaScript).
 * The first read of each key in a file; writes (`options.x = …`) set it and are not counted.
 */
function settingsReads(lang: LanguageId, root: SyntaxNode, inTest: boolean): ConfigKeyDeclaration[] {
  const first = new Map<string, ConfigKeyDeclaration>();
  for (const m of matchesOf(lang, NAMED_MEMBERS, root)) {
    const member = m.get('member')!;
    const key = m.get('key')!.text;
    if (first.has(key) || !SETTINGS_OBJECT.test(m.get('obj')!.text)) continue;
    const parent = member.parent;
    if (parent?.type === 'assignment_expression' && parent.childForFieldName('left')?.equals(member) === true) continue;
    if (calledAsFunction(member)) continue;
    first.set(key, { key, kind: 'settings-read', carrier: key, inTest, ...statementSpanOf(member) });
  }
  return [...first.values()];
}

function settingsFields(defs: readonly Definition[], fileIsTest: boolean): ConfigKeyDeclaration[] {
  return defs
    .filter((d) => d.kind === 'field' && d.container !== null && SETTINGS_TYPE.test(d.container))
    .map((d) => ({ key: d.name, kind: 'config-field' as const, carrier: d.name, inTest: fileIsTest, startLine: d.startLine, endLine: d.endLine }));
}

export function extractTypeScript(file: ParsedFile, fileIsTest: boolean): FileFacts {
  const lang: LanguageId = file.language;
  const root = file.tree.rootNode;
  const defs = typeScriptDefinitions(file, fileIsTest);
  return lazyDeclarations(defs, () => {
    const options: OptionDeclaration[] = [];
    const configKeys: ConfigKeyDeclaration[] = settingsFields(defs, fileIsTest);
    const push = (key: string, kind: ConfigKeyDeclaration['kind'], at: SyntaxNode) =>
      configKeys.push({ key, kind, carrier: null, inTest: fileIsTest, ...statementSpanOf(at) });

    for (const m of matchesOf(lang, CALLS, root)) {
      const [call, fn, args] = [m.get('call')!, m.get('fn')!, m.get('args')!];
      const opt = optionCall(call, fn, args, fileIsTest);
      if (opt) options.push(opt);
      const method = fn.type === 'member_expression' ? fn.childForFieldName('property')?.text : null;
      const key = stringValue(namedChildren(args)[0]);
      if (!opt && key && method && KEY_READ_METHODS.has(method)) push(key, 'key-read', call);
      else if (!opt && key && ENV_NAME.test(key) && ENV_GETTER.test(method ?? (fn.type === 'identifier' ? fn.text : ''))) push(key, 'env-read', call);
    }
    for (const m of matchesOf(lang, NEWS, root)) {
      if (m.get('ctor')!.text !== 'Option') continue;
      const { longs, shorts } = flagNames([stringValue(namedChildren(m.get('args')!)[0]) ?? '']);
      if (longs.length === 0 && shorts.length === 0) continue;
      options.push({ framework: 'commander', longs, shorts, carrier: longs[0] ? camel(longs[0]) : null, inTest: fileIsTest, ...statementSpanOf(m.get('call')!) });
    }
    for (const m of matchesOf(lang, PAIRS, root)) {
      const keyNode = m.get('key')!;
      const key = keyNode.type === 'string' ? stringValue(keyNode) : keyNode.text;
      const opt = key ? (parseArgsOption(m.get('pair')!, key, m.get('value')!, fileIsTest) ?? yargsTableOption(m.get('pair')!, key, m.get('value')!, fileIsTest)) : null;
      if (opt) options.push(opt);
    }
    for (const m of matchesOf(lang, FLAG_BUILDERS, root)) {
      const flag = oclifFlag(m, fileIsTest);
      if (!flag) continue;
      options.push(flag.option);
      for (const key of flag.env) push(key, 'env-read', m.get('pair')!);
    }
    for (const m of matchesOf(lang, OBJECTS, root)) options.push(...argSpecOptions(m.get('obj')!, fileIsTest));
    options.push(...parsedArgvReads(lang, root, fileIsTest));
    for (const m of matchesOf(lang, SUBSCRIPTS, root)) {
      const key = stringValue(m.get('key'));
      if (key) push(key, /(^|\.)env$/.test(m.get('obj')!.text) ? 'env-read' : 'key-read', m.get('sub')!);
    }
    for (const m of matchesOf(lang, MEMBERS, root)) {
      if (/(^|\.)env$/.test(m.get('obj')!.text)) push(m.get('key')!.text, 'env-read', m.get('member')!);
    }
    configKeys.push(...settingsReads(lang, root, fileIsTest));
    return { options, configKeys };
  });
}
