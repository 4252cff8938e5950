// Two Python shapes through which an argparse value travels without ever being
// spelled as the option:
//  - a custom `argparse.Action` subclass named by `action=`: argparse builds it
//    with the declaration's keywords, its `__init__` decides the default (often
//    from the environment) and its `__call__` decides what lands in the
//    namespace, so the class is where the value's sources are weighed;
//  - the namespace turned into a dict (`vars(args)`, `args.__dict__`) and
//    splatted into a callee (`Settings(**vars(args))`, `cls(**settings)`):
//    every attribute arrives as the callee's keyword parameter of that name.
// Both resolve names only among the repository's own definitions, and only
// when exactly one definition fits.
import type { AnalysisContext, ParsedFile } from '../context.js';
import { factsOf } from '../languages/index.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { isNonTestSource } from './sites.js';

const OPTION_CALLS = /(^|\.)(add_argument|add_option)$/;
const NAME = /^[A-Za-z_]\w*$/;

function* walk(n: SyntaxNode, budget = 20_000): Generator<SyntaxNode> {
  const stack = [n];
  for (let left = budget; stack.length > 0 && left > 0; left--) {
    const d = stack.pop()!;
    yield d;
    for (let i = d.namedChildCount - 1; i >= 0; i--) stack.push(d.namedChild(i)!);
  }
}

/** The single non-test Python class definition named `name`, if exactly one exists. */
function uniqueClass(ctx: AnalysisContext, name: string): { file: ParsedFile; node: SyntaxNode } | null {
  if (!NAME.test(name)) return null;
  const matches = ctx.grep([`^[[:space:]]*class[[:space:]]+${name}[[:space:]]*[(:]`], { regex: true, literals: [name], pathspecs: ['*.py'], maxMatches: 8 });
  const hits = matches.filter((m) => isNonTestSource(ctx, m.path));
  if (hits.length !== 1) return null;
  const file = ctx.parsed(hits[0]!.path);
  if (!file) return null;
  let node: SyntaxNode | null = file.tree.rootNode.namedDescendantForPosition({ row: hits[0]!.line - 1, column: hits[0]!.text.search(/\S/) });
  while (node && node.type !== 'class_definition') node = node.parent;
  return node && node.childForFieldName('name')?.text === name ? { file, node } : null;
}

/**
 * The custom action class an argparse declaration overlapping [start, end]
 * names with `action=`: a class of the repository deriving from an `…Action`
 * base. Built-in actions are strings (`action="store_true"`) and never match.
 */
export function customActionClass(ctx: AnalysisContext, file: ParsedFile, start: number, end: number): { file: ParsedFile; node: SyntaxNode; name: string } | null {
  if (file.language !== 'python') return null;
  for (const n of walk(file.tree.rootNode)) {
    if (n.endPosition.row + 1 < start || n.startPosition.row + 1 > end) continue;
    if (n.type !== 'call' || !OPTION_CALLS.test(n.childForFieldName('function')?.text ?? '')) continue;
    const action = n.childForFieldName('arguments')?.namedChildren.find((a) => a?.type === 'keyword_argument' && a.childForFieldName('name')?.text === 'action');
    const value = action?.childForFieldName('value');
    if (!value || (value.type !== 'identifier' && value.type !== 'attribute')) continue;
    const name = value.type === 'attribute' ? (value.childForFieldName('attribute')?.text ?? '') : value.text;
    const cls = uniqueClass(ctx, name);
    if (cls && /Action\b/.test(cls.node.childForFieldName('superclasses')?.text ?? '')) return { ...cls, name };
  }
  return null;
}

export interface SplatTarget {
  /** The file holding the splatting call. */
  readonly origin: ParsedFile;
  /** The file holding the callee. */
  readonly file: ParsedFile;
  /** The statements that carry the whole namespace: `d = vars(args)` and the splatting call. */
  readonly carriers: readonly SyntaxNode[];
  readonly call: SyntaxNode;
  /** The callee function whose keyword parameter `name` receives the attribute. */
  readonly fn: SyntaxNode;
  readonly callee: string;
}

const isDictOf = (n: SyntaxNode): boolean =>
  (n.type === 'call' && n.childForFieldName('function')?.text === 'vars' && (n.childForFieldName('arguments')?.namedChildCount ?? 0) === 1) ||
  (n.type === 'attribute' && n.childForFieldName('attribute')?.text === '__dict__');

function parameterNames(fn: SyntaxNode): string[] {
  const out: string[] = [];
  for (const p of fn.childForFieldName('parameters')?.namedChildren ?? []) {
    if (!p) continue;
    const id = p.type === 'identifier' ? p : (p.childForFieldName('name') ?? p.namedChildren[0]);
    if (id?.type === 'identifier') out.push(id.text);
  }
  return out;
}

function methodOf(cls: SyntaxNode, name: string): SyntaxNode | null {
  for (const item of cls.childForFieldName('body')?.namedChildren ?? []) {
    const def = item?.type === 'decorated_definition' ? item.childForFieldName('definition') : item;
    if (def?.type === 'function_definition' && def.childForFieldName('name')?.text === name) return def;
  }
  return null;
}

/** The function a splatting call enters: `cls(…)` in a classmethod, a class's `__init__`, or a unique function. */
function calleeOf(ctx: AnalysisContext, call: SyntaxNode, file: ParsedFile): { file: ParsedFile; fn: SyntaxNode; callee: string } | null {
  const callee = call.childForFieldName('function');
  const name = callee?.type === 'identifier' ? callee.text : callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
  if (!name) return null;
  if (name === 'cls') {
    let cls: SyntaxNode | null = call.parent;
    while (cls && cls.type !== 'class_definition') cls = cls.parent;
    const init = cls ? methodOf(cls, '__init__') : null;
    return cls && init ? { file, fn: init, callee: cls.childForFieldName('name')?.text ?? 'cls' } : null;
  }
  const cls = uniqueClass(ctx, name);
  if (cls) {
    const init = methodOf(cls.node, '__init__');
    return init ? { file: cls.file, fn: init, callee: name } : null;
  }
  const defs = ctx.grep([`^[[:space:]]*(async[[:space:]]+)?def[[:space:]]+${name}[[:space:]]*\\(`], { regex: true, literals: [name], pathspecs: ['*.py'], maxMatches: 8 }).filter((m) => isNonTestSource(ctx, m.path));
  if (defs.length !== 1 || !NAME.test(name)) return null;
  const target = ctx.parsed(defs[0]!.path);
  const fn = target ? factsOf(target).definitions.find((d) => d.name === name && d.nameLine === defs[0]!.line) : undefined;
  if (!target || !fn) return null;
  let node: SyntaxNode | null = target.tree.rootNode.namedDescendantForPosition({ row: fn.nameLine - 1, column: defs[0]!.text.search(/def/) });
  while (node && node.type !== 'function_definition') node = node.parent;
  return node ? { file: target, fn: node, callee: name } : null;
}

/**
 * Every call that splats an object's attribute dict into a repository function
 * taking a parameter named `field`: `f(**vars(o))`, or `d = vars(o)` … `f(**d)`
 * in the same function. The attribute then continues in that parameter.
 */
export function namespaceSplats(ctx: AnalysisContext, field: string): SplatTarget[] {
  const matches = ctx.grep(['(^|[^A-Za-z0-9_.])vars[[:space:]]*\\(', '\\.__dict__'], { regex: true, literals: ['vars', '__dict__'], pathspecs: ['*.py'], maxMatches: 64 });
  if (matches.length >= 64) return [];
  const out: SplatTarget[] = [];
  const seen = new Set<string>();
  for (const path of [...new Set(matches.map((m) => m.path))].filter((p) => isNonTestSource(ctx, p))) {
    const file = ctx.parsed(path);
    if (!file || file.language !== 'python') continue;
    for (const dict of walk(file.tree.rootNode)) {
      if (!isDictOf(dict)) continue;
      const splats: { call: SyntaxNode; carriers: SyntaxNode[] }[] = [];
      const p = dict.parent;
      if (p?.type === 'dictionary_splat' && p.parent?.type === 'argument_list' && p.parent.parent?.type === 'call') {
        splats.push({ call: p.parent.parent, carriers: [] });
      } else if (p?.type === 'assignment' && p.childForFieldName('right')?.equals(dict) && p.childForFieldName('left')?.type === 'identifier') {
        // `settings = vars(args)`: the local's `**settings` splats in the same function.
        const local = p.childForFieldName('left')!.text;
        let scope: SyntaxNode | null = p.parent;
        while (scope && scope.type !== 'function_definition' && scope.type !== 'module') scope = scope.parent;
        for (const n of scope ? walk(scope) : []) {
          if (n.type !== 'dictionary_splat' || n.namedChildren[0]?.text !== local || n.startIndex < p.endIndex) continue;
          if (n.parent?.type === 'argument_list' && n.parent.parent?.type === 'call') splats.push({ call: n.parent.parent, carriers: [p.parent?.type === 'expression_statement' ? p.parent : p] });
        }
      }
      for (const { call, carriers } of splats) {
        const key = `${path}@${call.startIndex}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const target = calleeOf(ctx, call, file);
        if (!target || !parameterNames(target.fn).includes(field)) continue;
        let statement = call;
        while (statement.parent && !['block', 'module'].includes(statement.parent.type)) statement = statement.parent;
        out.push({ ...target, origin: file, carriers: [...carriers, statement], call });
      }
    }
  }
  return out;
}
