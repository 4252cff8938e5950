// Declarations a parser or a decoder fills by reflection, so that the
// declaration itself is where the value enters: a Go struct field whose tag
// declares an option (go-flags `long:"raw-output"`, go-arg, kong) or names the
// key a decoder reads (`mapstructure:"backend-url"`), and a Python parameter
// typer fills from its `Option(…)`.
import { TAG_KEYS, tagOption, tagPairs } from '../languages/go.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import type { Spellings } from './spellings.js';
import { snippet, within } from './syntax.js';
import { stringContent } from './value-syntax.js';
import type { Verdict } from './verdict.js';

/** A Go struct tag naming the subject as the key a decoder reads (`mapstructure:"backend-url"`, `yaml:"min-size,omitempty"`). */
function namesSubject(pairs: ReadonlyMap<string, string>, spellings: Spellings): boolean {
  return [...pairs].some(([k, v]) => TAG_KEYS.has(k) && spellings.isOptionLiteral(v.split(',')[0]!));
}

/** The Go struct field whose tag holds `node` (the tag itself or a node inside it), if any. */
export function fieldOfTag(node: SyntaxNode): SyntaxNode | null {
  for (let n: SyntaxNode | null = node; n; n = n.parent) {
    if (n.parent?.type === 'field_declaration') return n.parent.childForFieldName('tag')?.equals(n) === true ? n.parent : null;
  }
  return null;
}

/** Whether the string `str` is a Go struct field's tag that declares an option or names the subject as a decoder's key. */
export function isSubjectTag(str: SyntaxNode, spellings: Spellings): boolean {
  const name = fieldOfTag(str)?.childForFieldName('name');
  if (!name) return false;
  const pairs = tagPairs(str.text);
  return tagOption(name.text, pairs) !== null || namesSubject(pairs, spellings);
}

/**
 * The step of a Go struct field `n` met at `prev` whose tag fills it: `Raw bool \`long:"raw-output"\``
 * (met at the tag, or at a field the tag names after itself, kong's `NoLimit`) is the option's producer,
 * its `default:"…"` the precedence; a field whose tag names the subject as a decoder's key carries it.
 * Either way the program then reads the field by its own name. Null for any other field.
 */
export function taggedFieldVerdict(n: SyntaxNode, label: string, prev: SyntaxNode, spellings: Spellings): Verdict | null {
  const name = n.childForFieldName('name');
  const tag = n.childForFieldName('tag');
  if (!name || !tag) return null;
  const pairs = tagPairs(tag.text);
  const declared = tagOption(name.text, pairs);
  const hop = { name: name.text, scope: null, origin: n };
  if (declared && (within(prev, tag) || declared.longs.some((l) => spellings.isOptionLiteral(l)))) {
    const fallback = pairs.get('default');
    return {
      kind: 'step',
      role: 'producer',
      node: n,
      symbol: name.text,
      description: `\`${label}\` is filled by its tag \`${snippet(stringContent(tag), 60)}\``,
      carrier: { node: n, description: `\`${label}\` carries the parsed value` },
      also: fallback !== undefined ? [{ role: 'precedence', node: n, description: `\`${label}\` defaults to the tag's \`default:"${snippet(fallback, 40)}"\`` }] : undefined,
      hop,
    };
  }
  if (within(prev, tag) && namesSubject(pairs, spellings)) {
    return { kind: 'step', role: 'carrier', node: n, symbol: name.text, description: `\`${label}\` is filled from the key its tag names`, hop };
  }
  return null;
}

/**
 * A Python parameter typer fills — its default or `Annotated[…]` metadata is an `Option(…)` — is the
 * option's producer, and its default value applies without the flag. Null for any other parameter.
 */
export function typerParameterVerdict(node: SyntaxNode, name: string, fn: string | null): Verdict | null {
  const option = node.descendantsOfType('call').find((c) => /(^|\.)Option$/.test(c?.childForFieldName('function')?.text ?? ''));
  if (!option) return null;
  const value = node.childForFieldName('value');
  const fallback = value && !value.equals(option) ? value : null;
  const of = `parameter \`${name}\` of \`${fn ?? 'anonymous function'}\``;
  return {
    kind: 'step',
    role: 'producer',
    node,
    symbol: fn,
    description: `${of} is filled by \`${snippet(option.text, 60)}\``,
    carrier: { node, description: `${of} carries the parsed value` },
    also: fallback ? [{ role: 'precedence', node: fallback, description: `parameter \`${name}\` defaults to \`${snippet(fallback.text, 40)}\`` }] : undefined,
  };
}
