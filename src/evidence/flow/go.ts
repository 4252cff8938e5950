// Go shapes the generic walk needs: flag binding calls that write a parsed
// flag into a destination (`flags.BoolVar(&opts.quiet, "quiet", def, usage)`)
// and single-target assignments written with an expression list.
import type { SyntaxNode } from '../parse/treesitter.js';
import type { Family } from './syntax.js';

/** Go's flag binding calls (`BoolVar`, `StringVarP`, `Var`, …): the `&dest` they fill, else null. */
export function flagDestination(family: Family, call: SyntaxNode): SyntaxNode | null {
  if (family !== 'go') return null;
  const fn = call.childForFieldName('function');
  const method = fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : fn?.text;
  if (!method || !/Var[PE]?$/.test(method)) return null;
  let first = call.childForFieldName('arguments')?.namedChildren[0];
  // `flags.BoolVarP(boolVar(&processor.MaxMean), "character", …)`: a wrapper handed the address is the destination's.
  const wrapped = first?.type === 'call_expression' ? first.childForFieldName('arguments')?.namedChildren : null;
  if (wrapped?.length === 1) first = wrapped[0];
  if (first?.type !== 'unary_expression' || !first.text.startsWith('&')) return null;
  return first.childForFieldName('operand') ?? first.namedChildren[0] ?? null;
}

/** The flag binding call around `n` in the same statement (`BoolVar(&x, "x", wrap(env(…)))`), if any. */
export function enclosingFlagBinding(family: Family, n: SyntaxNode, containers: ReadonlySet<string>): SyntaxNode | null {
  for (let p: SyntaxNode | null = n; p && !containers.has(p.type); p = p.parent) if (p.type === 'call_expression' && flagDestination(family, p)) return p;
  return null;
}

/**
 * Go writes `x = v` with an expression list on the left; one target is that
 * target. With several targets and one call on the right (`v, ok :=
 * os.LookupEnv(…)`, `value, err := parse(…)`), the value is the first.
 */
export function single(target: SyntaxNode | null, value: SyntaxNode | null = null): SyntaxNode | null {
  if (target?.type !== 'expression_list') return target;
  if (target.namedChildCount === 1) return target.namedChild(0);
  const values = value?.type === 'expression_list' ? value.namedChildCount : 1;
  return values === 1 ? target.namedChild(0) : target;
}


/** A call's method name (`flags.BoolVar` → `BoolVar`) and its arguments without comments. */
function callParts(call: SyntaxNode): { method: string | null; args: SyntaxNode[] } {
  const fn = call.childForFieldName('function');
  const method = (fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : fn?.text) ?? null;
  const args = call.childForFieldName('arguments')?.namedChildren.filter((a): a is SyntaxNode => a !== null && a.type !== 'comment') ?? [];
  return { method, args };
}

/** The default argument of a flag binding call: `BoolVar(&x, "x", def, …)`, `BoolVarP(&x, "x", "s", def, …)`. */
export function flagDefault(call: SyntaxNode): SyntaxNode | null {
  const { method, args } = callParts(call);
  if (!method || method === 'Var' || method === 'VarP') return null;
  return args[method.endsWith('P') ? 3 : 2] ?? null;
}

/**
 * Go's flag declarations that return a pointer (`flag.String("hide", "", usage)`, pflag's
 * `IntP("depth", "d", 3, usage)`): the value types of the standard flag package and pflag;
 * `Count` has no default.
 */
const POINTER_FLAG = /^(Bool|Duration|Float(32|64)|Int(8|16|32|64)?|Uint(8|16|32|64)?|String|IP|IPMask|IPNet|BytesHex|BytesBase64)(Slice|Array|ToString|ToInt|ToInt64)?(?<shorthand>P)?$/;

/** The default argument of a pointer-returning flag declaration whose first argument is the flag's name, else null. */
export function declaredFlagDefault(call: SyntaxNode): SyntaxNode | null {
  if (call.childForFieldName('function')?.type !== 'selector_expression') return null;
  const { method, args } = callParts(call);
  const m = POINTER_FLAG.exec(method ?? '');
  if (!m || !/string_literal$/.test(args[0]?.type ?? '')) return null;
  // name, [short,] default, usage
  const shorthand = m.groups?.shorthand === 'P';
  return args.length === (shorthand ? 4 : 3) ? args[shorthand ? 2 : 1]! : null;
}
