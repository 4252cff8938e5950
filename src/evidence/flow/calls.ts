// Following a value into the function it is passed to: the argument's position
// (or keyword) picks the callee's parameter, and the parameter is then followed
// inside the callee like a renamed local. The callee is resolved by name among
// the repository's definitions — only when exactly one definition fits, never
// by a guess among namesakes.
import { FLOW_TRACE } from '../../core/limits.js';
import type { AnalysisContext, ParsedFile } from '../context.js';
import { factsOf } from '../languages/index.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { SOURCE_PATHSPECS, isNonTestSource } from './sites.js';
import { familyOf, shapes, within, type Family } from './syntax.js';

export interface ParameterTarget {
  readonly file: ParsedFile;
  /** The callee's function node: the scope the parameter is followed in. */
  readonly fn: SyntaxNode;
  readonly name: string;
  readonly callee: string;
}

const FUNCTION_NODES = new Set(['function_item', 'function_definition', 'function_declaration', 'method_declaration', 'method_definition', 'arrow_function', 'function_expression']);
const RECEIVERS = new Set(['self', 'cls', 'this']);
const SELF_PATHS = new Set(['Self', 'self', 'super', 'crate']);

/** The argument of `call` holding `leaf`: its position among the arguments and its keyword, if any. */
function argumentOf(call: SyntaxNode, argsField: string, leaf: SyntaxNode): { index: number; keyword: string | null } | null {
  const args = call.childForFieldName(argsField);
  if (!args) return null;
  const list = args.namedChildren.filter((c): c is SyntaxNode => c !== null && !c.type.includes('comment'));
  const index = list.findIndex((a) => within(leaf, a));
  if (index < 0) return null;
  const arg = list[index]!;
  const keyword = arg.type === 'keyword_argument' ? (arg.childForFieldName('name')?.text ?? null) : null;
  return { index, keyword };
}

/** `Replacer::new` → (new, Replacer); `pkg.Run` → (Run, pkg); `self.render` → (render, null). */
function calleeParts(callee: SyntaxNode): { name: string; qualifier: string | null } | null {
  if (callee.type === 'identifier') return { name: callee.text, qualifier: null };
  if (callee.type === 'scoped_identifier') {
    const name = callee.childForFieldName('name')?.text;
    const path = callee.childForFieldName('path')?.text.split('::').pop() ?? null;
    // `Self::helper` and `super::helper` name no type we could match; the name alone must then be unique.
    return name ? { name, qualifier: path && !SELF_PATHS.has(path) ? path : null } : null;
  }
  const last = callee.lastNamedChild;
  if (!last || !/identifier/.test(last.type)) return null;
  const object = callee.namedChildren[0];
  // A package-qualified Go call names its package; a method call's receiver names nothing we can resolve.
  const qualifier = callee.type === 'selector_expression' && object?.type === 'identifier' ? object.text : null;
  return { name: last.text, qualifier };
}

/**
 * TypeScript's built-in types: a method called on a value declared with one of
 * them is the runtime's own (`argv: string[]` … `argv.includes(…)`), never a
 * function of the repository.
 */
const BUILTIN_TYPE =
  /^(readonly\s+)?([A-Za-z_$][\w$]*(\[\])+|string|number|boolean|bigint|RegExp|Date|URL|URLSearchParams|Buffer|(Readonly)?(Array|Map|Set)<.+>|Record<.+>|Promise<.+>)$/;

/**
 * Whether `callee` is a method called on a name whose declaration in the
 * enclosing functions (a parameter, or a local declared with a type) gives it
 * a built-in TypeScript type. Untyped names are not judged.
 */
function builtinReceiver(callee: SyntaxNode): boolean {
  if (callee.type !== 'member_expression') return false;
  const receiver = callee.childForFieldName('object');
  if (receiver?.type !== 'identifier') return false;
  for (let scope = callee.parent; scope; scope = scope.parent) {
    if (!FUNCTION_NODES.has(scope.type)) continue;
    const declared = typedDeclaration(scope, receiver.text);
    if (declared !== undefined) return declared !== null && BUILTIN_TYPE.test(declared);
  }
  return false;
}

/** The declared type of `name` in function `fn` (its parameters first, then typed locals); null when untyped; undefined when not declared there. */
function typedDeclaration(fn: SyntaxNode, name: string): string | null | undefined {
  for (const p of fn.childForFieldName('parameters')?.namedChildren ?? []) {
    if (p?.childForFieldName('pattern')?.text !== name) continue;
    return p.childForFieldName('type')?.text.replace(/^:\s*/, '').trim() ?? null;
  }
  const body = fn.childForFieldName('body');
  const pending = body ? [body] : [];
  while (pending.length > 0) {
    const n = pending.pop()!;
    if (n !== body && FUNCTION_NODES.has(n.type)) continue;
    if (n.type === 'variable_declarator' && n.childForFieldName('name')?.text === name)
      return n.childForFieldName('type')?.text.replace(/^:\s*/, '').trim() ?? null;
    for (const c of n.namedChildren) if (c) pending.push(c);
  }
  return undefined;
}

/** A logger's method (`utils.log.detail`, `logger.info`): a value handed to it is written out. */
const LOGGER_CALL = /(^|\.)(log|logger|logging|console)\.[A-Za-z_]\w*$/;

/**
 * The function node whose definition starts at `line` (its name on `nameLine`).
 * Searched from the name itself: `export const get = (a, b) => …` starts with
 * a keyword whose ancestors never include the arrow function, which is the
 * declarator's value.
 */
function functionAt(file: ParsedFile, line: number, nameLine: number, name: string): SyntaxNode | null {
  const text = file.text.split('\n', nameLine)[nameLine - 1] ?? '';
  const at = new RegExp(`(^|[^A-Za-z0-9_$])${name.replace(/\$/g, '\\$')}([^A-Za-z0-9_$]|$)`).exec(text);
  const column = at ? Buffer.byteLength(text.slice(0, at.index + at[1]!.length)) : text.length - text.trimStart().length;
  let n: SyntaxNode | null = file.tree.rootNode.descendantForPosition({ row: nameLine - 1, column });
  for (; n; n = n.parent) {
    if (FUNCTION_NODES.has(n.type) && n.startPosition.row + 1 >= line) return n;
    // `const walk = (…) => …`, `exports.walk = function (…) {…}`.
    const value = n.type === 'variable_declarator' ? n.childForFieldName('value') : n.type === 'assignment_expression' ? n.childForFieldName('right') : null;
    if (value && FUNCTION_NODES.has(value.type)) return value;
  }
  return null;
}

/** Parameter names in order, receivers (`self`, `&self`, `cls`) left out. */
function parameters(family: Family, fn: SyntaxNode): string[] {
  const list = fn.childForFieldName('parameters');
  if (!list) return [];
  const out: string[] = [];
  for (const p of list.namedChildren) {
    if (!p || p.type.includes('comment') || p.type === 'self_parameter') continue;
    if (family === 'go' && p.type === 'parameter_declaration') {
      for (const c of p.namedChildren) if (c && c.type === 'identifier') out.push(c.text);
      continue;
    }
    const named = p.type === 'identifier' ? p : (p.childForFieldName('pattern') ?? p.childForFieldName('name') ?? p.childForFieldName('left') ?? p.namedChildren[0]);
    out.push(named && /identifier/.test(named.type) ? named.text : '');
  }
  if (family === 'python' && out.length > 0 && RECEIVERS.has(out[0]!)) out.shift();
  return out;
}

/**
 * The callee's parameter that receives the argument holding `leaf`; `external`
 * when no function of that name is defined in the repository's own sources (a
 * library call: the value leaves the program's code there); null when it cannot
 * be told for sure (several namesakes, an unreadable parameter list).
 */
export function parameterFor(ctx: AnalysisContext, family: Family, call: SyntaxNode, leaf: SyntaxNode): ParameterTarget | 'external' | null {
  const shape = shapes(family).calls[call.type];
  if (!shape) return null;
  const arg = argumentOf(call, shape[1], leaf);
  const calleeNode = call.childForFieldName(shape[0]);
  const parts = calleeNode ? calleeParts(calleeNode) : null;
  if (!arg || !parts || parts.name.length < 3) return null;
  // The runtime's own method: the value leaves the program's code here, no search needed.
  if (family === 'js' && calleeNode && builtinReceiver(calleeNode)) return 'external';
  // A logger's method (`utils.log.detail(…)`, `logger.info(…)`) writes the value out; its own plumbing is no part of the flow.
  if (calleeNode && LOGGER_CALL.test(calleeNode.text)) return 'external';
  // Lines that can define the function: `fn name`, `def name`, `func (r T) name`, `function name`, `name(…) {`, `const name =`, `exports.name = function`.
  const n = parts.name.replace(/\$/g, '\\$');
  const definitionLines = [
    `(fn|def|func|function)([[:space:]]|[[:space:]]*\\([^)]*\\)[[:space:]]*)${n}([^A-Za-z0-9_$]|$)`,
    `^[[:space:]]*(pub[[:space:]]+|export[[:space:]]+|async[[:space:]]+|static[[:space:]]+)*${n}[[:space:]]*\\(`,
    `(const|let|var)[[:space:]]+${n}[[:space:]]*=`,
    `\\.${n}[[:space:]]*=[[:space:]]*(async[[:space:]]+)?(function|\\()`,
  ];
  const matches = ctx.grepSource(definitionLines, { regex: true, literals: [parts.name], pathspecs: SOURCE_PATHSPECS, maxMatches: FLOW_TRACE.maxHopOccurrences * 4 });
  const files = [...new Set(matches.map((m) => m.path))].filter((p) => isNonTestSource(ctx, p));
  const found: { file: ParsedFile; line: number; nameLine: number }[] = [];
  for (const path of files) {
    const file = ctx.parsed(path);
    if (!file || familyOf(file.language) !== family) continue;
    for (const d of factsOf(file).definitions) {
      if (d.name !== parts.name || (d.kind !== 'function' && d.kind !== 'method') || d.inTest || d.bodyLine === undefined) continue;
      if (parts.qualifier && d.container !== parts.qualifier && !path.includes(parts.qualifier)) continue;
      found.push({ file, line: d.startLine, nameLine: d.nameLine });
    }
  }
  if (found.length === 0) return matches.length < FLOW_TRACE.maxHopOccurrences * 4 ? 'external' : null;
  if (found.length !== 1) return null;
  const target = found[0]!;
  const fn = functionAt(target.file, target.line, target.nameLine, parts.name);
  if (!fn) return null;
  const params = parameters(family, fn);
  const name = arg.keyword ?? params[arg.index];
  if (!name || (arg.keyword && !params.includes(arg.keyword))) return null;
  return { file: target.file, fn, name, callee: parts.name };
}

export interface CallerResult {
  readonly file: ParsedFile;
  /** The statement binding the call's result (`let x = f(…)`, `x = f(…)`), the hop's origin. */
  readonly binding: SyntaxNode;
  /** Its target (`x`, `self.cfg`). */
  readonly target: SyntaxNode;
}

/** The name a function node is called by (`fn get(…)`, `const get = (…) =>`), if any. */
function calledName(fn: SyntaxNode): string | null {
  const own = fn.childForFieldName('name')?.text;
  if (own) return own;
  return fn.parent?.type === 'variable_declarator' ? (fn.parent.childForFieldName('name')?.text ?? null) : null;
}

/**
 * Where callers of `fn` keep its result: every non-test call site of that name
 * (at most FLOW_TRACE.maxCallers; none when the name is too common or defined
 * more than once) whose statement binds the call's value.
 */
export function callerResults(ctx: AnalysisContext, family: Family, fn: SyntaxNode): CallerResult[] {
  const name = calledName(fn);
  if (!name || name.length < 4) return [];
  const n = name.replace(/\$/g, '\\$');
  const matches = ctx.grepSource([`(^|[^A-Za-z0-9_$])${n}[[:space:]]*\\(`], { regex: true, literals: [name], pathspecs: SOURCE_PATHSPECS, maxMatches: FLOW_TRACE.maxCallers * 4 + 1 });
  if (matches.length > FLOW_TRACE.maxCallers * 4) return [];
  const out: CallerResult[] = [];
  const s = shapes(family);
  for (const m of matches) {
    if (!isNonTestSource(ctx, m.path) || out.length >= FLOW_TRACE.maxCallers) continue;
    const file = ctx.parsed(m.path);
    if (!file || familyOf(file.language) !== family) continue;
    const column = Buffer.byteLength(m.text.slice(0, m.text.search(new RegExp(`(^|[^A-Za-z0-9_$])${n}\\s*\\(`)) + 1));
    let call: SyntaxNode | null = file.tree.rootNode.namedDescendantForPosition({ row: m.line - 1, column: Math.max(0, column) });
    while (call && !(call.type in s.calls)) call = call.parent;
    if (!call || (call.tree === fn.tree && within(call, fn))) continue;
    for (let p: SyntaxNode | null = call.parent, prev: SyntaxNode = call; p && !s.containers.has(p.type); prev = p, p = p.parent) {
      // Handed to another call (`run([...build(x)])`), the result is that call's input; what it returns is another value.
      if (p.type in s.calls && p.childForFieldName(s.calls[p.type]![1])?.equals(prev)) break;
      const binding = s.bindings[p.type];
      if (!binding) continue;
      const value = p.childForFieldName(binding[1]);
      const target = p.childForFieldName(binding[0]);
      if (value && target && within(prev, value)) out.push({ file, binding: p, target });
      break;
    }
  }
  return out;
}
