// Where a renamed carrier is visible. A name bound inside a function is a local
// of that function; a name only assigned there but declared outside it (a Go
// package variable, a module-level `let`, a Python `global`) lives on in the
// package or module, and its other uses there are the value's next steps.
import type { SyntaxNode } from '../parse/treesitter.js';
import { shapes, type Family } from './syntax.js';

/** Nodes that introduce a new local name (plain assignment does not, except in Python). */
const DECLARATIONS: Readonly<Record<Family, ReadonlySet<string>>> = {
  rust: new Set(['let_declaration']),
  js: new Set(['variable_declarator']),
  python: new Set(['assignment', 'augmented_assignment']),
  go: new Set(['short_var_declaration', 'var_spec', 'const_spec']),
};

/** The function around `n`, or the file's root for a module-level statement. */
export function localScope(family: Family, n: SyntaxNode): SyntaxNode {
  const fns = shapes(family).functions;
  let p = n;
  while (p.parent) {
    p = p.parent;
    if (fns.has(p.type) || p.type === 'arrow_function') return p;
  }
  return p;
}

function declares(family: Family, node: SyntaxNode, name: string): boolean {
  if (DECLARATIONS[family].has(node.type)) {
    const [targetField] = shapes(family).bindings[node.type] ?? ['name'];
    const target = node.childForFieldName(targetField);
    if (target && new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}([^\\w$]|$)`).test(target.text)) return true;
  }
  if (node.type in shapes(family).params || node.type === 'parameter_declaration') {
    const text = node.text;
    if (new RegExp(`^\\*{0,2}${name.replace(/\$/g, '\\$')}\\b`).test(text.trim())) return true;
  }
  return false;
}

function declaredWithin(family: Family, scope: SyntaxNode, name: string): boolean {
  if (family === 'python' && new RegExp(`\\b(global|nonlocal)\\s+[\\w, ]*\\b${name}\\b`).test(scope.text)) return false;
  const stack: SyntaxNode[] = [scope];
  for (let budget = 20_000; stack.length > 0 && budget > 0; budget--) {
    const n = stack.pop()!;
    if (declares(family, n, name)) return true;
    for (let i = n.namedChildCount - 1; i >= 0; i--) {
      const c = n.namedChild(i);
      if (c) stack.push(c);
    }
  }
  return false;
}

/**
 * The scope a name assigned at `n` is followed in: its function when the
 * function declares it, otherwise null — the name is a package or module
 * variable (`forceNoColor = … os.Getenv("NO_COLOR")` in Go assigns a package var).
 */
export function bindingScope(family: Family, n: SyntaxNode, name: string): SyntaxNode | null {
  const scope = localScope(family, n);
  if (!scope.parent) return scope;
  return declaredWithin(family, scope, name) ? scope : null;
}
