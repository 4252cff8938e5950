// The behaviour site (SPEC §16a "Primary location = behaviour site"): for an
// option or a configuration key, the primary location is the code that does
// what the subject promises — the branch its value decides, the call it
// configures — and the declaration, the wiring and the carrier fields are
// supporting. The declaration is found by locate; the rest comes from the
// runtime-flow trace over the same analysis, so one rule serves every language.
import type { FlowRole, ImplementationLocation, Location, RuntimeFlow } from '../core/contracts.js';
import { EVIDENCE } from '../core/limits.js';
import type { AnalysisContext } from './context.js';
import { mentions, pathTier } from './candidates.js';
import { mentionSpellings } from './names.js';

/** Roles in the order a reader wants supporting evidence after the declaration. */
const SUPPORTING_ORDER: readonly FlowRole[] = ['transformation', 'carrier', 'precedence', 'consumer', 'producer'];

/**
 * A branch whose controlled block only rejects the value (`raise`, `throw`, an
 * error return, an exit) validates the input; the behaviour is elsewhere.
 */
const REJECTS = /^(raise\b|throw\b|panic!|bail!|return\s+(Err\b|fmt\.Errorf|errors\.New|nil,\s*(fmt\.Errorf|errors\.))|(sys|process|os)\.(exit|Exit)\b|log\.Fatal)/;

function onlyRejects(ctx: AnalysisContext, l: Location): boolean {
  const lines = (ctx.read(l.path) ?? '').split('\n').slice(l.start_line, l.end_line);
  const body = lines.map((s) => s.trim()).filter((s) => s && s !== '{' && s !== '}' && !s.startsWith('}') && !/^(\/\/|#)/.test(s));
  return body.length > 0 && body.length <= 3 && REJECTS.test(body[0]!);
}

const overlaps = (a: Location, b: Location): boolean => a.path === b.path && a.start_line <= b.end_line && b.start_line <= a.end_line;

/** Consumers a validator accepts as primary (they spell the subject), best first. */
function behaviourCandidates(ctx: AnalysisContext, subjectName: string, declaration: Location, flow: RuntimeFlow): Location[] {
  const spellings = mentionSpellings(subjectName);
  const consumers = flow.steps
    .filter((s) => s.role === 'consumer')
    .map((s) => s.location)
    .filter((l) => l.end_line - l.start_line < EVIDENCE.maxLocationLines && mentions(ctx, l.path, l.start_line, l.end_line, spellings));
  const rank = (l: Location): number[] => [
    onlyRejects(ctx, l) ? 1 : 0,
    pathTier(l.path),
    // The parser's own file mostly validates and copies; the behaviour lives where the value is used.
    l.path === declaration.path ? 1 : 0,
  ];
  return consumers
    .map((l, i) => ({ l, r: [...rank(l), i] }))
    .sort((a, b) => {
      for (let k = 0; k < a.r.length; k++) if (a.r[k] !== b.r[k]) return a.r[k]! - b.r[k]!;
      return 0;
    })
    .map((x) => x.l);
}

/**
 * The implementation location with the behaviour site as primary when the flow
 * has one the validators can check, the declaration and the flow's other steps
 * as supporting; otherwise the declaration-based answer unchanged.
 */
export function withBehaviourSite(
  ctx: AnalysisContext,
  subjectName: string,
  located: ImplementationLocation,
  flow: RuntimeFlow | null,
): ImplementationLocation {
  const declaration = located.locations.find((l) => l.role === 'primary');
  if (!declaration || !flow) return located;
  const [site] = behaviourCandidates(ctx, subjectName, declaration, flow);
  const primary: Location = site ? { ...site, role: 'primary' } : declaration;
  const chosen: Location[] = [primary];
  const add = (l: Location): void => {
    if (chosen.length >= EVIDENCE.maxLocations || chosen.some((c) => overlaps(c, l))) return;
    chosen.push({ ...l, role: 'supporting' });
  };
  add(declaration);
  for (const role of SUPPORTING_ORDER) for (const s of flow.steps) if (s.role === role) add(s.location);
  for (const l of located.locations) add(l);
  return { locations: chosen, gaps: located.gaps };
}
