// implementation_location for CLI options and configuration keys. The
// primary location is the construct that declares the option (a clap field
// with its attribute, an add_argument/.option()/flag.Bool call) or the
// schema field / read that defines the key; supporting locations are where
// the carrier identifier is read.
import { identifierSpellings } from '../core/semantic.js';
import type { AnalysisContext } from './context.js';
import { candidateFrom, discover, settle, type Candidate, type Discovery, type LocateResult } from './candidates.js';
import { CONFIG_KEY_KINDS, type OptionDeclaration } from './languages/index.js';
import { LITERAL_USES, literalSites, type LiteralUse } from './languages/literals.js';
import { mentionSpellings, normalized, optionName, type OptionName } from './names.js';
import { escapeRegExp } from '../core/text.js';
import { enclosingDefinition } from './behaviour.js';
import { isPascal } from './flow/spellings.js';

const NOT_NAME = '([^A-Za-z0-9_-]|$)';

/** Lines that can declare the option: quoted names, `--name`, and `name:` fields (clap derive's default long). */
function optionPatterns(o: OptionName): string[] {
  if (o.long) {
    const long = escapeRegExp(o.long);
    const field = escapeRegExp(o.long.replace(/-/g, '_'));
    return [`["'\`](--)?${long}${NOT_NAME}`, `--${long}${NOT_NAME}`, keyPattern(field)];
  }
  const short = escapeRegExp(o.short!);
  return [`["'\`]-?${short}["'\`,]`, `["'\`]-${short}[ ,]`, `short[[:space:]]*[=(:][[:space:]]*['"]${short}['"]`];
}

/** `release-draft` → `releaseDraft`. */
const camelName = (long: string): string => long.replace(/-([A-Za-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `name:` as a key of a table or record. */
const keyPattern = (escapedName: string): string => `(^|[^A-Za-z0-9_])${escapedName}[[:space:]]*:`;

function declares(o: OptionName, d: OptionDeclaration): boolean {
  if (o.long) return d.longs.some((l) => normalized(l) === normalized(o.long!));
  // Go's flag package has one form, `-z` as much as `-host`: a one-letter name is the short one.
  return d.shorts.includes(o.short!) || d.longs.includes(o.short!);
}

/** Spellings of the option's carrier in code (dry_run, DryRun, dryRun, DRY_RUN — not the kebab flag text). */
function carrierSpellings(name: string): string[] {
  return identifierSpellings(name).filter((s) => /^[A-Za-z_][\w]*$/.test(s));
}

/** What a literal candidate is called and how it ranks, by what the code does with the literal. */
interface LiteralRanking {
  readonly values: readonly string[];
  readonly name: string;
  readonly kind: (use: LiteralUse) => string;
  readonly tier: (use: LiteralUse) => number;
  readonly carriers: readonly string[];
}

/** String literals that spell the subject, as candidates ranked by their use (see languages/literals.ts). */
function literalCandidates(ctx: AnalysisContext, discovery: Discovery, r: LiteralRanking): Candidate[] {
  const files = new Set(discovery.files);
  return discovery.matches
    .filter((m) => files.has(m.path))
    .flatMap((m) => {
      const parsed = ctx.parsed(m.path);
      if (!parsed) return [];
      return literalSites(parsed, m.line, r.values).map((site) =>
        candidateFrom(m.path, { ...site.span, inTest: site.inTest }, { kind: r.kind(site.use), name: r.name, tier: r.tier(site.use), symbol: site.symbol, carriers: r.carriers }),
      );
    });
}

export function locateOption(ctx: AnalysisContext, subject: string): LocateResult {
  const o = optionName(subject);
  if (!o.long && !o.short) return { kind: 'unresolved', reason: `cli option ${subject} names no flag` };
  const display = o.long ? `--${o.long}` : `-${o.short}`;
  // Every pattern spells the long name (or its field form) literally: the subject's
  // one superset search answers it (evidence/grep-derive.ts).
  const spelled = o.long ? [o.long, o.long.replace(/-/g, '_')] : undefined;
  const discovery = discover(ctx, optionPatterns(o), { regex: true, ...(spelled ? { literals: spelled } : {}) }, false);
  const declaredIn = (files: readonly string[]): Candidate[] => files.flatMap((path) => {
    return (ctx.facts(path)?.options ?? [])
      .filter((d) => declares(o, d))
      .map((d) =>
        candidateFrom(path, d, {
          kind: d.framework,
          name: display,
          // A read of a parsed-arguments object declares nothing: any declaring framework beats it.
          tier: d.framework === 'parsed-argv' ? 1 : 0,
          symbol: d.carrier,
          carriers: [...new Set([...(d.carrier ? [d.carrier] : []), ...carrierSpellings(d.longs[0] ?? '')])],
        }),
      );
  });
  let declared = declaredIn(discovery.files);
  // A table keyed by the option's camelCase name (meow's `flags: { releaseDraft: { type: 'boolean' } }`)
  // need not spell the flag anywhere; searched for only then, since records spell such keys everywhere.
  const camel = o.long && o.long.includes('-') ? camelName(o.long) : null;
  if (camel && !declared.some((c) => !c.inTest)) {
    const keyed = discover(ctx, [keyPattern(escapeRegExp(camel))], { regex: true, literals: [camel] }, false);
    const seen = new Set(discovery.files);
    declared = [...declared, ...declaredIn(keyed.files.filter((f) => !seen.has(f)))];
  }
  // A struct field whose tag declares the option without naming it (kong's `NoLimit bool \`help:"…"\``)
  // spells only the field; searched for only then. (A field cased otherwise, `HTTPPort`, spells none of
  // the subject's spellings, which a primary location must.)
  const field = o.long && /^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/.test(o.long) ? identifierSpellings(o.long).find(isPascal) : undefined;
  if (field && !declared.some((c) => !c.inTest)) {
    const tagged = discover(ctx, [`(^|[[:space:]])${field}[[:space:]]+[^[:space:]\`]+[[:space:]]*\``], { regex: true, literals: [field], pathspecs: ['*.go'] }, false);
    const seen = new Set([...discovery.files, ...declared.map((c) => c.path)]);
    declared = [...declared, ...declaredIn(tagged.files.filter((f) => !seen.has(f)))];
  }
  // A parser without declarations (minimist) leaves the name only in reads of its result
  // (`argv.cors`, `argv['proxy-options']`); searched for only when nothing declares the option.
  if (o.long && !declared.some((c) => !c.inTest)) {
    const long = escapeRegExp(o.long);
    const read = discover(ctx, [`\\.${long}${NOT_NAME}`, `\\[["'\`]${long}["'\`]\\]`], { regex: true, literals: [o.long] }, false);
    const seen = new Set([...discovery.files, ...declared.map((c) => c.path)]);
    declared = [...declared, ...declaredIn(read.files.filter((f) => !seen.has(f)))];
  }
  const literals = (): Candidate[] =>
    literalCandidates(ctx, discovery, {
      values: o.long ? [o.long, `--${o.long}`] : [`-${o.short}`],
      name: display,
      kind: (use) => (use === 'accessor' ? 'flag-definition' : `literal-${use}`),
      tier: (use) => 1 + LITERAL_USES.indexOf(use),
      carriers: o.long ? carrierSpellings(o.long) : [],
    });
  const candidates = declared.some((c) => !c.inTest) ? declared : [...declared, ...literals()];
  const spellings = o.long ? mentionSpellings(o.long) : [`-${o.short}`, `'${o.short}'`, `"${o.short}"`];
  return settle(ctx, candidates, {
    allowTest: false,
    spellings,
    notFound: `no declaration of cli option ${display}`,
    searchComplete: discovery.complete,
    support: (_primary, best) => ({ carriers: best.carriers, prefer: 'reads' }),
  });
}

export function locateConfigKey(ctx: AnalysisContext, subject: string): LocateResult {
  const key = subject.trim();
  const last = key.includes('.') ? key.slice(key.lastIndexOf('.') + 1) : null;
  const wanted = new Set([normalized(key), ...(last ? [normalized(last)] : [])]);
  const patterns = [...new Set([key, ...identifierSpellings(key), ...(last ? [last, ...identifierSpellings(last)] : [])])];
  const discovery = discover(ctx, patterns, { word: true }, false);
  const candidates: Candidate[] = discovery.files.flatMap((path) => {
    return (ctx.facts(path)?.configKeys ?? [])
      .filter((k) => wanted.has(normalized(k.key)))
      .map((k) =>
        candidateFrom(path, k, {
          kind: k.kind,
          name: k.key,
          // An exact spelling of a dotted key beats a match on its last segment.
          tier: CONFIG_KEY_KINDS.indexOf(k.kind) * 2 + (normalized(k.key) === normalized(key) ? 0 : 1),
          symbol: k.carrier,
          carriers: [...new Set([...(k.carrier ? [k.carrier] : []), ...carrierSpellings(last ?? key)])],
        }),
      );
  });
  // A key read through the project's own helper (`lookupEnv("APP_HOME")`, `env="APP_HOME"`) is found by its literal.
  const literals = (): Candidate[] =>
    literalCandidates(ctx, discovery, {
      values: [key],
      name: key,
      kind: (use) => `key-literal-${use}`,
      // Below every declaration or read the extractors recognise.
      tier: (use) => CONFIG_KEY_KINDS.length * 2 + LITERAL_USES.indexOf(use),
      carriers: carrierSpellings(key),
    });
  const all = candidates.some((c) => !c.inTest) ? oneRead(ctx, candidates, key) : [...candidates, ...literals()];
  return settle(ctx, all, {
    allowTest: false,
    spellings: mentionSpellings(key).concat(last ? mentionSpellings(last) : []),
    notFound: `no declaration or read of configuration key ${key}`,
    searchComplete: discovery.complete,
    support: (_primary, best) => ({ carriers: best.carriers, prefer: 'reads' }),
  });
}

/** Reads of a key, as opposed to declarations of it. */
const READS: ReadonlySet<string> = new Set(['env-read', 'key-read']);
const keyWords = (name: string): string[] => identifierSpellings(name)[0]!.split('_').filter((w) => w.length > 1);

/**
 * The same variable read in several places is one key, not several candidates to choose between:
 * when only reads share the best rank, the one in a function named for the key (`get_default_python`
 * for PIPX_DEFAULT_PYTHON) is the one a maintainer points to, else the first; the others stay supporting.
 */
function oneRead(ctx: AnalysisContext, candidates: readonly Candidate[], key: string): Candidate[] {
  const product = candidates.filter((c) => !c.inTest);
  const best = Math.min(...product.map((c) => c.tier));
  const tied = product.filter((c) => c.tier === best);
  if (tied.length < 2 || !tied.every((c) => READS.has(c.kind))) return [...candidates];
  const words = keyWords(key);
  // How many of the key's words the enclosing function's name shares, and how many it adds (`get_default_python`
  // names PIPX_DEFAULT_PYTHON more closely than `get_default_python_spec`).
  const named = (c: Candidate): { shared: number; extra: number } => {
    const fn = enclosingDefinition(ctx, c.path, c.span.startLine)?.symbol;
    const fnWords = fn ? identifierSpellings(fn)[0]!.split('_').filter(Boolean) : [];
    const shared = words.filter((w) => fnWords.includes(w)).length;
    return { shared, extra: fnWords.length - shared };
  };
  const rank = new Map(tied.map((c) => [c, named(c)] as const));
  const chosen = [...tied].sort((a, b) => rank.get(b)!.shared - rank.get(a)!.shared || rank.get(a)!.extra - rank.get(b)!.extra || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.span.startLine - b.span.startLine)[0]!;
  // A fraction of a tier: below the chosen read, above anything weaker.
  return candidates.map((c) => (tied.includes(c) && c !== chosen ? { ...c, tier: c.tier + 0.5 } : c));
}
