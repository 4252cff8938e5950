// A key read through the project's own helpers
// (`truthy(lookEnvWithDefault("APP_QUIET", ""))`, `env_flag("APP_QUIET")`):
// the call site names the key, but what happens to it — the fallback when it
// is unset, the parsing of "yes"/"1" — is in the helpers' bodies. Each helper
// of the repository on the way out of the nested calls is cited: the one that
// receives the key reads it (precedence when it branches on it, e.g. a
// default), the ones around it transform its result.
import type { FlowRole } from '../../core/contracts.js';
import type { AnalysisContext } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { parameterFor } from './calls.js';
import { familyOf, shapes, within } from './syntax.js';
import type { ParsedFile } from '../context.js';

export interface HelperNote {
  readonly path: string;
  readonly node: SyntaxNode;
  readonly until?: SyntaxNode;
  readonly role: FlowRole;
  readonly description: string;
}

/** A helper longer than this is cited by its signature only. */
const WHOLE_HELPER_LINES = 15;
/** Nested helper calls followed outward at most. */
const MAX_NESTING = 3;
const BRANCHES = /^(if_statement|if_expression|switch_statement|expression_switch_statement|match_expression|ternary_expression|conditional_expression|binary_expression|boolean_operator)$/;

function branches(fn: SyntaxNode): boolean {
  const stack = [fn.childForFieldName('body') ?? fn];
  for (let budget = 2_000; stack.length > 0 && budget > 0; budget--) {
    const n = stack.pop()!;
    if (BRANCHES.test(n.type) && (n.type !== 'binary_expression' || /\|\||\?\?/.test(n.child(1)?.text ?? ''))) return true;
    for (let i = n.namedChildCount - 1; i >= 0; i--) stack.push(n.namedChild(i)!);
  }
  return false;
}

/** The string literal `leaf` sits in, when it is a whole argument of a call. */
function argumentCall(file: ParsedFile, node: SyntaxNode): SyntaxNode | null {
  const calls = shapes(familyOf(file.language)).calls;
  let n: SyntaxNode = node;
  while (n.parent && /string|fragment|content/.test(n.parent.type) && !(n.parent.type in calls)) n = n.parent;
  const args = n.parent;
  const call = args?.parent;
  if (!args || !call || !(call.type in calls) || call.childForFieldName(calls[call.type]![1])?.equals(args) !== true) return null;
  return call;
}

export function helperNotes(ctx: AnalysisContext, file: ParsedFile, leaf: SyntaxNode, subject: string): HelperNote[] {
  const family = familyOf(file.language);
  const calls = shapes(family).calls;
  const out: HelperNote[] = [];
  let call = argumentCall(file, leaf);
  let inner: SyntaxNode = leaf;
  for (let depth = 0; call && depth < MAX_NESTING; depth++) {
    const target = parameterFor(ctx, family, call, inner);
    if (target === null || target === 'external') break;
    const fn = target.fn;
    const long = fn.endPosition.row - fn.startPosition.row + 1 > WHOLE_HELPER_LINES;
    const header = fn.childForFieldName('parameters') ?? fn.childForFieldName('name') ?? fn;
    const role: FlowRole = depth === 0 && branches(fn) ? 'precedence' : 'transformation';
    const description = depth === 0 ? `\`${target.callee}\` receives \`${subject}\` as \`${target.name}\` and reads it` : `\`${target.callee}\` converts what the inner call returns`;
    out.push({ path: target.file.path, node: fn, until: long ? header : fn, role, description });
    // The helper's result as an argument of another call: `truthy(lookEnv(…))`.
    inner = call;
    const args = call.parent;
    const outer = args?.parent;
    call = args && outer && outer.type in calls && within(call, outer) && outer.childForFieldName(calls[outer.type]![1])?.equals(args) === true ? outer : null;
  }
  return out;
}
