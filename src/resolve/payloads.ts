// Stored evidence payloads parsed with the same schema language as everything
// else (issue "Code health" 4): a row of an older or damaged shape is not
// servable (the cache plan treats it as stale) instead of crashing a request
// on a cast.
import { flowStepSchema, focusedTestsSchema, locationSchema, PAYLOAD_SCHEMAS, type FlowStep, type FocusedTests, type Location } from '../core/contracts.js';
import { integer, literal, object, string, tagged, type Infer } from '../core/schema.js';
import type { Predicate } from '../core/semantic.js';
import type { CertificateRow, ClaimRow } from '../store/evidence/certificates.js';

export const claimPayloadSchema = tagged('kind', {
  location: object({ kind: literal('location'), location: locationSchema }),
  flow_step: object({
    kind: literal('flow_step'),
    anchor: string({ pattern: /^b3:[0-9a-f]{64}$/ }),
    ordinal: integer({ min: 0 }),
    step: flowStepSchema,
  }),
  focused_test: object({ kind: literal('focused_test'), plan: focusedTestsSchema }),
});
export type StoredClaimPayload = Infer<typeof claimPayloadSchema>;

/** What a served unit shows, typed: parsed once when the unit is planned. */
export type ServedPayload =
  | { readonly predicate: 'implementation_location'; readonly locations: readonly Location[] }
  | { readonly predicate: 'runtime_flow'; readonly scenario: string; readonly steps: readonly FlowStep[] }
  | { readonly predicate: 'focused_tests'; readonly plan: FocusedTests };

function attempt<T>(f: () => T): T | null {
  try {
    return f();
  } catch {
    return null;
  }
}

/** The artifact payload of `cert` as its predicate's contract, or null when the stored row does not parse. */
export function artifactPayload(cert: CertificateRow): ServedPayload | null {
  const p: Predicate = cert.predicate;
  if (p === 'implementation_location') {
    const v = attempt(() => PAYLOAD_SCHEMAS.implementation_location.parse(cert.payload, 'payload'));
    return v && { predicate: p, locations: v.locations };
  }
  if (p === 'runtime_flow') {
    const v = attempt(() => PAYLOAD_SCHEMAS.runtime_flow.parse(cert.payload, 'payload'));
    return v && { predicate: p, scenario: v.scenario, steps: v.steps };
  }
  const v = attempt(() => PAYLOAD_SCHEMAS.focused_tests.parse(cert.payload, 'payload'));
  return v && { predicate: 'focused_tests', plan: v };
}

/** Each claim's payload, or null when any of them does not parse (the unit is then unusable). */
export function claimPayloads(claims: readonly ClaimRow[]): StoredClaimPayload[] | null {
  const out: StoredClaimPayload[] = [];
  for (const c of claims) {
    const v = attempt(() => claimPayloadSchema.parse(c.payload, 'payload'));
    if (!v || v.kind !== c.kind) return null;
    out.push(v);
  }
  return out;
}

/** The payload a claim unit serves, from parsed claims of one predicate; null when they do not fit it. */
export function claimUnitPayload(predicate: Predicate, payloads: readonly StoredClaimPayload[]): ServedPayload | null {
  if (predicate === 'implementation_location') {
    const locations = payloads.flatMap((p) => (p.kind === 'location' ? [p.location] : []));
    return locations.length === payloads.length ? { predicate, locations } : null;
  }
  if (predicate === 'runtime_flow') {
    const steps = payloads.flatMap((p) => (p.kind === 'flow_step' ? [p.step] : []));
    return steps.length === payloads.length ? { predicate, scenario: 'default', steps } : null;
  }
  const first = payloads[0];
  return payloads.length === 1 && first?.kind === 'focused_test' ? { predicate: 'focused_tests', plan: first.plan } : null;
}
