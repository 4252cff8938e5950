// The behaviour site (SPEC §16a "Primary location = behaviour site"): for an
// option or a configuration key, the primary location is the code that does
// what the subject promises — the branch its value decides, the call it
// configures — and the declaration, the wiring and the carrier fields are
// supporting. The declaration is found by locate; the rest comes from the
// runtime-flow trace over the same analysis, so one rule serves every language.
import type { FlowRole, ImplementationLocation, Location, RuntimeFlow } from '../core/contracts.js';
import { EVIDENCE } from '../core/limits.js';
import type { AnalysisContext } from './context.js';
import { mentions, mentionsInCode, pathTier, spellsAny } from './candidates.js';
import { mentionSpellings } from './names.js';

/** A function this short is cited whole when it is where the value is used. */
const SMALL_FUNCTION_LINES = 80;

/** Roles in the order a reader wants supporting evidence after the declaration and the wiring. */
const SUPPORTING_ORDER: readonly FlowRole[] = ['precedence', 'transformation', 'carrier', 'consumer', 'producer'];
/** A step this close below an already cited one extends that citation instead of taking a slot. */
const MERGE_GAP_LINES = 3;
const MERGED_MAX_LINES = 24;

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

const rangeOf = (ctx: AnalysisContext, l: Location): string => (ctx.read(l.path) ?? '').split('\n').slice(l.start_line - 1, l.end_line).join('\n');

/**
 * A one-word name (`raw`, `depth`) is also every namesake local; only a read
 * through the parsed options (`args.raw`) is surely the option's value.
 */
function connectedTo(ctx: AnalysisContext, subjectName: string, flow: RuntimeFlow): (l: Location) => Connection {
  const bare = subjectName.replace(/^-+/, '');
  if (!/^[a-z][a-z0-9]*$/.test(bare)) return () => 'read';
  const member = new RegExp(`\\.${bare}(?![\\w$])`);
  // So is a parameter of that name the flow passed the value into (`exec(opts.bail)` … `function exec(bail)`).
  const receiving = new Set(
    flow.steps
      .filter((s) => s.role === 'carrier' && s.description.startsWith(`parameter \`${bare}\` `))
      .map((s) => enclosingDefinition(ctx, s.location.path, s.location.start_line))
      .filter((fn): fn is Location => fn !== null)
      .map((fn) => `${fn.path}:${fn.start_line}`),
  );
  const inReceiver = (l: Location): boolean => {
    const fn = receiving.size > 0 ? enclosingDefinition(ctx, l.path, l.start_line) : null;
    return fn !== null && receiving.has(`${fn.path}:${fn.start_line}`);
  };
  return (l) => (member.test(rangeOf(ctx, l)) ? 'read' : inReceiver(l) ? 'parameter' : 'none');
}

/** How surely a location holds the option's value: read through the parsed options, received as a parameter the flow passed it into, or not shown. */
type Connection = 'read' | 'parameter' | 'none';

const overlaps = (a: Location, b: Location): boolean => a.path === b.path && a.start_line <= b.end_line && b.start_line <= a.end_line;

/** Consumers a validator accepts as primary (they spell the subject), best first. */
function behaviourCandidates(ctx: AnalysisContext, subjectName: string, declaration: Location, flow: RuntimeFlow): Location[] {
  const spellings = mentionSpellings(subjectName);
  const connected = connectedTo(ctx, subjectName, flow);
  const consumers = flow.steps
    .filter((s) => s.role === 'consumer')
    .map((s) => s.location)
    .filter((l) => l.end_line - l.start_line < EVIDENCE.maxLocationLines && mentions(ctx, l.path, l.start_line, l.end_line, spellings) && connected(l) !== 'none');
  // A consumer of a local the value was renamed into (`delete = not keep` … `if delete:`) is cited from the
  // renaming statement on, when both lie in one function and the range stays within the bound: it then spells the subject.
  const viaLocal = flow.steps
    .filter((s) => s.role === 'consumer' && !mentions(ctx, s.location.path, s.location.start_line, s.location.end_line, spellings))
    .flatMap((s) => {
      const fn = enclosingDefinition(ctx, s.location.path, s.location.start_line);
      const origin = flow.steps
        .filter((o) => o.location.path === s.location.path && o.location.start_line < s.location.start_line && fn && o.location.start_line >= fn.start_line)
        .filter((o) => mentions(ctx, o.location.path, o.location.start_line, o.location.end_line, spellings))
        .sort((a, b) => b.location.start_line - a.location.start_line)[0];
      if (!origin || s.location.end_line - origin.location.start_line >= EVIDENCE.maxLocationLines) return [];
      return [{ ...s.location, symbol: null, start_line: origin.location.start_line }];
    });
  const rank = (l: Location): number[] => [
    pathTier(l.path),
    // `if version is not None:  # Match the usages of required-version` spells the subject in a remark only.
    mentionsInCode(ctx, l.path, l.start_line, l.end_line, spellings) ? 0 : 1,
    // A read through the parsed options is surer than a parameter of the option's name.
    connected(l) === 'parameter' ? 1 : 0,
    // The parser's own file mostly validates and copies; the behaviour lives where the value is used.
    l.path === declaration.path ? 1 : 0,
  ];
  // `const passes = cfg.multipass ? 10 : 1` … `for (… < passes …)`: the decision and the block it sizes are one site.
  const widened = consumers.map((c) => viaLocal.find((v) => v.path === c.path && v.start_line === c.start_line && v.end_line > c.end_line) ?? c);
  return [...widened, ...viaLocal.filter((v) => !widened.includes(v))]
    .map((l, i) => ({ l, r: [...rank(l), i] }))
    .sort((a, b) => {
      for (let k = 0; k < a.r.length; k++) if (a.r[k] !== b.r[k]) return a.r[k]! - b.r[k]!;
      return 0;
    })
    .map((x) => x.l);
}

/** The smallest function or method around `line` of `path`. */
export function enclosingDefinition(ctx: AnalysisContext, path: string, line: number): Location | null {
  const facts = ctx.facts(path);
  if (!facts) return null;
  const fn = facts.definitions
    .filter((d) => (d.kind === 'function' || d.kind === 'method') && !d.inTest && d.startLine <= line && line <= d.endLine)
    .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
  return fn ? { role: 'primary', path, symbol: fn.name, start_line: fn.startLine, end_line: fn.endLine } : null;
}

/** The enclosing function when it is small enough to cite whole. */
function enclosingFunction(ctx: AnalysisContext, path: string, line: number): Location | null {
  const fn = enclosingDefinition(ctx, path, line);
  return fn && fn.end_line - fn.start_line + 1 <= SMALL_FUNCTION_LINES ? fn : null;
}

/** Consumers that act on the value (not only reject it), wherever they are and however they name it, best first. */
function actingConsumers(ctx: AnalysisContext, declaration: Location, flow: RuntimeFlow): Location[] {
  return flow.steps
    .filter((s) => s.role === 'consumer' && !onlyRejects(ctx, s.location))
    .map((s, i) => ({ l: s.location, r: [pathTier(s.location.path), s.location.path === declaration.path ? 1 : 0, i] }))
    .sort((a, b) => a.r[0]! - b.r[0]! || a.r[1]! - b.r[1]! || a.r[2]! - b.r[2]!)
    .map((x) => x.l);
}

/** `options.git.requireUpstream = false` in a mode's presets: every line of `l` that spells the subject assigns it, none reads it. */
function onlyWrites(ctx: AnalysisContext, l: Location, spellings: readonly string[]): boolean {
  const spelled = (text: string) => spellsAny(text, spellings);
  const lines = rangeOf(ctx, l).split('\n').filter(spelled);
  return lines.length > 0 && lines.every((line) => {
    const eq = /(?<![=!<>])=(?![=>])/.exec(line);
    return eq !== null && spelled(line.slice(0, eq.index)) && !spelled(line.slice(eq.index + 1));
  });
}

/**
 * Where the value is used most outside the file that declares it: the small
 * function holding the most flow steps (the value's work happens there even
 * when no branch tests it, e.g. a size computed from it).
 */
function busiestFunction(ctx: AnalysisContext, subjectName: string, declaration: Location, flow: RuntimeFlow): Location | null {
  const spellings = mentionSpellings(subjectName);
  const connected = connectedTo(ctx, subjectName, flow);
  const counts = new Map<string, { fn: Location; n: number }>();
  for (const s of flow.steps) {
    if (s.location.path === declaration.path || s.role === 'producer' || pathTier(s.location.path) > 0) continue;
    const fn = enclosingFunction(ctx, s.location.path, s.location.start_line);
    if (!fn || !mentions(ctx, fn.path, fn.start_line, fn.end_line, spellings) || connected(fn) === 'none' || onlyWrites(ctx, fn, spellings)) continue;
    const key = `${fn.path}:${fn.start_line}`;
    const entry = counts.get(key) ?? { fn, n: 0 };
    entry.n++;
    counts.set(key, entry);
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.fn ?? null;
}

/** Branching statements counted to tell a function that chooses between sources. */
const BRANCHING = /^\s*(if|elif|else if|} else if|match|switch|case|except|catch|try)\b/;

/** The small function enclosing the declaration when it branches between several sources, as a supporting location. */
function choosingFunction(ctx: AnalysisContext, declaration: Location): Location | null {
  const fn = enclosingDefinition(ctx, declaration.path, declaration.start_line);
  if (!fn || fn.end_line - fn.start_line + 1 > SMALL_FUNCTION_LINES) return null;
  const branches = rangeOf(ctx, fn).split('\n').filter((line) => BRANCHING.test(line)).length;
  return branches >= 2 ? { ...fn, role: 'supporting' } : null;
}

/**
 * Supporting locations after the primary: the declaration, then the calls that
 * hand the value to the behaviour's function, then flow steps by role. Steps
 * that spell neither the subject nor a name the value was followed into are
 * noise from a namesake; nearby steps in one file share one citation.
 */
function supportingFor(
  ctx: AnalysisContext,
  subjectName: string,
  primary: Location,
  declaration: Location,
  flow: RuntimeFlow,
  carriers: readonly string[],
): Location[] {
  const chosen: Location[] = [primary];
  const names = [...mentionSpellings(subjectName), ...carriers];
  const relevant = (l: Location): boolean => mentions(ctx, l.path, l.start_line, l.end_line, names);
  const add = (l: Location): void => {
    if (chosen.some((c) => overlaps(c, l))) return;
    const gap = (c: Location): number => (l.start_line > c.end_line ? l.start_line - c.end_line : c.start_line - l.end_line);
    const near = chosen.findIndex((c, i) => i > 0 && c.path === l.path && gap(c) <= MERGE_GAP_LINES && Math.max(c.end_line, l.end_line) - Math.min(c.start_line, l.start_line) < MERGED_MAX_LINES);
    if (near > 0) {
      const c = chosen[near]!;
      chosen[near] = { ...c, symbol: null, start_line: Math.min(c.start_line, l.start_line), end_line: Math.max(c.end_line, l.end_line) };
      return;
    }
    if (chosen.length < EVIDENCE.maxLocations) chosen.push({ ...l, role: 'supporting' });
  };
  // A small function that reads the value and chooses between its sources is cited whole
  // (the branches around an environment read are its precedence).
  const chooser = choosingFunction(ctx, declaration);
  if (chooser && !chosen.some((c) => c.path === chooser.path && c.start_line === chooser.start_line && c.end_line === chooser.end_line)) chosen.push(chooser);
  if (declaration !== primary) add(declaration);
  const fn = enclosingDefinition(ctx, primary.path, primary.start_line)?.symbol ?? null;
  const callsBehaviour = fn && fn.length >= 4 ? new RegExp(`(^|[^\\w$])${fn.replace(/\$/g, '\\$')}\\s*\\(`) : null;
  const steps = flow.steps.filter((s) => relevant(s.location));
  if (callsBehaviour) for (const s of steps) if (s.location.path !== primary.path && callsBehaviour.test(rangeOf(ctx, s.location))) add(s.location);
  for (const role of SUPPORTING_ORDER) for (const s of steps) if (s.role === role) add(s.location);
  return chosen;
}

export interface BehaviourAnswer {
  readonly payload: ImplementationLocation;
  /** The behaviour site, when one was found apart from the declaration. */
  readonly site: BehaviourSite | null;
  /**
   * Where a test should exercise the value: the behaviour site, or the acting
   * consumer the flow reached under another name (which cannot be the primary
   * location, since it does not spell the subject).
   */
  readonly exercised: BehaviourSite | null;
}

export interface BehaviourSite {
  readonly location: Location;
  /** The site only rejects bad values (a validation), so a test expecting an error exercises it. */
  readonly rejects: boolean;
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
  carriers: readonly string[] = [],
): BehaviourAnswer {
  const declaration = located.locations.find((l) => l.role === 'primary');
  if (!declaration || !flow) return { payload: located, site: null, exercised: null };
  const candidates = behaviourCandidates(ctx, subjectName, declaration, flow);
  const acting = candidates.find((l) => !onlyRejects(ctx, l));
  const site = acting ?? busiestFunction(ctx, subjectName, declaration, flow) ?? candidates[0];
  const primary: Location = site ? { ...site, role: 'primary' } : declaration;
  const chosen = supportingFor(ctx, subjectName, primary, declaration, flow, carriers);
  for (const l of located.locations) if (chosen.length < EVIDENCE.maxLocations && !chosen.some((c) => overlaps(c, l))) chosen.push({ ...l, role: 'supporting' });
  const found = site ? { location: primary, rejects: onlyRejects(ctx, primary) } : null;
  const renamed = actingConsumers(ctx, declaration, flow)[0];
  // A key's declaration is usually where it is read (`get_environment_value("APP_PYTHON")` in `get_default_python`):
  // without a behaviour site, calling that function is what exercises it — before any consumer of a name it was copied into.
  const read = !subjectName.startsWith('-') && enclosingFunction(ctx, declaration.path, declaration.start_line) ? declaration : null;
  const exercised = found ?? (read ? { location: read, rejects: false } : renamed ? { location: renamed, rejects: false } : null);
  return { payload: { locations: chosen, gaps: located.gaps }, site: found, exercised };
}
