// The semantic vocabulary (SPEC §5): subject kinds, predicates with their
// facets, and the routes with their minimum obligations. Public names are
// snake_case; the u8 tags feed canonical identities and must never change.

export const SUBJECT_KINDS = [
  'symbol',
  'cli_option',
  'configuration_key',
  'test',
  'file',
  'module',
  'behavior',
] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];
export const subjectKindTag = (k: SubjectKind): number => SUBJECT_KINDS.indexOf(k);

export const PREDICATES = ['implementation_location', 'runtime_flow', 'focused_tests'] as const;
export type Predicate = (typeof PREDICATES)[number];
export const predicateTag = (p: Predicate): number => PREDICATES.indexOf(p);

/** Legal values of each facet of each predicate. One value each today; lists so more can come. */
export const FACETS = {
  implementation_location: {
    polarity: ['positive'],
    selection: ['primary'],
    granularity: ['exact_location'],
  },
  runtime_flow: {
    scenario: ['default'],
    completeness: ['contract_complete'],
    granularity: ['stepwise'],
  },
  focused_tests: {
    polarity: ['positive'],
    selection: ['representative'],
    completeness: ['open_world'],
  },
} as const satisfies Record<Predicate, Record<string, readonly string[]>>;

export type Facets = Readonly<Record<string, string>>;

export interface Capability {
  readonly kind: Predicate;
  readonly facets: Facets;
}

/** Every facet a validator derives for a fully proven artifact of this predicate. */
export function fullFacets(p: Predicate): Facets {
  return Object.fromEntries(Object.entries(FACETS[p]).map(([k, v]) => [k, v[0]!]));
}

export const ROUTE_IDS = ['locate.implementation', 'trace.state-flow', 'tests.relevant'] as const;
export type RouteId = (typeof ROUTE_IDS)[number];

export interface RouteContract {
  readonly id: RouteId;
  readonly required: readonly Capability[];
  readonly preferred: readonly Capability[];
  readonly allowed: readonly Predicate[];
}

export const ROUTES: Readonly<Record<RouteId, RouteContract>> = {
  'locate.implementation': {
    id: 'locate.implementation',
    required: [{ kind: 'implementation_location', facets: fullFacets('implementation_location') }],
    preferred: [],
    allowed: ['implementation_location', 'focused_tests'],
  },
  'trace.state-flow': {
    id: 'trace.state-flow',
    required: [
      { kind: 'implementation_location', facets: { polarity: 'positive', selection: 'primary' } },
      { kind: 'runtime_flow', facets: fullFacets('runtime_flow') },
    ],
    preferred: [{ kind: 'focused_tests', facets: { selection: 'representative' } }],
    allowed: ['implementation_location', 'runtime_flow', 'focused_tests'],
  },
  'tests.relevant': {
    id: 'tests.relevant',
    required: [{ kind: 'focused_tests', facets: fullFacets('focused_tests') }],
    preferred: [],
    allowed: ['focused_tests'],
  },
};

/** `satisfies(provided, requested)`: every requested facet is present with the same value. */
export function facetsSatisfy(provided: Facets, requested: Facets): boolean {
  return Object.entries(requested).every(([k, v]) => provided[k] === v);
}

/** Spellings under which a CLI option or key may appear in code: dry_run, DryRun, dryRun, DRY_RUN, dry-run. */
export function identifierSpellings(name: string): string[] {
  const words = name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  if (words.length === 0) return [name];
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  const out = new Set([
    words.join('_'),
    words.map(cap).join(''),
    words[0] + words.slice(1).map(cap).join(''),
    words.join('_').toUpperCase(),
    words.join('-'),
  ]);
  // The name as written is a spelling too when it is an identifier the case
  // forms above lose: `_ZO_MAXAGE` (a leading underscore), `HTTPProxy`.
  const bare = name.replace(/^-+/, '');
  if (/^[A-Za-z_$][\w$]*$/.test(bare)) out.add(bare);
  return [...out];
}
