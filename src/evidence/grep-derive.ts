// One search, many questions (issue "warm hits": a cold resolution should cost
// about one `git grep`). The static worker asks git grep for the subject's
// spellings several times — as whole words everywhere, as words in source
// files, as substrings in source files — and each run walks the whole
// repository. A fixed-string search for the same literals without -w and
// without pathspecs returns a superset of every such answer, so those answers
// are derived from it in memory with git grep's own rules:
//  - a line matches a fixed pattern when it contains it; with -w only where the
//    occurrence is not preceded or followed by a word character ([A-Za-z0-9_],
//    bytes as under LC_ALL=C), any occurrence on the line counting;
//  - a pathspec `*.ext` matches every path ending in `.ext` (`*` crosses `/`);
//  - lines keep git's output order, so a match limit keeps the same first lines.
// Anything else (regular expressions, -i, other pathspecs) still runs git grep.
import type { GrepMatch } from './context.js';

/** A fixed-string superset search kept for one analysis. */
export interface Superset {
  readonly patterns: readonly string[];
  readonly matches: readonly GrepMatch[];
}

const isWordChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** Whether `text` holds `pattern` (as a whole word when `word`), by git grep -F [-w] rules. */
export function containsFixed(text: string, pattern: string, word: boolean): boolean {
  if (pattern.length === 0) return !word;
  for (let at = text.indexOf(pattern); at !== -1; at = text.indexOf(pattern, at + 1)) {
    if (!word) return true;
    const before = at === 0 ? false : isWordChar(text.charCodeAt(at - 1));
    const end = at + pattern.length;
    const after = end >= text.length ? false : isWordChar(text.charCodeAt(end));
    if (!before && !after) return true;
  }
  return false;
}

/** The suffixes of pathspecs that are all of the form `*.ext`, or null when any is not. */
export function suffixPathspecs(pathspecs: readonly string[] | undefined): readonly string[] | null {
  if (!pathspecs || pathspecs.length === 0) return [];
  const out: string[] = [];
  for (const p of pathspecs) {
    if (!/^\*\.[A-Za-z0-9_+-]+$/.test(p)) return null;
    out.push(p.slice(1));
  }
  return out;
}

/** Whether every query pattern contains one of the superset's patterns (so its lines include every match). */
export function covers(superset: readonly string[], query: readonly string[]): boolean {
  return query.length > 0 && query.every((q) => superset.some((s) => s.length > 0 && q.includes(s)));
}

/**
 * The answer git grep -F [-w] [-- *.ext…] would give, from a superset's lines,
 * cut at `max` lines; `truncated` when lines were left out.
 */
export function derive(
  superset: Superset,
  patterns: readonly string[],
  word: boolean,
  suffixes: readonly string[],
  max: number,
): { readonly matches: GrepMatch[]; readonly truncated: boolean } {
  const out: GrepMatch[] = [];
  for (const m of superset.matches) {
    if (suffixes.length > 0 && !suffixes.some((s) => m.path.endsWith(s))) continue;
    if (!patterns.some((p) => containsFixed(m.text, p, word))) continue;
    out.push(m);
    if (out.length >= max) return { matches: out, truncated: true };
  }
  return { matches: out, truncated: false };
}
