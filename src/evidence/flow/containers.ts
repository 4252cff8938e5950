// A value stored into a member of a nested object (`config.render.finalNewline
// = true`) is not read again under its own name until the far end: in between
// it travels inside its container. Two general consequences:
//  - wherever the container member (`render`) is handed on whole — an argument
//    (`write(tree, config.render)`) or a spread into a new object
//    (`{ eol: 'lf', ...config.render }`) — the value goes with it (a carrier);
//  - the object the option overrides got its earlier contents from another
//    source in the same function (`const loaded = await loadConfig(path)` …
//    `config = loaded`): that is where the configuration file and the option
//    meet (precedence).
import { FLOW_TRACE } from '../../core/limits.js';
import type { FlowRole } from '../../core/contracts.js';
import type { AnalysisContext, ParsedFile } from '../context.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { SOURCE_PATHSPECS, isNonTestSource, sitesOnLines } from './sites.js';
import { Spellings } from './spellings.js';
import { MEMBER_TYPES, enclosingFunction, familyOf, lastName, shapes, snippet, within, type Family } from './syntax.js';

export interface ContainerNote {
  readonly path: string;
  readonly node: SyntaxNode;
  /** When the citation runs on to the end of another node. */
  readonly until?: SyntaxNode;
  readonly role: FlowRole;
  readonly description: string;
}

const SELF = new Set(['this', 'self', 'Self']);
const SPREADS = new Set(['spread_element', 'dictionary_splat', 'list_splat']);
const ARGUMENT_LISTS = new Set(['arguments', 'argument_list']);
const OBJECT_LITERALS = new Set(['object', 'dictionary']);
/** How far apart a source's binding and its hand-over into the object may lie to be cited as one range. */
const SOURCE_SPAN_LINES = 12;

/** `a.b.x = v` or `a.x = v` with `leaf` = x: the store's statement, the container member `a.b` (when nested), and the root `a`. */
function memberStore(family: Family, leaf: SyntaxNode): { store: SyntaxNode; container: SyntaxNode | null; root: SyntaxNode } | null {
  const member = leaf.parent;
  if (!member || !MEMBER_TYPES.has(member.type) || member.lastNamedChild?.equals(leaf) !== true) return null;
  const object = member.namedChildren[0];
  if (!object) return null;
  let target: SyntaxNode = member;
  if (target.parent?.type === 'expression_list') target = target.parent;
  const store = target.parent;
  const binding = store ? shapes(family).bindings[store.type] : undefined;
  if (!store || !binding || store.childForFieldName(binding[0])?.equals(target) !== true) return null;
  let root = object;
  while (MEMBER_TYPES.has(root.type) && root.namedChildren[0]) root = root.namedChildren[0];
  return { store, container: MEMBER_TYPES.has(object.type) ? object : null, root };
}

/** Where the container member is handed on whole: an argument, or spread into a new object. */
function handOvers(ctx: AnalysisContext, name: string, store: SyntaxNode): ContainerNote[] {
  const matches = ctx.grepSource([name], { word: true, pathspecs: SOURCE_PATHSPECS, maxMatches: FLOW_TRACE.maxHopOccurrences + 1 });
  if (matches.length > FLOW_TRACE.maxHopOccurrences) return [];
  const spelling = new Spellings([name], null);
  const byPath = new Map<string, number[]>();
  for (const m of matches) if (isNonTestSource(ctx, m.path)) byPath.set(m.path, [...(byPath.get(m.path) ?? []), m.line]);
  const out: ContainerNote[] = [];
  for (const [path, lines] of byPath) {
    const file = ctx.parsed(path);
    if (!file) continue;
    for (const site of sitesOnLines(file, lines, spelling)) {
      const member = site.leaf.parent;
      if (!member || !MEMBER_TYPES.has(member.type) || member.lastNamedChild?.equals(site.leaf) !== true) continue;
      if (member.tree === store.tree && within(member, store)) continue;
      const p = member.parent;
      if (p && SPREADS.has(p.type) && p.parent && OBJECT_LITERALS.has(p.parent.type)) {
        // `key: { eol: 'lf', ...config.render }`: merged with other keys (defaults before it, overrides after) the
        // container becomes a new value — a transformation; spread alone it is only copied. Cited with its key.
        const literal = p.parent.parent?.type === 'pair' ? p.parent.parent : p.parent;
        const merged = p.parent.namedChildren.filter((c) => c && !c.type.includes('comment')).length > 1;
        const description = merged ? `\`${snippet(member.text, 60)}\` merged into a new object with other keys` : `\`${snippet(member.text, 60)}\` copied into a new object`;
        out.push({ path, node: literal, role: merged ? 'transformation' : 'carrier', description });
      } else if (p && ARGUMENT_LISTS.has(p.type)) {
        out.push({ path, node: statementOf(file, p.parent ?? p), role: 'carrier', description: `\`${snippet(member.text, 60)}\` handed whole to \`${snippet(p.parent?.namedChildren[0]?.text ?? 'a call', 40)}\`` });
      }
    }
  }
  return out;
}

function statementOf(file: ParsedFile, n: SyntaxNode): SyntaxNode {
  const containers = shapes(familyOf(file.language)).containers;
  let cur = n;
  while (cur.parent && !containers.has(cur.parent.type)) cur = cur.parent;
  return cur.endPosition.row - cur.startPosition.row < SOURCE_SPAN_LINES ? cur : n;
}

/** Earlier in the store's function: `root = other` where `other` was bound from a call (`await load(path)`). */
function earlierSource(file: ParsedFile, family: Family, store: SyntaxNode, root: SyntaxNode): ContainerNote | null {
  if (root.type !== 'identifier' || SELF.has(root.text)) return null;
  const fn = enclosingFunction(family, store);
  if (!fn) return null;
  const bindings = shapes(family).bindings;
  const nodes: SyntaxNode[] = [];
  const stack = [fn];
  for (let budget = 20_000; stack.length > 0 && budget > 0; budget--) {
    const n = stack.pop()!;
    if (n.startIndex >= store.startIndex) continue;
    if (bindings[n.type]) nodes.push(n);
    for (let i = n.namedChildCount - 1; i >= 0; i--) stack.push(n.namedChild(i)!);
  }
  const targetOf = (n: SyntaxNode) => n.childForFieldName(bindings[n.type]![0]);
  const valueOf = (n: SyntaxNode) => n.childForFieldName(bindings[n.type]![1]);
  const isCall = (v: SyntaxNode | null) => !!v && /call|await/.test(v.type);
  for (const handOver of nodes.sort((a, b) => b.startIndex - a.startIndex)) {
    const value = valueOf(handOver);
    if (targetOf(handOver)?.text !== root.text || !value) continue;
    const source = value.type === 'identifier' ? nodes.find((n) => targetOf(n)?.text === value.text && isCall(valueOf(n)) && n.startIndex < handOver.startIndex) : isCall(value) ? handOver : undefined;
    if (!source) continue;
    const from = statementOf(file, source);
    const to = statementOf(file, handOver);
    const description = `\`${root.text}\` takes its earlier contents from \`${snippet(valueOf(source)!.text, 50)}\` before the option overrides it`;
    if (to.endPosition.row - from.startPosition.row < SOURCE_SPAN_LINES) return { path: file.path, node: from, until: to, role: 'precedence', description };
    return { path: file.path, node: from, role: 'precedence', description };
  }
  return null;
}

/** Steps that follow a nested store's container: its hand-overs, and the earlier source of the object it overrides. */
export function containerNotes(ctx: AnalysisContext, file: ParsedFile, leaf: SyntaxNode, spellings: Spellings): ContainerNote[] {
  const family = familyOf(file.language);
  const nested = memberStore(family, leaf);
  if (!nested) return [];
  const out: ContainerNote[] = [];
  const source = earlierSource(file, family, nested.store, nested.root);
  if (source) out.push(source);
  const name = nested.container ? lastName(nested.container) : null;
  if (name && name.length >= 3 && !spellings.mentions(name) && !SELF.has(name)) out.push(...handOvers(ctx, name, nested.store));
  return out;
}
