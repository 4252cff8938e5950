// RuntimeFlow checks (SPEC §8). Every step must be a valid location; the flow
// is contract_complete only when it has all five roles in a valid order, the
// subject's carrier is present and the worker recorded no gaps.
import { FLOW_ROLES, type RuntimeFlow } from '../core/contracts.js';
import type { Subject } from '../core/need.js';
import { identifierSpellings } from '../core/semantic.js';
import { isTestPath } from '../core/test-code.js';
import { checkLocation, containsTerm, rangeText, subjectTerms } from './location.js';
import type { SnapshotReader } from './snapshot-reader.js';

export interface FlowVerdict {
  readonly reasons: string[];
  /** Why the flow is not contract_complete (empty when it is). */
  readonly incomplete: string[];
}

/**
 * Flow order: it starts where the value is produced and ends where it changes
 * behaviour, and the value is carried somewhere before it is first consumed.
 * Real flows interleave roles, so no stricter total order is imposed.
 */
function orderProblems(flow: RuntimeFlow): string[] {
  const roles = flow.steps.map((s) => s.role);
  const out: string[] = [];
  if (roles[0] !== 'producer') out.push(`the first step is a ${roles[0]}, not a producer`);
  if (roles[roles.length - 1] !== 'consumer') out.push(`the last step is a ${roles[roles.length - 1]}, not a consumer`);
  const firstCarrier = roles.indexOf('carrier');
  const firstConsumer = roles.indexOf('consumer');
  if (firstCarrier >= 0 && firstConsumer >= 0 && firstConsumer < firstCarrier) out.push('a consumer comes before any carrier');
  return out;
}

/**
 * Spellings a carrier step may show. A negated option `--no-x` usually lands
 * in a field named `x` (commander, cac, clap's `overrides_with`), so its
 * carrier may show either form; the primary location still has to show the
 * option itself.
 */
function carrierTerms(subject: Pick<Subject, 'kind' | 'name'>): string[] {
  const terms = subjectTerms(subject);
  const negated = subject.kind === 'cli_option' ? /^--no-(.+)$/.exec(subject.name) : null;
  return negated ? [...terms, ...identifierSpellings(negated[1]!)] : terms;
}

export function checkFlow(reader: SnapshotReader, flow: RuntimeFlow, subject: Pick<Subject, 'kind' | 'name'>): FlowVerdict {
  const reasons: string[] = [];
  flow.steps.forEach((step, i) => {
    const at = `steps[${i}].location`;
    reasons.push(...checkLocation(reader, step.location, { subject, primary: false, at }));
    if (subject.kind !== 'test' && isTestPath(step.location.path))
      reasons.push(`${at}: step ${i + 1} is in test code, which is not runtime flow`);
  });
  if (reasons.length > 0) return { reasons, incomplete: [] };

  const incomplete: string[] = [];
  const missingRoles = FLOW_ROLES.filter((r) => !flow.steps.some((s) => s.role === r));
  if (missingRoles.length > 0) incomplete.push(`missing roles: ${missingRoles.join(', ')}`);
  incomplete.push(...orderProblems(flow));
  const terms = carrierTerms(subject);
  const carrierShown = flow.steps.some((s) => {
    if (s.role !== 'carrier') return false;
    const file = reader.file(s.location.path);
    return typeof file !== 'string' && terms.some((t) => containsTerm(rangeText(file, s.location), t));
  });
  if (!carrierShown && !carrierBoundFromSubject(reader, flow, terms)) incomplete.push(`no carrier step shows the subject ${subject.name}`);
  if (flow.gaps.length > 0) incomplete.push(`the worker recorded ${flow.gaps.length} gap(s)`);
  return { reasons, incomplete };
}

/** Lines around a subject term within which a name counts as bound from it (one statement). */
const BINDING_WINDOW = 2;
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
/** Words of the languages themselves, which bind nothing. */
const KEYWORDS = new Set(['var', 'let', 'const', 'mut', 'pub', 'self', 'this', 'def', 'func', 'fn', 'if', 'else', 'return', 'true', 'false', 'nil', 'None', 'null', 'bool', 'string', 'int', 'str', 'os', 'env', 'err', 'ok']);
/** Renamings followed from the subject's own statement through transformation steps. */
const TRANSITIVE_ROUNDS = 2;
const COPYING_ROLES: ReadonlySet<string> = new Set(['transformation', 'precedence']);

/**
 * A carrier that does not spell the subject still carries it when another step
 * binds that very name from the subject in one statement
 * (`forceNoColor = … os.Getenv("NO_COLOR")`, `BoolVar(&opts.quiet, …, lookEnv("APP_QUIET"))`).
 */
function carrierBoundFromSubject(reader: SnapshotReader, flow: RuntimeFlow, terms: readonly string[]): boolean {
  const bound = new Set<string>();
  const bind = (from: readonly string[], roles: ReadonlySet<string> | null): void => {
    for (const s of flow.steps) {
      if (roles && !roles.has(s.role)) continue;
      const file = reader.file(s.location.path);
      if (typeof file === 'string') continue;
      file.lines.slice(s.location.start_line - 1, s.location.end_line).forEach((line, k) => {
        if (!from.some((t) => containsTerm(line, t))) return;
        const i = s.location.start_line - 1 + k;
        const around = file.lines.slice(Math.max(s.location.start_line - 1, i - BINDING_WINDOW), Math.min(s.location.end_line, i + BINDING_WINDOW + 1)).join('\n');
        for (const m of around.matchAll(IDENTIFIER)) if (!terms.includes(m[0])) bound.add(m[0]);
      });
    }
  };
  bind(terms, null);
  // A name copied on in a transformation step (`o.configFile = envVar`) is bound from the subject too.
  for (let round = 0; round < TRANSITIVE_ROUNDS; round++) bind([...bound], COPYING_ROLES);
  return flow.steps.some((s) => {
    if (s.role !== 'carrier') return false;
    const file = reader.file(s.location.path);
    if (typeof file === 'string') return false;
    // A carrier named by its symbol, or (a package variable's declaration has none) by the names in its range.
    const range = rangeText(file, s.location);
    const names = s.location.symbol !== null ? [s.location.symbol] : [...range.matchAll(IDENTIFIER)].map((m) => m[0]);
    return names.some((n) => bound.has(n) && !KEYWORDS.has(n) && containsTerm(range, n));
  });
}
