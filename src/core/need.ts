// NeedIR compile (SPEC §5): a parsed need request plus the repository lineage
// becomes a compiled need with canonical identities. Route minimums are merged
// here, never by the transport.
import { canonical, type Digest } from './digest.js';
import {
  ROUTES,
  predicateTag,
  subjectKindTag,
  type Capability,
  type Facets,
  type Predicate,
  type RouteId,
  type SubjectKind,
} from './semantic.js';
import { findResidual, type Residual } from './residual.js';

export interface WorldSelector {
  readonly source: string;
  readonly platform: string;
  readonly features: string;
  readonly configuration_digest?: Digest;
  readonly toolchain_digest?: Digest;
}

export const DEFAULT_WORLD: WorldSelector = { source: 'current', platform: 'current', features: 'default' };

/** A need_context request after validation at the edge. */
export interface NeedRequest {
  readonly route: RouteId;
  readonly subject: { readonly kind: SubjectKind; readonly name: string };
  readonly required: readonly Capability[];
  readonly preferred: readonly Capability[];
  readonly world: WorldSelector;
  readonly task: string;
}

export interface Subject {
  readonly id: Digest;
  readonly kind: SubjectKind;
  readonly name: string;
}

export interface Obligation {
  readonly id: Digest;
  readonly predicate: Predicate;
  readonly subjectId: Digest;
  readonly facets: Facets;
}

export interface World {
  readonly id: Digest;
  readonly lineage: Digest;
  readonly source: string;
  readonly platform: string;
  readonly features: string;
  readonly configurationDigest: Digest | null;
  readonly toolchainDigest: Digest | null;
}

export interface CompiledNeed {
  readonly id: Digest;
  readonly route: RouteId;
  readonly subject: Subject;
  /** Sorted by obligation id; this order fixes the planner's bitmask bits. */
  readonly required: readonly Obligation[];
  readonly preferred: readonly Obligation[];
  readonly world: World;
  readonly residual: Residual | null;
  /** Predicates the caller declared in `required` (for honest bypass reporting). */
  readonly declaredRequired: readonly Predicate[];
  readonly task: string;
  /** Identity of the exact request, wording and route included. */
  readonly requestDigest: Digest;
}

export class NeedCompileError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'NeedCompileError';
  }
}

export function subjectId(lineage: Digest, kind: SubjectKind, name: string): Digest {
  return canonical('subject').digest(lineage).u8(subjectKindTag(kind)).text(name).finish();
}

const sortedFacets = (f: Facets): [string, string][] =>
  Object.entries(f).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function obligationId(predicate: Predicate, subject: Digest, facets: Facets): Digest {
  return canonical('obligation')
    .u8(predicateTag(predicate))
    .digest(subject)
    .list(sortedFacets(facets), (h, [k, v]) => h.text(k).text(v))
    .finish();
}

export function worldOf(lineage: Digest, w: WorldSelector): World {
  const configurationDigest = w.configuration_digest ?? null;
  const toolchainDigest = w.toolchain_digest ?? null;
  const id = canonical('semantic-world')
    .digest(lineage)
    .text(w.source)
    .text(w.platform)
    .text(w.features)
    .optionalDigest(configurationDigest)
    .optionalDigest(toolchainDigest)
    .finish();
  return { id, lineage, source: w.source, platform: w.platform, features: w.features, configurationDigest, toolchainDigest };
}

function mergeFacets(into: Map<Predicate, Record<string, string>>, caps: readonly Capability[], field: string): void {
  for (const cap of caps) {
    const merged = into.get(cap.kind) ?? {};
    for (const [k, v] of Object.entries(cap.facets)) {
      if (merged[k] !== undefined && merged[k] !== v)
        throw new NeedCompileError(field, `conflicting ${cap.kind}.${k}: ${merged[k]} vs ${v}`);
      merged[k] = v;
    }
    into.set(cap.kind, merged);
  }
}

const byId = (a: Obligation, b: Obligation) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function requestDigest(req: NeedRequest): Digest {
  const caps = (list: readonly Capability[]) =>
    [...list].sort((a, b) => predicateTag(a.kind) - predicateTag(b.kind));
  return canonical('mcp-need-context-request')
    .text(req.route)
    .text(req.subject.kind)
    .text(req.subject.name)
    .list(caps(req.required), (h, c) => h.text(c.kind).list(sortedFacets(c.facets), (h2, [k, v]) => h2.text(k).text(v)))
    .list(caps(req.preferred), (h, c) => h.text(c.kind).list(sortedFacets(c.facets), (h2, [k, v]) => h2.text(k).text(v)))
    .text(req.world.source)
    .text(req.world.platform)
    .text(req.world.features)
    .optionalText(req.world.configuration_digest)
    .optionalText(req.world.toolchain_digest)
    .lines(req.task)
    .finish();
}

export function compileNeed(req: NeedRequest, lineage: Digest): CompiledNeed {
  const route = ROUTES[req.route];
  for (const [field, list] of [
    ['required', req.required],
    ['preferred', req.preferred],
  ] as const) {
    list.forEach((cap, i) => {
      if (!route.allowed.includes(cap.kind))
        throw new NeedCompileError(`${field}[${i}].kind`, `${cap.kind} is not allowed by route ${req.route}`);
    });
  }
  const subject: Subject = {
    id: subjectId(lineage, req.subject.kind, req.subject.name),
    kind: req.subject.kind,
    name: req.subject.name,
  };
  const required = new Map<Predicate, Record<string, string>>();
  mergeFacets(required, route.required, 'required');
  mergeFacets(required, req.required, 'required');
  const preferred = new Map<Predicate, Record<string, string>>();
  mergeFacets(preferred, route.preferred, 'preferred');
  mergeFacets(preferred, req.preferred, 'preferred');
  for (const p of required.keys()) preferred.delete(p);

  const toObligations = (m: Map<Predicate, Record<string, string>>): Obligation[] =>
    [...m.entries()]
      .map(([predicate, facets]) => ({ id: obligationId(predicate, subject.id, facets), predicate, subjectId: subject.id, facets }))
      .sort(byId);
  const req_ = toObligations(required);
  const pref = toObligations(preferred);
  const world = worldOf(lineage, req.world);
  const id = canonical('need')
    .digest(subject.id)
    .list(req_, (h, o) => h.digest(o.id))
    .list(pref, (h, o) => h.digest(o.id))
    .list([] as string[], (h, c) => h.text(c)) // constraints: none expressible over MCP today
    .digest(world.id)
    .list([] as Digest[], (h, d) => h.digest(d)) // semantic inputs
    .finish();
  return {
    id,
    route: req.route,
    subject,
    required: req_,
    preferred: pref,
    world,
    residual: findResidual(req.task, req.subject),
    declaredRequired: req.required.map((c) => c.kind),
    task: req.task,
    requestDigest: requestDigest(req),
  };
}

/** Repository lineage: stable across clones because it comes from the root commits. */
export function lineageDigest(rootCommits: readonly string[]): Digest {
  const roots = [...new Set(rootCommits)].sort();
  return canonical('repository-lineage')
    .u16(2)
    .list(roots, (h, r) => h.text(r))
    .finish();
}
