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
// An extended regular expression is answered the same way when its caller
// names literals one of which every match contains (an option's spelling
// inside a quoted-flag pattern): the superset holds every line that can match,
// and the expression, read as git reads it under LC_ALL=C, is run on those
// lines. Anything else (other expressions, -i, other pathspecs) still runs git grep.
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

/** Whether `path` is within `*.ext` pathspecs given by their suffixes (none: every path). */
export function inPathspecs(path: string, suffixes: readonly string[]): boolean {
  return suffixes.length === 0 || suffixes.some((s) => path.endsWith(s));
}

/** Whether every query pattern contains one of the superset's patterns (so its lines include every match). */
export function covers(superset: readonly string[], query: readonly string[]): boolean {
  return query.length > 0 && query.every((q) => superset.some((s) => s.length > 0 && q.includes(s)));
}

/** POSIX bracket classes as git reads them under LC_ALL=C (ASCII only). */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  space: ' \\t\\n\\v\\f\\r',
  blank: ' \\t',
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
};

/**
 * A POSIX extended regular expression as git grep -E reads it, as a JS
 * RegExp matching the same lines; null when it uses something this does not
 * translate (a backslash before a letter or digit, an unknown class), so
 * that the caller runs git instead of guessing.
 */
export function ereToRegExp(pattern: string): RegExp | null {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return null;
      out += `\\${next}`;
      i += 2;
    } else if (c === '[') {
      // A bracket expression: `]` first is literal, a backslash is literal, `[:name:]` is a class.
      let j = i + 1;
      let body = '';
      if (pattern[j] === '^') {
        body += '^';
        j++;
      }
      if (pattern[j] === ']') {
        body += '\\]';
        j++;
      }
      for (;;) {
        const d = pattern[j];
        if (d === undefined) return null;
        if (d === ']') break;
        if (d === '[' && pattern[j + 1] === ':') {
          const end = pattern.indexOf(':]', j + 2);
          const cls = end === -1 ? undefined : POSIX_CLASSES[pattern.slice(j + 2, end)];
          if (cls === undefined) return null;
          body += cls;
          j = end + 2;
        } else {
          body += d === '\\' || d === '[' ? `\\${d}` : d;
          j++;
        }
      }
      out += `[${body}]`;
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  try {
    return new RegExp(out);
  } catch {
    return null;
  }
}

/** A line filter for one search: fixed strings (git grep -F [-w]) or translated expressions. */
export type LineTest = (text: string) => boolean;

export function fixedTest(patterns: readonly string[], word: boolean): LineTest {
  return (text) => patterns.some((p) => containsFixed(text, p, word));
}

/** The expressions' line test, or null when one of them cannot be translated. */
export function regexTest(patterns: readonly string[]): LineTest | null {
  const res: RegExp[] = [];
  for (const p of patterns) {
    const re = ereToRegExp(p);
    if (!re) return null;
    res.push(re);
  }
  return (text) => res.some((re) => re.test(text));
}

/**
 * The answer git grep [-F|-E] [-w] [-- *.ext…] would give, from a superset's
 * lines, cut at `max` lines; `truncated` when lines were left out.
 */
export function derive(
  superset: Superset,
  matches: LineTest,
  suffixes: readonly string[],
  max: number,
): { readonly matches: GrepMatch[]; readonly truncated: boolean } {
  const out: GrepMatch[] = [];
  for (const m of superset.matches) {
    if (!inPathspecs(m.path, suffixes)) continue;
    if (!matches(m.text)) continue;
    out.push(m);
    if (out.length >= max) return { matches: out, truncated: true };
  }
  return { matches: out, truncated: false };
}
