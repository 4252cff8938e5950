// implementation_location for named definitions: symbols (optionally
// qualified by module path, type, class or impl) and tests (Rust module
// paths, pytest node ids, Go Test functions, vitest/jest titles).
import { type AnalysisContext } from './context.js';
import { isTestPath } from '../core/test-code.js';
import { candidateFrom, discover, settle, type Candidate, type LocateResult } from './candidates.js';
import type { Definition, DefinitionKind } from './languages/index.js';
import { mentionSpellings, normalized, qualifiedName } from './names.js';

/** Kinds that are a definition proper; fields, variants, variables and bodiless signatures rank below. */
const SECONDARY: ReadonlySet<DefinitionKind> = new Set(['field', 'variant', 'variable']);

function symbolTier(d: Definition): number {
  if (SECONDARY.has(d.kind)) return 1;
  if ((d.kind === 'method' || d.kind === 'function') && d.bodyLine === undefined) return 1;
  return 0;
}

/** Path segments without extension: src/flags/defs.rs → [src, flags, defs]. */
function moduleSegments(path: string): string[] {
  return path.replace(/\.[^./]+$/, '').split('/');
}

/**
 * How well `qualifiers` place a definition: 0 when the innermost qualifier is its
 * type, class or scope (`HiArgs::new`), 1 when the qualifiers are only module path
 * segments (`config::validate`), null when some qualifier places it elsewhere.
 * Types compare exactly; path segments loosely (crate dirs use - where code uses _).
 */
function placement(qualifiers: readonly string[], path: string, d: Definition): number | null {
  if (qualifiers.length === 0) return 0;
  const scopes = new Set([...d.scope, ...(d.container ? [d.container] : [])]);
  const segments = new Set(moduleSegments(path).map(normalized));
  if (!qualifiers.every((q) => scopes.has(q) || segments.has(normalized(q)))) return null;
  return scopes.has(qualifiers[qualifiers.length - 1]!) ? 0 : 1;
}

interface Found {
  readonly path: string;
  readonly def: Definition;
}

/**
 * `identifier`: the name is an identifier, spelled in the source as it is
 * here, so only the rows holding it are queried (AnalysisContext.definitionsNamed);
 * a test title may be spelled with escapes, so its files' facts are read whole.
 */
function definitionsNamed(ctx: AnalysisContext, files: readonly string[], name: string, identifier: boolean): Found[] {
  return files.flatMap((path) =>
    (identifier ? ctx.definitionsNamed(path, name) : (ctx.facts(path)?.definitions.filter((d) => d.name === name) ?? [])).map((def) => ({ path, def })),
  );
}

const label = (f: Found): string => `${f.path}:${f.def.startLine} ${f.def.kind} ${f.def.container ? `${f.def.container}.` : ''}${f.def.name}`;

function toCandidate(f: Found, tier: number): Candidate {
  return candidateFrom(f.path, f.def, { kind: f.def.kind, name: f.def.container ? `${f.def.container}.${f.def.name}` : f.def.name, tier, symbol: f.def.name, carriers: [f.def.name] });
}

export function locateSymbol(ctx: AnalysisContext, subject: string): LocateResult {
  const { qualifiers, name } = qualifiedName(subject);
  if (!/^[\p{L}_$][\p{L}\p{N}_$]*[!?]?$/u.test(name)) return { kind: 'unresolved', reason: `symbol ${subject} does not end in an identifier` };
  const discovery = discover(ctx, [name], { word: true }, false);
  const all = definitionsNamed(ctx, discovery.files, name, true);
  const matching = all.flatMap((f) => {
    const p = placement(qualifiers, f.path, f.def);
    return p === null ? [] : [{ ...f, placement: p }];
  });
  if (all.length > 0 && matching.length === 0) {
    const seen = all.slice(0, 4).map(label).join(', ');
    return { kind: 'unresolved', reason: `no definition of ${name} lies in ${qualifiers.join('::')} (definitions: ${seen})` };
  }
  return settle(ctx, matching.map((f) => toCandidate(f, symbolTier(f.def) * 2 + f.placement)), {
    allowTest: false,
    spellings: mentionSpellings(subject),
    notFound: `no definition of symbol ${subject}`,
    searchComplete: discovery.complete,
    support: (primary, best) => ({
      carriers: best.carriers,
      prefer: 'calls',
      // Mentions in a file that defines a namesake most likely refer to that namesake.
      excludePaths: new Set(all.filter((f) => f.path !== primary.path).map((f) => f.path)),
    }),
  });
}

/** Reads `tests/test_x.py::TestCli::test_y`, `deploy > skips upload`, `tests::name`, `TestName`. */
function testName(subject: string): { path: string | null; qualifiers: string[]; name: string } {
  const pytest = /^([^:\s]+\.py)::(.+)$/.exec(subject);
  if (pytest) {
    const parts = pytest[2]!.split('::').map((p) => p.replace(/\[.*\]$/, ''));
    return { path: pytest[1]!, qualifiers: parts.slice(0, -1), name: parts[parts.length - 1]! };
  }
  if (subject.includes(' > ')) {
    const parts = subject.split(' > ').map((p) => p.trim());
    return { path: null, qualifiers: parts.slice(0, -1), name: parts[parts.length - 1]! };
  }
  if (/\s/.test(subject)) return { path: null, qualifiers: [], name: subject.trim() };
  const q = qualifiedName(subject.replace(/^\^|\$$/g, ''));
  return { path: null, ...q };
}

export function locateTest(ctx: AnalysisContext, subject: string): LocateResult {
  const { path, qualifiers, name } = testName(subject);
  const identifierLike = /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name);
  const discovery = discover(ctx, [name], { word: identifierLike }, true);
  const files = path ? discovery.files.filter((f) => f === path.replace(/^\.\//, '')) : discovery.files;
  const found = definitionsNamed(ctx, files, name, identifierLike).filter(
    (f) => (f.def.inTest || isTestPath(f.path)) && placement(qualifiers, f.path, f.def) !== null,
  );
  return settle(ctx, found.map((f) => toCandidate(f, f.def.kind === 'test' ? 0 : 1)), {
    allowTest: true,
    spellings: [name],
    notFound: `no test named ${subject}`,
    searchComplete: discovery.complete,
    support: () => null,
  });
}
