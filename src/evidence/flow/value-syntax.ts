// How values and their sources are spelled in source, across the languages the
// classifier reads: literals and named defaults, environment reads, parser
// attributes, calls that pick a fallback, expressions that combine sources or
// run under an override, string contents and callee names.
import type { SyntaxNode } from '../parse/treesitter.js';
import { MEMBER_TYPES, branchCondition, descendants, operatorText, snippet, within, shapes, type Family, type Shapes } from './syntax.js';

/** A literal written in place (a boolean, a number, a short string, none): a default, not a source. */
export const LITERAL = /^(true|false|True|False|None|nil|null|undefined|-?\d[\d_.]*[a-z0-9]*|"[^"]*"|'[^']*')$/;
/** Reading the environment, in each language: where a value enters the program. */
export const ENV_READ = /\b(env::var(_os)?|getenv|Getenv|LookupEnv|environ|process\.env)\b/;

/** A name bound by destructuring a record (`{ dryRun }`): the field of that name, read into a local. */
export const DESTRUCTURED_NAMES = new Set(['shorthand_property_identifier_pattern']);

/** The key of an environment read spelled as a member (`process.env.APP_TOKEN`), as a string key would be (`os.environ['APP_TOKEN']`). */
export function isEnvironmentKey(leaf: SyntaxNode): boolean {
  const member = leaf.parent;
  const object = member?.childForFieldName('object');
  return !!object && member!.childForFieldName('property')?.equals(leaf) === true && ENV_READ.test(object.text);
}

/** Calls that fall back to another value (`a.or(b)`, `unwrap_or_default`): the statement around them decides the role. */
export const DEFAULTING_CALL = /(^|\.)(unwrap_or(_else|_default)?|map_or(_else)?|or_else|or|get_or_insert(_with)?|getOrDefault)$/;
/** A value named as a default (`defaultConfigPath`, `DEFAULT_WIDTH`, `Defaults.width`): what applies when nothing overrides it. */
export const NAMED_DEFAULT = /^([\w$]+\.)*(default|DEFAULT|Default)[\w$]*$/;
export const DEFAULT_ATTRIBUTE = /\bdefault_value(_t|_os|s|_if)?\b[^,)]*/;
export const PARSER_ATTRIBUTE = /^#\[(arg|clap|structopt|command|serde|option)\b/;
export const DECLARED_WITHOUT_VALUE = new Set(['var_spec', 'variable_declarator']);

export function stringContent(n: SyntaxNode): string {
  return n.text.replace(/^[a-zA-Z]*("""|'''|["'`]|r#*")/, '').replace(/("""|'''|["'`]|"#*)$/, '');
}

/** The callee as written, or `….option` when it is a long builder chain. */
export function calleeName(call: SyntaxNode, field: string): string {
  const callee = call.childForFieldName(field);
  if (!callee) return '?';
  const last = callee.lastNamedChild;
  const chained = MEMBER_TYPES.has(callee.type) && (callee.text.includes('\n') || callee.text.length > 60);
  return chained && last ? `….${last.text}` : snippet(callee.text, 60);
}

export function isTypeReference(leaf: SyntaxNode): boolean {
  return leaf.type === 'type_identifier' && leaf.parent?.childForFieldName('name')?.equals(leaf) !== true;
}

/**
 * The `default` a declaring call names for the option (`click.option("--max-rounds", default=10)`,
 * `add_argument("--width", default=80)`, `.option("--size", { default: 3 })`): the keyword or key
 * node and the value that holds when the option is not given — for a switch declared without one
 * (`action="store_true"`, `is_flag=True`), the value it implies.
 */
export function keywordDefault(call: SyntaxNode): { readonly node: SyntaxNode; readonly value: string } | null {
  let implied: { node: SyntaxNode; value: string } | null = null;
  for (const a of call.childForFieldName('arguments')?.namedChildren ?? []) {
    if (a?.type === 'keyword_argument') {
      const name = a.childForFieldName('name')?.text;
      const value = a.childForFieldName('value');
      if (name === 'default' && value) return { node: a, value: value.text };
      // argparse's `action="store_true"` and click's `is_flag=True` leave the flag off when it is not given.
      const flag = name === 'action' ? /^["']store_(true|false)["']$/.exec(value?.text ?? '')?.[1] : name === 'is_flag' && value?.text === 'True' ? 'true' : undefined;
      if (flag) implied ??= { node: a, value: flag === 'true' ? 'False' : 'True' };
      continue;
    }
    if (a?.type !== 'object') continue;
    for (const p of a.namedChildren) {
      const value = p?.type === 'pair' ? p.childForFieldName('value') : null;
      if (p && value && /^(default|["']default["'])$/.test(p.childForFieldName('key')?.text ?? '')) return { node: p, value: value.text };
    }
  }
  return implied;
}

/** The condition under which `n` runs (`if force { x = … }`): a value set there overrides another; null outside any branch. */
export function overrideCondition(family: Family, n: SyntaxNode): SyntaxNode | null {
  const s = shapes(family);
  let prev = n;
  for (let p = n.parent; p; prev = p, p = p.parent) {
    if (s.functions.has(p.type)) return null;
    // Go's `if x, err = parse(); err != nil {`: the initializer runs whatever the condition says.
    if (p.childForFieldName('initializer')?.equals(prev)) continue;
    const cond = branchCondition(family, p);
    if (cond && !within(prev, cond)) return cond;
  }
  return null;
}

/** The expression picks between sources: `a || b`, `a ?? b`, `a or b`, a conditional, `unwrap_or`. */
export function combinesSources(s: Shapes, n: SyntaxNode): boolean {
  return (
    descendants(n, (d) => {
      if (d.type === 'ternary_expression' || d.type === 'conditional_expression' || d.type === 'if_expression') return true;
      if (d.type === 'binary_expression' || d.type === 'boolean_operator') {
        const op = operatorText(d);
        return op === '||' || op === '??' || op === 'or';
      }
      const call = s.calls[d.type];
      if (call) return DEFAULTING_CALL.test(calleeName(d, call[0]));
      return false;
    }) !== null
  );
}

/**
 * `directory.mkdir()`, `progress_bar.set_style(style)`: a method called on the value (`prev`, the callee)
 * as a statement of its own (its result unused) does something with the value — a behaviour-changing use.
 */
export function actsOnReceiver(call: SyntaxNode, calleeField: string, prev: SyntaxNode): boolean {
  const callee = call.childForFieldName(calleeField);
  if (!callee || !callee.equals(prev) || !MEMBER_TYPES.has(callee.type)) return false;
  return call.parent?.type === 'expression_statement';
}
