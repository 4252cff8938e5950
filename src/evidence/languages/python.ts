// Python extraction: functions, classes, methods, class and instance fields,
// module constants; argparse/optparse add_argument and click/typer option
// declarations; dict/environment key reads and settings-class fields.
import type { ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { lazyDeclarations, type ConfigKeyDeclaration, type Definition, type DefinitionKind, type FileFacts, type OptionDeclaration, type Span } from './facts.js';
import { ancestors, ENV_GETTER, ENV_NAME, flagNames, matchesOf, namedChildren, spanOf, startLine, statementSpan, stringValue, type NameFocus } from './syntax.js';

const DEFINITIONS = `
(function_definition name: (identifier) @name) @def
(class_definition name: (identifier) @name) @def
(module (expression_statement (assignment left: (identifier) @name)) @def)
(class_definition body: (block (expression_statement (assignment left: (identifier) @name)) @def))
(function_definition
  name: (identifier) @init
  body: (block (expression_statement (assignment left: (attribute object: (identifier) @self attribute: (identifier) @name))) @def))
`;
const CALLS = `(call function: (_) @fn arguments: (argument_list) @args) @call`;
const SUBSCRIPTS = `(subscript value: (_) @obj subscript: (string) @key) @sub`;

const STATEMENTS = new Set(['expression_statement', 'return_statement', 'decorator', 'if_statement', 'assert_statement']);
const BODY_STOP = new Set(['block', 'module']);
const OPTION_CALLS = new Set(['add_argument', 'add_option']);
const CLICK_CALLS = new Set(['option', 'Option']);
const KEY_READ_METHODS = new Set(['get', 'getint', 'getfloat', 'getboolean', 'getlist', 'setdefault', 'pop']);
// click keeps its settings on `Context` (`auto_envvar_prefix`), as many CLIs keep theirs on a context object.
const SETTINGS_CLASS = /config|settings|options|conf$|context$/i;

const isEnviron = (obj: SyntaxNode): boolean => /(^|\.)environ$/.test(obj.text);

function outer(def: SyntaxNode): SyntaxNode {
  return def.parent?.type === 'decorated_definition' ? def.parent : def;
}

function enclosingClass(node: SyntaxNode): SyntaxNode | null {
  for (const p of ancestors(node)) {
    if (p.type === 'class_definition') return p;
    if (p.type === 'function_definition' && p.childForFieldName('name')?.text !== '__init__') return null;
  }
  return null;
}

function scopeOf(node: SyntaxNode): string[] {
  const out: string[] = [];
  for (const p of ancestors(node)) {
    if (p.type === 'class_definition' || p.type === 'function_definition') out.unshift(p.childForFieldName('name')?.text ?? '');
  }
  return out.filter(Boolean);
}

/** The file's definitions; with `focus`, only those named `focus.name`. */
export function pythonDefinitions(file: ParsedFile, fileIsTest: boolean, focus?: NameFocus): Definition[] {
  const out: Definition[] = [];
  for (const m of matchesOf('python', DEFINITIONS, file.tree.rootNode, focus?.rows)) {
    const def = m.get('def')!;
    const name = m.get('name')!;
    if (focus && name.text !== focus.name) continue;
    if (m.has('init') && (m.get('init')!.text !== '__init__' || m.get('self')!.text !== 'self')) continue;
    const cls = enclosingClass(def);
    const container = cls?.childForFieldName('name')?.text ?? null;
    let kind: DefinitionKind;
    if (def.type === 'class_definition') kind = 'class';
    else if (def.type === 'function_definition') {
      const isTest = fileIsTest && name.text.startsWith('test') && (!container || container.startsWith('Test'));
      kind = isTest ? 'test' : container ? 'method' : 'function';
    } else if (container) kind = 'field';
    else kind = /^[A-Z][A-Z0-9_]*$/.test(name.text) ? 'const' : 'variable';
    const node = outer(def);
    // An @overload stub is a signature; the implementation that follows is the definition.
    const stub = node.type === 'decorated_definition' && namedChildren(node).some((d) => d.type === 'decorator' && /(^|\.)overload$/.test(d.text.slice(1).trim()));
    out.push({
      name: name.text,
      kind,
      container,
      scope: scopeOf(def),
      nameLine: startLine(name),
      inTest: fileIsTest,
      ...spanOf(node, node, stub ? null : def.childForFieldName('body')),
    });
  }
  return out;
}

const statementSpanOf = (node: SyntaxNode): Span => statementSpan(node, STATEMENTS, BODY_STOP);

/** The strings of keyword `name` in a call's arguments: `dest="x"`, `envvar="X"` or `envvar=["X", "Y"]`. */
function keywordStrings(args: SyntaxNode, name: string): string[] {
  const value = namedChildren(args).find((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === name)?.childForFieldName('value');
  const items = value?.type === 'list' || value?.type === 'tuple' ? namedChildren(value) : value ? [value] : [];
  return items.map((i) => stringValue(i)).filter((k): k is string => k !== null);
}

/** Whether `node` is the target of an assignment (`x[k] = …`, `x[k] += …`). */
function isAssignedTo(node: SyntaxNode): boolean {
  const p = node.parent;
  return (p?.type === 'assignment' || p?.type === 'augmented_assignment') && p.childForFieldName('left')?.equals(node) === true;
}

/** Parameter nodes a typer option can be the default or the `Annotated[…]` metadata of. */
const TYPED_PARAMETERS = new Set(['typed_default_parameter', 'typed_parameter']);

/**
 * The function parameter a typer `Option(…)` declares: `force: bool = typer.Option(False, "--force")`,
 * `reload_dir: Annotated[list[Path] | None, typer.Option(help=…)] = None`. Typer names the option
 * after the parameter (`--reload-dir`) unless the call spells names of its own.
 */
function typerParameter(call: SyntaxNode): SyntaxNode | null {
  for (const p of ancestors(call)) {
    if (TYPED_PARAMETERS.has(p.type)) return p;
    if (p.type === 'parameters' || p.type === 'function_definition' || p.type === 'block') return null;
  }
  return null;
}

function optionOf(call: SyntaxNode, method: string, args: SyntaxNode, inTest: boolean): OptionDeclaration | null {
  const isArgparse = OPTION_CALLS.has(method);
  if (!isArgparse && !CLICK_CALLS.has(method)) return null;
  const positional = namedChildren(args)
    .map((a) => stringValue(a))
    .filter((s): s is string => s !== null);
  const { longs, shorts } = flagNames(positional.filter((s) => s.startsWith('-')));
  const parameter = method === 'Option' ? typerParameter(call) : null;
  const parameterName = parameter?.childForFieldName('name')?.text ?? parameter?.namedChildren[0]?.text ?? null;
  if (parameter && parameterName && /^[A-Za-z_]\w*$/.test(parameterName)) {
    const derived = longs.length === 0 && shorts.length === 0 ? [parameterName.replace(/_/g, '-')] : longs;
    return { framework: 'typer', longs: derived, shorts, carrier: parameterName, inTest, ...spanOf(parameter) };
  }
  if (longs.length === 0 && shorts.length === 0) return null;
  const dest = keywordStrings(args, 'dest')[0];
  const named = isArgparse ? dest : positional.find((s) => !s.startsWith('-'));
  const carrier = named ?? (longs[0] ?? shorts[0]!).replace(/-/g, '_');
  return { framework: isArgparse ? 'argparse' : 'click', longs, shorts, carrier, inTest, ...statementSpanOf(call) };
}

/** One key per class field: `x: str | None` in the class body and `self.x = …` in `__init__` are the same key, declared first. */
function settingsFields(defs: readonly Definition[], fileIsTest: boolean): ConfigKeyDeclaration[] {
  const first = new Map<string, Definition>();
  for (const d of defs) {
    if (d.kind !== 'field' || d.container === null || !SETTINGS_CLASS.test(d.container)) continue;
    const key = `${d.container}.${d.name}`;
    const seen = first.get(key);
    if (!seen || d.startLine < seen.startLine) first.set(key, d);
  }
  return [...first.values()].map((d) => ({ key: d.name, kind: 'config-field' as const, carrier: d.name, inTest: fileIsTest, startLine: d.startLine, endLine: d.endLine }));
}

export function extractPython(file: ParsedFile, fileIsTest: boolean): FileFacts {
  const root = file.tree.rootNode;
  const defs = pythonDefinitions(file, fileIsTest);
  return lazyDeclarations(defs, () => {
    const options: OptionDeclaration[] = [];
    const configKeys: ConfigKeyDeclaration[] = settingsFields(defs, fileIsTest);
    for (const m of matchesOf('python', CALLS, root)) {
      const call = m.get('call')!;
      const fn = m.get('fn')!;
      const args = m.get('args')!;
      const method = fn.type === 'attribute' ? fn.childForFieldName('attribute')?.text : fn.type === 'identifier' ? fn.text : undefined;
      if (!method) continue;
      const opt = optionOf(call, method, args, fileIsTest);
      if (opt) {
        options.push(opt);
        // click's and typer's `envvar="APP_TOKEN"` (or a list of them): variables the option falls back to.
        for (const key of keywordStrings(args, 'envvar').filter((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))) configKeys.push({ key, kind: 'env-read', carrier: opt.carrier, inTest: fileIsTest, startLine: opt.startLine, endLine: opt.endLine });
        continue;
      }
      const key = stringValue(namedChildren(args)[0]);
      if (!key) continue;
      const obj = fn.type === 'attribute' ? fn.childForFieldName('object') : null;
      if (method === 'getenv' || (obj && isEnviron(obj) && method === 'get') || (ENV_GETTER.test(method) && ENV_NAME.test(key)))
        configKeys.push({ key, kind: 'env-read', carrier: null, inTest: fileIsTest, ...statementSpanOf(call) });
      else if (obj && KEY_READ_METHODS.has(method)) {
        configKeys.push({ key, kind: 'key-read', carrier: null, inTest: fileIsTest, ...statementSpanOf(call) });
        // configparser names the section first: `cfg.getboolean("tool", "strict")` reads the key `strict`.
        const option = stringValue(namedChildren(args)[1]);
        if (option && /^[A-Za-z_][\w.-]*$/.test(option)) configKeys.push({ key: option, kind: 'key-read', carrier: null, inTest: fileIsTest, ...statementSpanOf(call) });
      }
    }
    for (const m of matchesOf('python', SUBSCRIPTS, root)) {
      const key = stringValue(m.get('key'));
      // `env["APP_TOKEN"] = token` writes the key (for a child process, a Dockerfile); it reads nothing.
      if (!key || isAssignedTo(m.get('sub')!)) continue;
      const kind = isEnviron(m.get('obj')!) ? 'env-read' : 'key-read';
      configKeys.push({ key, kind, carrier: null, inTest: fileIsTest, ...statementSpanOf(m.get('sub')!) });
    }
    return { options, configKeys };
  });
}
