// Where the carrier occurs in non-test source: git grep narrows the files, the
// file's own text (read through the context, so it is in the observation
// trace) gives exact columns, and the syntax tree gives the token there.
import { type AnalysisContext, type ParsedFile } from '../context.js';
import { isTestPath } from '../../core/test-code.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import type { Spellings } from './spellings.js';
import { lineStarts } from './syntax.js';
import { isGeneratedLine, isVendoredPath } from '../peripheral.js';

export const SOURCE_PATHSPECS = ['*.rs', '*.ts', '*.mts', '*.cts', '*.tsx', '*.js', '*.mjs', '*.cjs', '*.jsx', '*.py', '*.go'];

// Type-level tests (tsd) sit outside the usual test folders.
const TYPE_TESTS = /\.test-d\.tsx?$/;

export interface Site {
  readonly file: ParsedFile;
  /** 1-based line of the occurrence. */
  readonly line: number;
  /** The smallest named node at the occurrence. */
  readonly leaf: SyntaxNode;
}

export function isNonTestSource(ctx: AnalysisContext, path: string): boolean {
  return ctx.languageOf(path) !== null && !isTestPath(path) && !isVendoredPath(path) && !TYPE_TESTS.test(path) && !ctx.isMarkedNotCode(path);
}

/** Occurrences in non-test source, in path/line/column order; `truncated` when the bound cut the search. */
export function findSites(
  ctx: AnalysisContext,
  spellings: Spellings,
  max: number,
): { sites: Site[]; truncated: boolean } {
  const matches = ctx.grepSource(spellings.grepPatterns, { word: true, pathspecs: SOURCE_PATHSPECS, maxMatches: max + 1 });
  const truncated = matches.length > max;
  const byPath = new Map<string, number[]>();
  for (const m of matches.slice(0, max)) {
    if (!isNonTestSource(ctx, m.path) || isGeneratedLine(m.text)) continue;
    const lines = byPath.get(m.path) ?? [];
    lines.push(m.line);
    byPath.set(m.path, lines);
  }
  const sites: Site[] = [];
  for (const path of [...byPath.keys()].sort()) {
    const file = ctx.parsed(path);
    if (!file) continue;
    sites.push(...sitesOnLines(file, byPath.get(path)!, spellings));
  }
  return { sites, truncated };
}

/** Occurrences on the given lines of one parsed file. */
export function sitesOnLines(file: ParsedFile, lines: readonly number[], spellings: Spellings): Site[] {
  const starts = lineStarts(file.text);
  const out: Site[] = [];
  for (const line of [...new Set(lines)].sort((a, b) => a - b)) {
    const from = starts[line - 1];
    if (from === undefined) continue;
    const to = starts[line] ?? file.text.length;
    const text = file.text.slice(from, to);
    // A minified line is a build's output, whichever search met it (the subject's or a hop's).
    if (isGeneratedLine(text)) continue;
    for (const pos of spellings.positions(text)) {
      const index = from + pos.column;
      const leaf = file.tree.rootNode.namedDescendantForIndex(index, index + pos.length - 1);
      if (leaf) out.push({ file, line, leaf });
    }
  }
  return out;
}

/** Occurrences within one node (a function that holds a local binding). */
export function sitesInNode(file: ParsedFile, node: SyntaxNode, spellings: Spellings): Site[] {
  const first = node.startPosition.row + 1;
  const last = node.endPosition.row + 1;
  const lines: number[] = [];
  for (let l = first; l <= last; l++) lines.push(l);
  return sitesOnLines(file, lines, spellings).filter((s) => s.leaf.startIndex >= node.startIndex && s.leaf.endIndex <= node.endIndex);
}
