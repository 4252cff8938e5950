// FocusedTests checks (SPEC §8): the identifier is defined at `location`, the
// runner's project file resolves the target, the argv is canonical, and the
// test has something to do with the subject.
import type { FocusedTests } from '../core/contracts.js';
import type { Subject } from '../core/need.js';
import { isTestPath } from '../core/test-code.js';
import { checkLocation, containsTerm, lastSegment, rangeText, subjectTerms } from './location.js';
import { checkRunnerTarget } from './runner-targets.js';
import { clip, type SnapshotReader } from './snapshot-reader.js';
import { checkArgv } from './test-command.js';
import { escapeRegExp } from '../core/text.js';


/** The construct that defines a test of this runner named `name`. */
function definitionPattern(runner: FocusedTests['runner'], name: string): RegExp | null {
  const n = escapeRegExp(name);
  switch (runner) {
    case 'cargo':
      // `rgtest!(name, |dir, cmd| …)`: a `*test!` macro stamping out a #[test] fn named by its first token.
      return new RegExp(`\\bfn\\s+${n}\\b|\\b\\w*test!\\s*[([{]\\s*${n}\\s*,`);
    case 'pytest':
      return new RegExp(`\\b(?:def|class)\\s+${n}\\b`);
    case 'go':
      return new RegExp(`\\bfunc\\s+${n}\\s*\\(`);
    default:
      return null;
  }
}

function definedName(plan: FocusedTests): string {
  if (plan.runner === 'go') return plan.identifier.split('/')[0]!;
  if (plan.runner === 'cargo' || plan.runner === 'pytest') return lastSegment(plan.identifier.replace(/\[.*\]$/, ''));
  return plan.identifier;
}

export function checkFocusedTests(reader: SnapshotReader, plan: FocusedTests, subject: Pick<Subject, 'kind' | 'name'>): string[] {
  const reasons = checkLocation(reader, plan.location, { subject, primary: false, at: 'location' });
  plan.evidence_paths.forEach((p, i) => {
    const f = reader.file(p);
    if (typeof f === 'string') reasons.push(`evidence_paths[${i}]: ${f}`);
  });
  if (reasons.length > 0) return reasons;

  const file = reader.file(plan.location.path);
  if (typeof file === 'string') return [file];
  const range = rangeText(file, plan.location);
  const name = definedName(plan);
  const pattern = definitionPattern(plan.runner, name);
  const defined = pattern ? pattern.test(range) : range.includes(name);
  if (!defined) reasons.push(`identifier ${clip(plan.identifier, 80)} is not defined at ${plan.location.path}:${plan.location.start_line}-${plan.location.end_line}`);
  reasons.push(...checkArgv(plan));
  reasons.push(...checkRunnerTarget(reader, plan));

  const terms = subjectTerms(subject);
  const related =
    subject.kind === 'file'
      ? plan.evidence_paths.includes(subject.name.replace(/^\.\//, '')) || range.includes(lastSegment(subject.name).replace(/\.[^.]+$/, ''))
      : terms.some((t) => containsTerm(range, t) || plan.identifier.includes(t)) ||
        plan.evidence_paths.some((p) => {
          const f = reader.file(p);
          return typeof f !== 'string' && terms.some((t) => containsTerm(f.text, t));
        });
  const linked = () => (subject.kind === 'cli_option' && passesDeclaredShort(reader, plan, range, terms)) || usesBoundCarrier(reader, plan, range, terms);
  if (!related && !linked())
    reasons.push(`neither the test nor its evidence files mention the subject ${clip(subject.name, 80)}`);
  return reasons;
}

/** Lines around an option's long name within which its short name counts as declared with it. */
const DECLARATION_WINDOW = 8;

/**
 * The test passes a short flag (`"-n"`) that an evidence file declares together
 * with the subject's long name (`short = 'n', long = "max-count"` within a few
 * lines, outside test code): it exercises the option under its other name.
 */
function passesDeclaredShort(reader: SnapshotReader, plan: FocusedTests, range: string, terms: readonly string[]): boolean {
  const shorts = [...range.matchAll(/["'`]-([A-Za-z0-9])["'`]/g)].map((m) => m[1]!);
  if (shorts.length === 0) return false;
  return plan.evidence_paths.some((p) => {
    if (p === plan.location.path) return false;
    const f = reader.file(p);
    if (typeof f === 'string') return false;
    return f.lines.some((line, i) => {
      if (!terms.some((t) => t.startsWith('--') ? line.includes(t) : containsTerm(line, t) && /["'`]/.test(line))) return false;
      const around = f.lines.slice(Math.max(0, i - DECLARATION_WINDOW), i + DECLARATION_WINDOW + 1).join('\n');
      return shorts.some((c) => new RegExp(`["'\`]-?${c}["'\`]`).test(around));
    });
  });
}

/** Lines around a subject term within which a name counts as bound from it (one statement). */
const BINDING_WINDOW = 2;
const IDENTIFIER = /[A-Za-z_$][\w$]{5,}/g;

/**
 * The test sets or reads a name that a non-test evidence file binds from the
 * subject in one statement (`forceNoColor = … os.Getenv("NO_COLOR")`, a flag
 * whose default reads the variable): it exercises the value under that name.
 */
function usesBoundCarrier(reader: SnapshotReader, plan: FocusedTests, range: string, terms: readonly string[]): boolean {
  return plan.evidence_paths.some((p) => {
    if (p === plan.location.path || isTestPath(p)) return false;
    const f = reader.file(p);
    if (typeof f === 'string') return false;
    return f.lines.some((line, i) => {
      if (!terms.some((t) => containsTerm(line, t))) return false;
      const around = f.lines.slice(Math.max(0, i - BINDING_WINDOW), i + BINDING_WINDOW + 1).join('\n');
      const names = new Set([...around.matchAll(IDENTIFIER)].map((m) => m[0]).filter((n) => !terms.includes(n)));
      return [...names].some((n) => containsTerm(range, n) && !COMMON_WORDS.has(n.toLowerCase()));
    });
  });
}

/** Words a statement and a test share without meaning the same value. */
const COMMON_WORDS = new Set(['return', 'string', 'default', 'boolean', 'number', 'options', 'config', 'settings', 'values', 'result', 'context', 'lookup', 'getenv', 'environ', 'process', 'assert', 'expect', 'format', 'printf', 'errorf', 'sprintf']);
