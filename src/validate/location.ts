// Location checks (SPEC §8): a location is evidence only when its path is a
// snapshot file, its range lies inside that file within the line bound, its
// symbol occurs in the range and — for a primary location — the subject
// itself occurs there and it is not test code (unless the subject is a test).
import type { Location } from '../core/contracts.js';
import { EVIDENCE } from '../core/limits.js';
import type { Subject } from '../core/need.js';
import { identifierSpellings } from '../core/semantic.js';
import { isTestPath } from '../core/test-code.js';
import { clip, type SnapshotFile, type SnapshotReader } from './snapshot-reader.js';

const WORD = /^[A-Za-z0-9_]+$/;

/** True when `term` occurs in `text`; identifier-like terms must stand as whole words. */
export function containsTerm(text: string, term: string): boolean {
  if (term.length === 0) return false;
  if (!WORD.test(term)) return text.includes(term);
  let from = 0;
  for (;;) {
    const at = text.indexOf(term, from);
    if (at < 0) return false;
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + term.length] ?? '';
    if (!/[A-Za-z0-9_]/.test(before) && !/[A-Za-z0-9_]/.test(after)) return true;
    from = at + 1;
  }
}

/** The last segment of a qualified name (`a::b`, `a.b`, `a/b`, `a#b`). */
export function lastSegment(name: string): string {
  const parts = name.split(/::|[.#/]/).filter(Boolean);
  return parts[parts.length - 1] ?? name;
}

/** Spellings under which the subject may appear in source text. */
export function subjectTerms(subject: Pick<Subject, 'kind' | 'name'>): string[] {
  const terms = new Set<string>([subject.name]);
  switch (subject.kind) {
    case 'cli_option':
    case 'configuration_key':
      for (const s of identifierSpellings(subject.name)) terms.add(s);
      terms.add(subject.name.replace(/^-+/, ''));
      if (subject.kind === 'configuration_key') terms.add(lastSegment(subject.name));
      break;
    case 'symbol':
    case 'module':
    case 'test':
      terms.add(lastSegment(subject.name));
      break;
    case 'behavior':
      for (const t of behaviorTerms(subject.name)) terms.add(t);
      break;
    default:
      break;
  }
  return [...terms].filter((t) => t.length > 0);
}

const STOPWORDS = new Set(['that', 'this', 'with', 'when', 'then', 'than', 'from', 'into', 'does', 'what', 'which', 'where', 'there', 'their', 'have', 'been', 'will', 'should', 'would', 'could', 'about', 'after', 'before', 'while', 'value', 'flag', 'option']);

/**
 * A behavior is described in prose, which code never spells verbatim; its
 * primary range must instead mention one of the description's content words
 * or an identifier spelling of two adjacent ones ("dry run" → dry_run, dryRun).
 */
function behaviorTerms(name: string): string[] {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const out: string[] = words
    .filter((w) => w.length >= 4 && !STOPWORDS.has(w.toLowerCase()))
    .flatMap((w) => [w, w.toLowerCase(), w[0]!.toUpperCase() + w.slice(1).toLowerCase()]);
  for (let i = 0; i + 1 < words.length; i++) out.push(...identifierSpellings(`${words[i]} ${words[i + 1]}`));
  return out;
}

export function rangeText(file: SnapshotFile, loc: Pick<Location, 'start_line' | 'end_line'>): string {
  return file.lines.slice(loc.start_line - 1, loc.end_line).join('\n');
}

export interface LocationCheck {
  readonly subject: Pick<Subject, 'kind' | 'name'>;
  /** Check the subject occurrence and the test-code rule (primary implementation locations). */
  readonly primary: boolean;
  /** Prefix for reasons, e.g. `locations[0]`. */
  readonly at: string;
}

/** Reasons the location is not evidence; empty when it is valid. */
export function checkLocation(reader: SnapshotReader, loc: Location, check: LocationCheck): string[] {
  const at = check.at;
  const file = reader.file(loc.path);
  if (typeof file === 'string') return [`${at}: ${file}`];
  const reasons: string[] = [];
  const span = loc.end_line - loc.start_line + 1;
  if (loc.end_line < loc.start_line) reasons.push(`${at}: end_line ${loc.end_line} is before start_line ${loc.start_line}`);
  else if (loc.end_line > file.lines.length)
    reasons.push(`${at}: range ${loc.start_line}-${loc.end_line} ends past the end of ${clip(loc.path)} (${file.lines.length} lines)`);
  else if (span > EVIDENCE.maxLocationLines)
    reasons.push(`${at}: range spans ${span} lines, more than ${EVIDENCE.maxLocationLines}`);
  if (reasons.length > 0) return reasons;

  const text = rangeText(file, loc);
  if (loc.symbol !== null) {
    const last = lastSegment(loc.symbol);
    if (!containsTerm(text, last)) reasons.push(`${at}: symbol ${clip(loc.symbol)} does not occur in ${loc.path}:${loc.start_line}-${loc.end_line}`);
    else {
      const qualifiers = loc.symbol.split(/::|[.#/]/).filter(Boolean).slice(0, -1);
      const absent = qualifiers.find((q) => !containsTerm(file.text, q));
      if (absent) reasons.push(`${at}: qualifier ${clip(absent)} of symbol ${clip(loc.symbol)} does not occur in ${loc.path}`);
    }
  }
  if (check.primary) {
    if (check.subject.kind === 'file') {
      if (loc.path !== check.subject.name.replace(/^\.\//, ''))
        reasons.push(`${at}: a file subject's primary location must be the file ${clip(check.subject.name)} itself`);
    } else if (!subjectTerms(check.subject).some((t) => containsTerm(text, t))) {
      reasons.push(`${at}: subject ${clip(check.subject.name)} does not occur in ${loc.path}:${loc.start_line}-${loc.end_line}`);
    }
    if (check.subject.kind !== 'test' && isTestPath(loc.path))
      reasons.push(`${at}: primary location ${clip(loc.path)} is test code but the subject is not a test`);
  }
  return reasons;
}
