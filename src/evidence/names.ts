// How subject names are read: option names with or without dashes, qualified
// symbol names (`a::b`, `a.b`, `Type.method`), and the normalized form under
// which dry-run, dry_run, dryRun and DRY_RUN are one name.
import { identifierSpellings } from '../core/semantic.js';

/** dry-run, dry_run, dryRun, DRY_RUN, --dry-run → dryrun */
export const normalized = (name: string): string => name.replace(/^-+/, '').replace(/[-_.\s]/g, '').toLowerCase();

export interface OptionName {
  readonly long: string | null;
  readonly short: string | null;
}

/** `--dry-run` / `dry-run` / `dry_run` → long; `-n` → short. */
export function optionName(name: string): OptionName {
  const trimmed = name.trim().replace(/[=\s<[].*$/, '');
  if (/^-[A-Za-z0-9?]$/.test(trimmed)) return { long: null, short: trimmed.slice(1) };
  const long = trimmed.replace(/^-+/, '');
  return { long: long || null, short: null };
}

const IGNORED_QUALIFIERS = new Set(['crate', 'self', 'super', 'Self', 'this']);

/** `a::b::c`, `a.b.c`, `a/b#c` → qualifiers [a, b] and the name c. */
export function qualifiedName(name: string): { qualifiers: string[]; name: string } {
  const parts = name
    .trim()
    .replace(/\(\)$/, '')
    .split(/::|[.#/\\]/)
    .filter(Boolean);
  const last = parts.pop() ?? name;
  return { qualifiers: parts.filter((q) => !IGNORED_QUALIFIERS.has(q)), name: last };
}

/** Spellings a validator accepts as mentions of the subject inside a range. */
export function mentionSpellings(name: string): string[] {
  const { name: last } = qualifiedName(name);
  const bare = name.replace(/^-+/, '');
  return [...new Set([name, bare, last, ...identifierSpellings(name), ...identifierSpellings(last)].filter((s) => s.length > 0))];
}

/** An extended regex that matches any of `words` exactly. */
