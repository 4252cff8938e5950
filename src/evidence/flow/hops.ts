// A hop: the value renamed into another carrier, which the trace then follows
// on its own — a local inside its function, a field wherever it is read, a
// package or module variable in its package, or a callee's parameter.
import type { ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { bindingScope } from './scope.js';
import type { Spellings } from './spellings.js';
import { single } from './go.js';
import { MEMBER_TYPES, lastName, shapes, within, type Family } from './syntax.js';

export interface Hop {
  readonly name: string;
  /** The function a local binding lives in; null for a field followed across files. */
  readonly scope: SyntaxNode | null;
  /** The statement that introduced the new name; its own occurrence is already explained. */
  readonly origin: SyntaxNode;
  /** A package or module variable (not a field): followed as a bare name in its package or file. */
  readonly global?: boolean;
  /** The file `scope` lies in, when it is not the file of the occurrence (a callee's parameter). */
  readonly file?: ParsedFile;
  /**
   * What the value decided, not the value (`const passes = cfg.multipass ? 10 : 1`): followed for
   * its flow, but not a name tests set the option by.
   */
  readonly derived?: boolean;
  /**
   * Go's `processor.MaxMean`: a variable of the imported package `processor`, read bare inside
   * that package (a directory of that name) and as `processor.MaxMean` everywhere else.
   */
  readonly goPackage?: string;
}

/** The hop into `target` (`o.path` → field `path`; `expanded` → its local or package variable), unless it spells the subject. */
export function hopTo(family: Family, spellings: Spellings, target: SyntaxNode, origin: SyntaxNode): Hop | undefined {
  if (spellings.mentions(target.text)) return undefined;
  if (MEMBER_TYPES.has(target.type)) {
    const name = lastName(target);
    const goPackage = family === 'go' ? importedPackage(target) : null;
    return name ? { name, scope: null, origin, ...(goPackage ? { goPackage } : {}) } : undefined;
  }
  if (target.type !== 'identifier') return undefined;
  const scope = bindingScope(family, origin, target.text);
  return { name: target.text, scope, origin, global: scope === null };
}

/** `pkg` of a Go selector `pkg.Name` when the file imports a package under that name. */
function importedPackage(selector: SyntaxNode): string | null {
  const operand = selector.childForFieldName('operand');
  if (selector.type !== 'selector_expression' || operand?.type !== 'identifier') return null;
  let root = selector;
  while (root.parent) root = root.parent;
  for (const spec of root.descendantsOfType('import_spec')) {
    const alias = spec?.childForFieldName('name')?.text;
    const path = spec?.childForFieldName('path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
    if ((alias ?? path.slice(path.lastIndexOf('/') + 1)) === operand.text) return operand.text;
  }
  return null;
}

/** The hop into the binding whose value holds `node` within its statement (`x = … node …`), if any. */
export function hopToBinding(family: Family, spellings: Spellings, node: SyntaxNode): Hop | undefined {
  const s = shapes(family);
  let prev = node;
  for (let p = node.parent; p && !s.containers.has(p.type); prev = p, p = p.parent) {
    const binding = s.bindings[p.type];
    if (!binding) continue;
    const value = p.childForFieldName(binding[1]);
    const target = single(p.childForFieldName(binding[0]), value);
    return target && value && within(prev, value) ? hopTo(family, spellings, target, p) : undefined;
  }
  return undefined;
}
