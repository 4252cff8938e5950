// runtime_flow (SPEC §7): every occurrence of the carrier in non-test source is
// classified into a flow step, or reported as a gap. The flow is only offered
// as complete when nothing is left over and every role is present; a missing
// role is reported, never invented.
import { FLOW_ROLES, runtimeFlowSchema, type FlowRole, type FlowStep, type Location, type RuntimeFlow } from '../../core/contracts.js';
import { EVIDENCE, FLOW_TRACE } from '../../core/limits.js';
import type { AnalysisContext, ParsedFile } from '../context.js';
import { factsOf } from '../languages/index.js';
import { branchEnd } from '../languages/syntax.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { callerResults, parameterFor } from './calls.js';
import { single } from './go.js';
import { hopTo } from './hops.js';
import { Classifier, type Hop, type Verdict } from './classify.js';
import { DESTRUCTURED_NAMES } from './value-syntax.js';
import { findSites, isNonTestSource, sitesInNode, sitesOnLines, type Site } from './sites.js';
import { containerNotes } from './containers.js';
import { helperNotes } from './helpers.js';
import { customActionClass, namespaceSplats } from './python-args.js';
import { isPascal, Spellings, subjectSpellings, type Subject } from './spellings.js';
import { enclosingRecordName, familyOf, isContainer, shapes, snippet } from './syntax.js';
import { escapeRegExp } from '../../core/text.js';
import { isPeripheralPath } from '../peripheral.js';
import { optionDeclaredAt } from '../option-at.js';
import { fieldOfTag } from './filled-declarations.js';

export type FlowResult =
  /** `carriers`: the names the value itself was followed into (renamed locals, fields, package variables), not names of what it decided. */
  | { kind: 'found'; payload: RuntimeFlow; carriers: readonly string[] }
  | { kind: 'unresolved'; reason: string };

type StepVerdict = Verdict & { kind: 'step' };

interface Draft {
  readonly role: FlowRole;
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly symbol: string | null;
  readonly description: string;
}

// A destructured name (`const { dryRun } = cfg`) reads the field `dryRun` too.
const MEMBER_NAME_TYPES = new Set(['field_identifier', 'property_identifier', 'shorthand_property_identifier', ...DESTRUCTURED_NAMES]);

export function traceFlow(ctx: AnalysisContext, subject: Subject, primary: Location | null): FlowResult {
  if (subject.kind === 'file' || subject.kind === 'behavior' || subject.kind === 'test') {
    return { kind: 'unresolved', reason: `runtime_flow follows a value; a ${subject.kind} subject has none to follow` };
  }
  const own = subjectSpellings(subject, primary?.symbol ?? null);
  if (!own) return { kind: 'unresolved', reason: `\`${subject.name}\` has no identifier spelling to follow` };
  const traced = traceSpelled(ctx, subject, own, primary);
  if (traced.kind === 'found' && traced.payload.steps.some((s) => s.role === 'consumer')) return traced;
  // A key declared as an option's environment fallback enters as that option's value: when the key's own
  // occurrences reach no consumer, the option's occurrences are the key's too.
  const fallbackOf = subject.kind === 'configuration_key' ? optionDeclaredAt(ctx, primary) : null;
  const option = fallbackOf ? { kind: 'cli_option' as const, name: `--${fallbackOf.longs[0]!}` } : null;
  const asOption = option ? subjectSpellings(option, fallbackOf!.carrier) : null;
  if (!fallbackOf || !option || !asOption) return traced;
  // Its declared carrier names it in code (else its spellings, but for the PascalCase one, which names types).
  const carrier = fallbackOf.carrier && /^[A-Za-z_$][\w$]*$/.test(fallbackOf.carrier) ? [fallbackOf.carrier] : asOption.identifiers.filter((i) => !isPascal(i));
  // Occurrences are weighed as the option's: a one-word option's namesakes in unrelated functions stay out.
  const widened = traceSpelled(ctx, option, new Spellings([...new Set([...own.identifiers, ...carrier])], asOption.dashed ?? own.dashed), primary);
  return widened.kind === 'found' && widened.payload.steps.some((s) => s.role === 'consumer') ? widened : traced;
}

/** The flow of the value the spellings name, from `primary` (the declaration) when there is one. */
function traceSpelled(ctx: AnalysisContext, subject: Subject, spellings: Spellings, primary: Location | null): FlowResult {
  const { sites, truncated } = findSites(ctx, spellings, FLOW_TRACE.maxOccurrences);
  if (sites.length === 0) {
    return { kind: 'unresolved', reason: `no occurrence of ${spellings.grepPatterns.map((s) => `\`${s}\``).join(', ')} in non-test source` };
  }
  const flow = new FlowBuilder(spellings.identifiers[0]!);
  if (truncated) flow.gap(`more than ${FLOW_TRACE.maxOccurrences} occurrences of the carrier; later ones were not examined`);
  const hops = new Map<string, { hop: Hop; file: ParsedFile }>();
  const foreign = outsideGoPackage(ctx, primary);
  const namesake = namesakeOf(ctx, subject, spellings, primary);
  for (const site of sites) {
    if (foreign(site) || namesake(site)) continue;
    const verdict = classifierFor(site.file, spellings).classify(site.leaf);
    flow.add(site, verdict);
    if (verdict.kind === 'step') for (const c of containerNotes(ctx, site.file, site.leaf, spellings)) flow.note(c.path, c.node, c.role, c.description, c.until);
    if (verdict.kind === 'step' && verdict.role === 'producer') for (const h of helperNotes(ctx, site.file, site.leaf, subject.name)) flow.note(h.path, h.node, h.role, h.description, h.until);
    for (const next of verdict.kind === 'step' ? nextHops(ctx, flow, site, verdict, spellings) : []) {
      // A field spelled like the subject (`Self { dry_run }`) is already among the direct occurrences.
      if (!next.hop.scope && !next.hop.global && spellings.mentions(next.hop.name)) continue;
      if (!hops.has(hopKey(next.hop, next.file)) && hops.size < FLOW_TRACE.maxHops) hops.set(hopKey(next.hop, next.file), next);
    }
  }
  // The declaration's own carrier (`#[arg(long = "max-count")] limit`, `dest="limit"`) is where the parsed value lands.
  const declared = declaredCarrier(ctx, primary, spellings);
  if (declared && !hops.has(hopKey(declared.hop, declared.file))) hops.set(hopKey(declared.hop, declared.file), declared);
  const primaryFile = primary ? ctx.parsed(primary.path) : null;
  const action = primary && primaryFile ? customActionClass(ctx, primaryFile, primary.start_line, primary.end_line) : null;
  if (action) flow.note(action.file.path, action.node, 'precedence', `custom argparse action \`${action.name}\` sets the default and what is stored in the namespace`);
  // Breadth first, to a bounded depth: a value copied into a field, then into another struct's field, …
  const queue = [...hops.values()].map((h) => ({ ...h, depth: 1 }));
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const further of followHop(ctx, flow, next.hop, next.file)) {
      const key = hopKey(further.hop, further.file);
      if (!further.hop.scope && !further.hop.global && spellings.mentions(further.hop.name)) continue;
      if (next.depth >= FLOW_TRACE.maxHopDepth || hops.has(key) || hops.size >= FLOW_TRACE.maxHops) continue;
      // Whatever a decided value is copied into is decided too.
      const hop = next.hop.derived ? { ...further, hop: { ...further.hop, derived: true } } : further;
      hops.set(key, hop);
      queue.push({ ...hop, depth: next.depth + 1 });
    }
  }
  if (flow.empty()) {
    const unexplained = flow.unexplained();
    const reason = unexplained.length > 0
      ? `no occurrence of \`${spellings.identifiers[0]}\` could be placed in a flow; unexplained: ${unexplained.slice(0, 3).join('; ')}`
      : `occurrences of \`${spellings.identifiers[0]}\` are only in comments or prose`;
    return { kind: 'unresolved', reason };
  }
  return { kind: 'found', payload: anchorSymbols(ctx, flow.finish(primary)), carriers: [...new Set([...hops.values()].filter((h) => !h.hop.derived).map((h) => h.hop.name))] };
}

const dirOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/**
 * Go names are package-scoped: a flag declared in directory D is out of reach
 * of another package's unexported `m.pager`, and nothing at all can import a
 * `package main`. Such sites are a different variable; where the value really
 * crosses packages it is copied into a field, which a hop follows.
 */
function outsideGoPackage(ctx: AnalysisContext, primary: Location | null): (site: Site) => boolean {
  if (!primary?.path.endsWith('.go')) return () => false;
  const home = dirOf(primary.path);
  const isMain = /^package\s+main\b/m.test(ctx.read(primary.path) ?? '');
  // An exported field in another package (`cfg.DryRun`, `Config{DryRun: …}`) can still receive the value from main;
  // so can a field whose tag names the key a decoder fills it from (`mapstructure:"backend-url"`), which no package scope confines.
  return (site) =>
    site.file.path.endsWith('.go') && dirOf(site.file.path) !== home && fieldOfTag(site.leaf) === null && (/^[a-z_]/.test(site.leaf.text) || (isMain && !isMemberName(site.leaf)));
}

/**
 * A step names a symbol only when it occurs inside the step's own lines, which
 * is what validators check (SPEC §8); the enclosing function of a one-line
 * statement usually does not, so such steps carry no symbol.
 */
function anchorSymbols(ctx: AnalysisContext, flow: RuntimeFlow): RuntimeFlow {
  const steps = flow.steps.map((step) => {
    const { symbol, path, start_line, end_line } = step.location;
    if (symbol === null) return step;
    const last = symbol.split(/::|[.#/]/).filter(Boolean).pop() ?? symbol;
    const lines = (ctx.read(path) ?? '').split('\n').slice(start_line - 1, end_line).join('\n');
    const word = new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(last)}($|[^A-Za-z0-9_])`);
    if (word.test(lines)) return step;
    const description = step.description.includes(`\`${last}\``) ? step.description : `${step.description} (in \`${last}\`)`;
    return {
      ...step,
      description: Buffer.byteLength(description) <= EVIDENCE.descriptionMaxBytes ? description : step.description,
      location: { ...step.location, symbol: null },
    };
  });
  return { ...flow, steps };
}

const classifiers = new WeakMap<Spellings, Map<string, Classifier>>();

function classifierFor(file: ParsedFile, spellings: Spellings): Classifier {
  const family = familyOf(file.language);
  let byFamily = classifiers.get(spellings);
  if (!byFamily) classifiers.set(spellings, (byFamily = new Map()));
  let c = byFamily.get(family);
  if (!c) byFamily.set(family, (c = new Classifier(family, spellings)));
  return c;
}

/**
 * One hop to a renamed carrier: a local inside its function, or a field wherever
 * it is accessed. Returns the hops its own occurrences lead to.
 */
function followHop(ctx: AnalysisContext, flow: FlowBuilder, hop: Hop, origin: ParsedFile): { hop: Hop; file: ParsedFile }[] {
  const spellings = new Spellings([hop.name], null);
  let sites: Site[];
  if (hop.scope) {
    sites = sitesInNode(hop.file ?? origin, hop.scope, spellings);
  } else {
    const matches = ctx.grep([hop.name], { word: true, pathspecs: ['*.rs', '*.ts', '*.tsx', '*.js', '*.mjs', '*.cjs', '*.py', '*.go'], maxMatches: FLOW_TRACE.maxHopOccurrences + 1 });
    if (matches.length > FLOW_TRACE.maxHopOccurrences) {
      flow.gap(`\`${hop.name}\` occurs too widely to follow (over ${FLOW_TRACE.maxHopOccurrences} lines)`);
      return [];
    }
    const byPath = new Map<string, number[]>();
    // A package variable is visible in its Go package (directory), a module variable in its file.
    const visible = (path: string): boolean => !hop.global || (origin.path.endsWith('.go') ? dirOf(path) === dirOf(origin.path) : path === origin.path);
    for (const m of matches) if (isNonTestSource(ctx, m.path) && visible(m.path)) byPath.set(m.path, [...(byPath.get(m.path) ?? []), m.line]);
    sites = [];
    for (const path of [...byPath.keys()].sort()) {
      const file = ctx.parsed(path);
      if (file && hop.goPackage) {
        // Bare inside the package's own directory; qualified by the package's name elsewhere.
        const inPackage = dirOf(path).split('/').pop() === hop.goPackage;
        sites.push(...sitesOnLines(file, byPath.get(path)!, spellings).filter((s) => (isMemberName(s.leaf) ? s.leaf.parent?.childForFieldName('operand')?.text === hop.goPackage : inPackage)));
        continue;
      }
      if (file && hop.global) {
        sites.push(...sitesOnLines(file, byPath.get(path)!, spellings).filter((s) => !isMemberName(s.leaf)));
        continue;
      }
      // Only field-shaped uses: a bare `enabled` elsewhere is a different variable.
      // A called member (`path.resolve(dir)`) is a method, not the field the value was copied into.
      if (file) sites.push(...sitesOnLines(file, byPath.get(path)!, spellings).filter((s) => isMemberName(s.leaf) && !isCalledMember(s.leaf)));
    }
  }
  const further: { hop: Hop; file: ParsedFile }[] = [];
  // A Python field also travels inside its object's attribute dict: `Settings(**vars(args))` hands it to a parameter.
  if (!hop.scope && !hop.global && origin.language === 'python') {
    for (const t of namespaceSplats(ctx, hop.name)) {
      for (const c of t.carriers) flow.note(t.origin.path, c, 'carrier', `\`${hop.name}\` travels in the attribute dict splatted into \`${t.callee}\``);
      further.push({ hop: { name: hop.name, scope: t.fn, origin: t.call, file: t.file }, file: t.origin });
    }
  }
  for (const site of sites) {
    if (site.file === origin && site.leaf.startIndex >= hop.origin.startIndex && site.leaf.endIndex <= hop.origin.endIndex) continue;
    const verdict = classifierFor(site.file, spellings).classify(site.leaf);
    flow.add(site, verdict.kind === 'step' ? { ...verdict, hop: undefined } : verdict);
    for (const next of verdict.kind === 'step' ? nextHops(ctx, flow, site, verdict, spellings) : []) {
      if (hopKey(next.hop, next.file) !== hopKey(hop, origin)) further.push(next);
    }
  }
  return further;
}

/**
 * A one-word option (`--raw`) shares its spelling with every local and
 * parameter of that name. A bare `raw` is the option's value only in a function
 * that also reads it as a member (`args.raw`); elsewhere it is a namesake.
 */
function namesakeOf(ctx: AnalysisContext, subject: Subject, spellings: Spellings, primary: Location | null): (site: Site) => boolean {
  const word = subject.name.replace(/^-+/, '');
  if (subject.kind !== 'cli_option' || !/^[a-z][a-z0-9]*$/.test(word)) return () => false;
  // Reads through the parsed options, or the option's own literal (`number(m, "attempts")`), tie a function to it.
  const member = new RegExp(`\\.${word}(?![\\w$])|["'\`](--)?${word}["'\`]`);
  const declaring = declaringRecord(ctx, primary);
  return (site) => {
    // `self.raw` inside another type's methods is that type's field.
    const owner = declaring ? (selfOwner(site.leaf) ?? fieldOwner(site)) : null;
    if (owner && owner !== declaring) return true;
    if (site.leaf.type !== 'identifier' || site.leaf.text !== word || site.file.path === primary?.path) return false;
    const family = familyOf(site.file.language);
    let fn: SyntaxNode | null = site.leaf;
    while (fn && !shapes(family).functions.has(fn.type) && fn.type !== 'arrow_function') fn = fn.parent;
    return !fn || !member.test(fn.text);
  };
}

const SELF_RECEIVERS = new Set(['self', 'this', 'Self']);
const OWNER_TYPES: Readonly<Record<string, string>> = { impl_item: 'type', class_declaration: 'name', class_definition: 'name', class: 'name' };

/** The type a declaration field belongs to (`struct Cli { raw: bool }` → Cli). */
function declaringRecord(ctx: AnalysisContext, primary: Location | null): string | null {
  const file = primary ? ctx.parsed(primary.path) : null;
  if (!primary || !file) return null;
  const node = file.tree.rootNode.descendantForPosition({ row: primary.end_line - 1, column: Math.max(0, (file.text.split('\n', primary.end_line)[primary.end_line - 1] ?? '').search(/\S/)) });
  return node ? enclosingRecordName(familyOf(file.language), node) : null;
}

/** For `self.x` / `this.x` / `Self { x: … }`: the type whose method it is in; else null. */
function selfOwner(leaf: SyntaxNode): string | null {
  const p = leaf.parent;
  const receiver = p?.namedChildren[0];
  const isSelfMember = p && receiver && receiver !== leaf && SELF_RECEIVERS.has(receiver.text) && !receiver.equals(leaf);
  const isSelfLiteral = p?.type === 'field_initializer' && p.parent?.parent?.type === 'struct_expression' && p.parent.parent.childForFieldName('name')?.text === 'Self';
  if (!isSelfMember && !isSelfLiteral) return null;
  for (let n = leaf.parent; n; n = n.parent) {
    const field = OWNER_TYPES[n.type];
    if (field) return /[A-Za-z_$][\w$]*/.exec(n.childForFieldName(field)?.text ?? '')?.[0] ?? null;
  }
  return null;
}

/** For a field declaration's name: the record declaring it (`struct Loader { raw: … }` → Loader). */
function fieldOwner(site: Site): string | null {
  const family = familyOf(site.file.language);
  const p = site.leaf.parent;
  const nameField = p ? shapes(family).fields[p.type] : undefined;
  if (!p || nameField === undefined || p.childForFieldName(nameField)?.equals(site.leaf) !== true) return null;
  return enclosingRecordName(family, p);
}

/** A field is one carrier wherever it is read; a local or parameter is one per scope. */
function hopKey(hop: Hop, file: ParsedFile): string {
  if (!hop.scope) return hop.global ? `${hop.name}@${file.path}` : hop.name;
  return `${hop.name}@${(hop.file ?? file).path}:${hop.scope.startIndex}`;
}

/** A hop to the declaration's carrier when it is named unlike the option (followed as a field wherever it is read). */
function declaredCarrier(ctx: AnalysisContext, primary: Location | null, spellings: Spellings): { hop: Hop; file: ParsedFile } | null {
  const file = primary ? ctx.parsed(primary.path) : null;
  if (!primary || !file) return null;
  // An environment variable declared as an option's alternate source (`add_argument("--x", env="APP_X")`,
  // `#[arg(long, env = "APP_X")]`) lands where that option does.
  const option = primary.symbol ? null : factsOf(file).options.find((o) => o.startLine <= primary.end_line && primary.start_line <= o.endLine);
  const symbol = primary.symbol ?? option?.carrier ?? null;
  if (!symbol || !/^[A-Za-z_$][\w$]*$/.test(symbol) || spellings.mentions(symbol)) return null;
  const origin = file.tree.rootNode.descendantForPosition({ row: primary.start_line - 1, column: 0 }, { row: primary.end_line - 1, column: 4096 });
  if (!origin) return null;
  return { hop: { name: symbol, scope: null, origin }, file };
}

/**
 * `_` discards what is assigned to it (Go's and Rust's blank identifier, the
 * convention elsewhere): `_ = viper.BindPFlag("x", …)` hands the value on to
 * nothing, and following `_` would follow every other discard.
 */
const DISCARD = '_';

/** Where the value goes on from one step: its own hop, a callee's parameter, or its callers' results; never a discard. */
function nextHops(ctx: AnalysisContext, flow: FlowBuilder, site: Site, verdict: StepVerdict, spellings: Spellings): { hop: Hop; file: ParsedFile }[] {
  return hopsFrom(ctx, flow, site, verdict, spellings).filter((h) => h.hop.name !== DISCARD);
}

function hopsFrom(ctx: AnalysisContext, flow: FlowBuilder, site: Site, verdict: StepVerdict, spellings: Spellings): { hop: Hop; file: ParsedFile }[] {
  const callee = intoCallee(ctx, flow, site, verdict);
  // The callee's parameter when it is a function of the repository; otherwise the step's own hop (a keyword into a record's field).
  const into = callee ? [{ hop: callee, file: site.file }] : verdict.hop ? [{ hop: verdict.hop, file: site.file }] : [];
  if (!verdict.returnedFrom) return into;
  const family = familyOf(site.file.language);
  return into.concat(callerResults(ctx, family, verdict.returnedFrom).flatMap((r) => {
    const target = single(r.target);
    const hop = target ? hopTo(family, spellings, target, r.binding) : undefined;
    if (!hop) return [];
    const fn = verdict.returnedFrom!.childForFieldName('name')?.text ?? 'the function';
    flow.note(r.file.path, r.binding, 'transformation', `result of \`${fn}\` kept in \`${snippet(target!.text, 60)}\``);
    return [{ hop: { ...hop, file: r.file }, file: r.file }];
  }));
}

/** A value passed as an argument continues in the callee's parameter, when the callee can be told for sure. */
function intoCallee(ctx: AnalysisContext, flow: FlowBuilder, site: Site, verdict: StepVerdict): Hop | undefined {
  if (!verdict.argumentCall) return undefined;
  const target = parameterFor(ctx, familyOf(site.file.language), verdict.argumentCall, site.leaf);
  if (target === null) return undefined;
  flow.settle(site.file.path, verdict.argumentCall);
  // A library call: what it returns (`expanded, err := homedir.Expand(path)`) carries the value on.
  if (target === 'external') return verdict.resultHop;
  return { name: target.name, scope: target.fn, origin: verdict.argumentCall, file: target.file };
}

function isCalledMember(leaf: SyntaxNode): boolean {
  const member = leaf.parent;
  const call = member?.parent;
  return !!member && !!call && call.type.includes('call') && call.namedChildren[0]?.equals(member) === true;
}

function isMemberName(leaf: SyntaxNode): boolean {
  if (MEMBER_NAME_TYPES.has(leaf.type)) return true;
  const p = leaf.parent;
  if (!p) return false;
  return (
    (p.type === 'attribute' && p.childForFieldName('attribute')?.equals(leaf) === true) ||
    (p.type === 'keyword_argument' && p.childForFieldName('name')?.equals(leaf) === true) ||
    p.type === 'literal_element' ||
    p.type === 'shorthand_field_initializer'
  );
}

class FlowBuilder {
  private readonly drafts = new Map<string, Draft>();
  private readonly unaccounted: string[] = [];
  private readonly passed: { callee: string; at: string; call: string }[] = [];
  /** Calls whose callee was entered, or found to be outside the repository. */
  private readonly settled = new Set<string>();
  private readonly parsedFields: Draft[] = [];
  /** Steps cited only when no other step plays their role (AlsoStep.fallback). */
  private readonly fallbacks: Draft[] = [];
  private readonly otherGaps: string[] = [];

  constructor(private readonly carrier: string) {}

  settle(path: string, call: SyntaxNode): void {
    this.settled.add(`${path}@${call.startIndex}`);
  }

  /** A step that is no occurrence of a carrier: a caller keeping the result of a function that returns the value. */
  note(path: string, node: SyntaxNode, role: FlowRole, description: string, until: SyntaxNode = node): void {
    const start = node.startPosition.row + 1;
    const end = Math.min(Math.max(start, until.endPosition.row + 1), start + EVIDENCE.maxLocationLines - 1);
    const key = `${role}\0${path}\0${start}\0${end}`;
    if (!this.drafts.has(key)) this.drafts.set(key, { role, path, start, end, symbol: null, description });
  }

  gap(text: string): void {
    this.otherGaps.push(text);
  }

  empty(): boolean {
    return this.drafts.size === 0;
  }

  unexplained(): readonly string[] {
    return this.unaccounted;
  }

  add(site: Site, verdict: Verdict): void {
    if (verdict.kind === 'ignored') return;
    const path = site.file.path;
    if (verdict.kind === 'unaccounted') {
      const line = site.file.text.split('\n', site.line)[site.line - 1] ?? '';
      const at = `${path}:${site.line}`;
      if (!this.unaccounted.some((u) => u.startsWith(`${at}:`))) this.unaccounted.push(`${at}: \`${line.trim().slice(0, 80)}\``);
      return;
    }
    const draft = this.draft(path, verdict, site.leaf);
    if (verdict.passedTo) this.passed.push({ callee: verdict.passedTo, at: `${path}:${draft.start}`, call: `${path}@${verdict.argumentCall?.startIndex ?? -1}` });
    if (verdict.carrier) {
      const n = verdict.carrier.node;
      this.parsedFields.push({ role: 'carrier', path, start: n.startPosition.row + 1, end: n.endPosition.row + 1, symbol: verdict.symbol, description: verdict.carrier.description });
    }
    for (const also of verdict.also ?? []) {
      const step = { ...verdict, role: also.role, node: also.node, description: also.description, from: undefined, until: undefined };
      if (also.fallback) {
        const [start, end] = range(step, site.leaf);
        this.fallbacks.push({ role: also.role, path, start, end, symbol: verdict.symbol, description: also.description });
      } else this.draft(path, step, site.leaf);
    }
  }

  private draft(path: string, v: StepVerdict, leaf: SyntaxNode): Draft {
    const [start, end] = range(v, leaf);
    const key = `${v.role}\0${path}\0${start}\0${end}`;
    const existing = this.drafts.get(key);
    if (existing) return existing;
    const draft: Draft = { role: v.role, path, start, end, symbol: v.symbol, description: v.description };
    this.drafts.set(key, draft);
    return draft;
  }

  finish(primary: Location | null): RuntimeFlow {
    const drafts = [...this.drafts.values()];
    // A parser-filled field is also where the value lives when nothing else declares it.
    if (!drafts.some((d) => d.role === 'carrier')) drafts.push(...this.parsedFields);
    const unplayed = new Set(FLOW_ROLES.filter((r) => !drafts.some((d) => d.role === r)));
    const seen = new Set<string>();
    for (const f of this.fallbacks) {
      const key = `${f.role}\0${f.path}\0${f.start}\0${f.end}`;
      if (unplayed.has(f.role) && !seen.has(key)) drafts.push(f);
      seen.add(key);
    }
    // Discovery order (direct occurrences, then each hop outward) decides what is kept past the step limit.
    const discovered = new Map(drafts.map((d, i) => [d, i] as const));
    drafts.sort(flowOrder(primary));
    // A statement that reads as two roles is listed twice only when it is the
    // sole witness of the second role (`this.x = opts.x ?? false` carries and
    // decides precedence); otherwise the earlier role in flow order stands.
    const at = (d: Draft) => `${d.path}\0${d.start}\0${d.end}`;
    const first = new Map<string, Draft>();
    for (const d of drafts) if (!first.has(at(d))) first.set(at(d), d);
    const unique = drafts.filter(
      (d) => first.get(at(d)) === d || !drafts.some((o) => o !== d && o.role === d.role && first.get(at(o)) === o),
    );
    const candidates = unique.length > EVIDENCE.maxFlowSteps ? mergeNearby(unique, discovered) : unique;
    const kept = selectSteps(candidates, discovered);
    const gaps: string[] = [];
    for (const role of FLOW_ROLES) {
      if (!kept.some((d) => d.role === role)) gaps.push(`no ${role} of \`${this.carrier}\` found in non-test source`);
    }
    if (primary && !kept.some((d) => overlaps(d, primary))) {
      gaps.push(`primary declaration ${primary.path}:${primary.start_line} is not among the traced occurrences`);
    }
    for (const u of this.unaccounted) gaps.push(`${u} is not accounted for`);
    if (!drafts.some((d) => d.role === 'carrier' && d.description.startsWith('parameter'))) {
      for (const p of this.passed.filter((q) => !this.settled.has(q.call))) gaps.push(`value passed to \`${p.callee}\` at ${p.at} is not followed into the callee`);
    }
    const omitted = candidates.filter((d) => !kept.includes(d));
    if (omitted.length > 0) {
      gaps.push(`${omitted.length} further steps omitted (limit ${EVIDENCE.maxFlowSteps}): ${omitted.map((d) => `${d.path}:${d.start}`).join(', ')}`);
    }
    gaps.push(...this.otherGaps);
    let primaryMarked = false;
    const steps: FlowStep[] = kept.map((d) => {
      const isPrimary = !primaryMarked && primary !== null && overlaps(d, primary);
      primaryMarked ||= isPrimary;
      return {
        role: d.role,
        location: { role: isPrimary ? 'primary' : 'supporting', path: d.path, symbol: d.symbol, start_line: d.start, end_line: d.end },
        description: d.description,
      };
    });
    return runtimeFlowSchema.parse({ scenario: 'default', steps, gaps: boundGaps(gaps) }, 'runtime_flow');
  }
}

/** The construct a step stands for, bounded to the contract's line limit. */
function range(v: StepVerdict, leaf: SyntaxNode): [number, number] {
  let node = v.node;
  if (v.role === 'consumer' ? isExpressionBranch(node) : v.role !== 'carrier' && !v.carrier) node = statementOf(node);
  if (v.role !== 'consumer' && !v.from && node.endPosition.row - node.startPosition.row >= FLOW_TRACE.maxStatementLines) {
    node = lineOf(leaf, node);
  }
  const start = (v.from ?? node).startPosition.row + 1;
  const end = v.until ? Math.max(start, v.until.startPosition.row + 1) : (v.role === 'consumer' ? branchEnd(node) : node).endPosition.row + 1;
  return [start, Math.min(end, start + EVIDENCE.maxLocationLines - 1)];
}

/** The largest construct around `leaf` that starts on its line, inside `outer`: `crlf: low.crlf,` in a long literal. */
function lineOf(leaf: SyntaxNode, outer: SyntaxNode): SyntaxNode {
  let cur = leaf;
  while (cur.parent && !cur.parent.equals(outer) && cur.parent.startPosition.row === leaf.startPosition.row) cur = cur.parent;
  return cur;
}

function isExpressionBranch(n: SyntaxNode): boolean {
  return n.type === 'ternary_expression' || n.type === 'conditional_expression';
}

/** The enclosing statement, or the construct itself when the statement is too long to cite. */
function statementOf(n: SyntaxNode): SyntaxNode {
  let cur = n;
  while (cur.parent && !isContainer(cur.parent.type)) cur = cur.parent;
  const lines = cur.endPosition.row - cur.startPosition.row + 1;
  return lines <= EVIDENCE.maxLocationLines || !cur.parent ? cur : n;
}


/**
 * Role order; within a role the primary declaration leads (the flow starts where
 * the subject is declared), product code before examples and scripts, then path and line.
 */
function flowOrder(primary: Location | null): (a: Draft, b: Draft) => number {
  const isPrimary = (d: Draft) => (primary !== null && overlaps(d, primary) ? 0 : 1);
  // Demo and tooling code uses the value too, but it is not the product's path.
  const peripheral = (d: Draft) => (isPeripheralPath(d.path) ? 1 : 0);
  return (a, b) =>
    FLOW_ROLES.indexOf(a.role) - FLOW_ROLES.indexOf(b.role) ||
    isPrimary(a) - isPrimary(b) ||
    peripheral(a) - peripheral(b) ||
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
    a.start - b.start ||
    a.end - b.end;
}

/** Lines apart, and lines in all, within which two steps of one role in one file may share a citation. */
const MERGE_GAP_LINES = 3;
const MERGED_MAX_LINES = 12;

/**
 * Past the step limit, neighbouring steps of one role in one file (`const cmd = [...]`
 * two lines above `return cmd`) are cited as one range before any step is dropped:
 * the reader loses no line, and the flow loses no step.
 */
function mergeNearby(ordered: Draft[], discovered: Map<Draft, number>): Draft[] {
  const out: Draft[] = [];
  for (const d of ordered) {
    const prev = out[out.length - 1];
    if (prev && prev.role === d.role && prev.path === d.path && d.start - prev.end <= MERGE_GAP_LINES && d.start >= prev.start && Math.max(prev.end, d.end) - prev.start < MERGED_MAX_LINES) {
      const joined = `${prev.description}; ${d.description}`;
      const merged: Draft = { ...prev, end: Math.max(prev.end, d.end), symbol: prev.symbol === d.symbol ? prev.symbol : null, description: Buffer.byteLength(joined) <= EVIDENCE.descriptionMaxBytes ? joined : prev.description };
      discovered.set(merged, Math.min(discovered.get(prev) ?? 0, discovered.get(d) ?? 0));
      out[out.length - 1] = merged;
      continue;
    }
    out.push(d);
  }
  return out;
}

/** At most the contract's step limit: the first step of every role, then the nearest to the subject in discovery order. */
function selectSteps(ordered: Draft[], discovered: ReadonlyMap<Draft, number>): Draft[] {
  if (ordered.length <= EVIDENCE.maxFlowSteps) return ordered;
  const chosen = new Set<Draft>();
  for (const role of FLOW_ROLES) {
    const first = ordered.find((d) => d.role === role);
    if (first) chosen.add(first);
  }
  const nearest = [...ordered].sort((a, b) => (discovered.get(a) ?? 0) - (discovered.get(b) ?? 0));
  for (const d of nearest) if (chosen.size < EVIDENCE.maxFlowSteps) chosen.add(d);
  return ordered.filter((d) => chosen.has(d));
}

function overlaps(d: Draft, loc: Location): boolean {
  return d.path === loc.path && d.start <= loc.end_line && loc.start_line <= d.end;
}

function boundGaps(gaps: string[]): string[] {
  const clip = (s: string) => (Buffer.byteLength(s) <= EVIDENCE.gapMaxBytes ? s : `${Buffer.from(s).subarray(0, EVIDENCE.gapMaxBytes - 3).toString('utf8').replace(/\uFFFD$/, '')}…`);
  if (gaps.length <= EVIDENCE.maxGaps) return gaps.map(clip);
  const rest = gaps.slice(EVIDENCE.maxGaps - 1);
  return [...gaps.slice(0, EVIDENCE.maxGaps - 1), `${rest.length} more gaps, first: ${rest[0]}`].map(clip);
}
