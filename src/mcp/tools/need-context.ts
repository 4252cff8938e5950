// need_context: the input contract (closed at every level, route enum frozen
// per session) and the output contract published under 2025-06-18. Both are
// schema.ts definitions, so the published JSON Schema and the validator are
// the same object.
import { isDigest } from '../../core/digest.js';
import { MCP, NEED, RESOLVER } from '../../core/limits.js';
import { DEFAULT_WORLD, type NeedRequest } from '../../core/need.js';
import { RELATIONS } from '../../core/relation.js';
import { ANSWER_STATUSES, REUSE_UNITS } from '../../core/resolution.js';
import {
  array,
  boolean,
  enumOf,
  integer,
  literal,
  nullable,
  object,
  optional,
  SchemaError,
  string,
  tagged,
  type Infer,
} from '../../core/schema.js';
import { FACETS, PREDICATES, SUBJECT_KINDS, type Capability, type Predicate, type RouteId } from '../../core/semantic.js';

const DIGEST_PATTERN = /^b3:[0-9a-f]{64}$/;
const digest = (description?: string) => string({ pattern: DIGEST_PATTERN, ...(description ? { description } : {}) });

function capabilityVariant(p: Predicate) {
  const facets = Object.fromEntries(
    Object.entries(FACETS[p]).map(([facet, values]) => [facet, optional(enumOf(values as readonly string[]))]),
  );
  return object({ kind: literal(p), ...facets });
}

const capability = tagged(
  'kind',
  {
    implementation_location: capabilityVariant('implementation_location'),
    runtime_flow: capabilityVariant('runtime_flow'),
    focused_tests: capabilityVariant('focused_tests'),
  },
  'one evidence capability; omitted facets are filled by the route, never invented',
);

const worldString = string({ nonBlank: true, maxBytes: NEED.worldStringMaxBytes });
const world = object({
  source: worldString,
  platform: worldString,
  features: worldString,
  configuration_digest: optional(digest('b3: digest of the configuration')),
  toolchain_digest: optional(digest('b3: digest of the toolchain')),
});

export function needContextInputSchema(routes: readonly RouteId[]) {
  return object({
    route: enumOf(routes, 'evidence route enabled in this session'),
    subject: object({
      kind: enumOf(SUBJECT_KINDS),
      name: string({ minBytes: 1, maxBytes: NEED.subjectNameMaxBytes, nonBlank: true, noControl: true }),
    }),
    required: optional(array(capability, { max: NEED.maxRequired })),
    preferred: optional(array(capability, { max: NEED.maxPreferred })),
    world: optional(world),
    task: string({ nonBlank: true, maxBytes: NEED.taskMaxBytes, description: 'what you are trying to do; not part of the need identity' }),
  });
}
export type NeedContextInputSchema = ReturnType<typeof needContextInputSchema>;

type RawCapability = { kind: Predicate } & Record<string, string>;

function toCapability(raw: RawCapability): Capability {
  const { kind, ...facets } = raw;
  return { kind, facets };
}

/** Parses need_context arguments into a NeedRequest; every failure is a SchemaError naming the field. */
export function parseNeedContext(schema: NeedContextInputSchema, args: unknown): NeedRequest {
  const parsed = schema.parse(args, 'arguments');
  const required = (parsed.required ?? []) as RawCapability[];
  const preferred = (parsed.preferred ?? []) as RawCapability[];
  const seen = new Map<string, string>();
  for (const [field, list] of [
    ['required', required],
    ['preferred', preferred],
  ] as const) {
    list.forEach((cap, i) => {
      const path = `arguments.${field}[${i}].kind`;
      const first = seen.get(cap.kind);
      if (first) throw new SchemaError(path, `${cap.kind} duplicates ${first}; each capability kind may appear once across required and preferred`);
      seen.set(cap.kind, path);
    });
  }
  const w = parsed.world;
  return {
    route: parsed.route,
    subject: parsed.subject,
    required: required.map(toCapability),
    preferred: preferred.map(toCapability),
    world: w
      ? {
          source: w.source,
          platform: w.platform,
          features: w.features,
          ...(w.configuration_digest && isDigest(w.configuration_digest) ? { configuration_digest: w.configuration_digest } : {}),
          ...(w.toolchain_digest && isDigest(w.toolchain_digest) ? { toolchain_digest: w.toolchain_digest } : {}),
        }
      : DEFAULT_WORLD,
    task: parsed.task,
  };
}

const REASON_MAX_BYTES = MCP.maxReasonBytes;
const reason = string({ maxBytes: REASON_MAX_BYTES, description: 'what happened and what to do next' });
const artifactIds = array(digest(), { max: RESOLVER.maxArtifactsPerPlan });
const claimIds = array(digest(), { max: NEED.maxClaimIds });

const resolution = tagged('kind', {
  exact_hit: object({ kind: literal('exact_hit'), artifact_ids: artifactIds, certificate_id: nullable(digest()), plan_id: nullable(digest()) }),
  coverage_hit: object({ kind: literal('coverage_hit'), artifact_ids: artifactIds, certificate_id: nullable(digest()), plan_id: nullable(digest()) }),
  composite_hit: object({ kind: literal('composite_hit'), artifact_ids: artifactIds, certificate_id: nullable(digest()), plan_id: nullable(digest()) }),
  claim_hit: object({ kind: literal('claim_hit'), artifact_ids: artifactIds, claim_ids: claimIds, certificate_id: nullable(digest()), plan_id: nullable(digest()) }),
  claim_composite_hit: object({
    kind: literal('claim_composite_hit'),
    artifact_ids: artifactIds,
    claim_ids: claimIds,
    certificate_id: nullable(digest()),
    plan_id: nullable(digest()),
  }),
  partial_hit: object({ kind: literal('partial_hit'), artifact_ids: artifactIds, claim_ids: claimIds, plan_id: nullable(digest()), reason: optional(reason) }),
  miss: object({ kind: literal('miss'), reason: optional(reason) }),
  stale: object({ kind: literal('stale'), artifact_ids: artifactIds, reason }),
  rejected: object({ kind: literal('rejected'), reason }),
  ambiguous: object({ kind: literal('ambiguous'), reason }),
  contradicted: object({ kind: literal('contradicted'), reason }),
  bypass: object({ kind: literal('bypass'), reason }),
});

const predicateList = array(enumOf(PREDICATES), { max: PREDICATES.length, unique: true });

export const NEED_STATUSES = ANSWER_STATUSES;

export const needContextOutputSchema = object({
  status: enumOf(NEED_STATUSES),
  route: string({ minBytes: 1, maxBytes: 64 }),
  subject: object({ kind: enumOf(SUBJECT_KINDS), name: string({ minBytes: 1, maxBytes: NEED.subjectNameMaxBytes }) }),
  need_id: digest(),
  step: object({ ordinal: integer({ min: 1 }), relation: enumOf(RELATIONS) }),
  satisfied: predicateList,
  missing: predicateList,
  resolution,
  reuse_unit: enumOf(REUSE_UNITS),
  claim_ids: claimIds,
  cache_hit: boolean(),
  worker_spawned: boolean(),
  result_digest: digest(),
  context: string({ maxBytes: MCP.maxContextBytes, description: 'the bounded FrontierView text; equals content[0].text' }),
});
export type NeedContextOutput = Infer<typeof needContextOutputSchema>;
