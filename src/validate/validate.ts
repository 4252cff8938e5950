// The trusted validator (SPEC §8): a worker proposal is parsed with its closed
// contract schema, checked against the snapshot bytes, and its coverage — the
// facets it proves — is derived here, never taken from the worker.
import { PAYLOAD_SCHEMAS, type PayloadByPredicate } from '../core/contracts.js';
import type { CompiledNeed, Obligation } from '../core/need.js';
import { SchemaError } from '../core/schema.js';
import { PREDICATES, facetsSatisfy, fullFacets, type Facets, type Predicate } from '../core/semantic.js';
import { checkFlow } from './flow.js';
import { checkFocusedTests } from './focused-tests.js';
import { checkLocation } from './location.js';
import type { SnapshotReader } from './snapshot-reader.js';

export type ValidatedProposal = {
  [P in Predicate]: {
    readonly ok: true;
    readonly predicate: P;
    readonly payload: PayloadByPredicate[P];
    /** Facets the validator proved. */
    readonly facets: Facets;
    /** The need's obligations (required and preferred) these facets satisfy. */
    readonly obligations: readonly Obligation[];
  };
}[Predicate];

export interface RejectedProposal {
  readonly ok: false;
  readonly predicate: Predicate | null;
  readonly reasons: readonly string[];
}

export type Verdict = ValidatedProposal | RejectedProposal;

function withoutFacet(facets: Facets, key: string): Facets {
  return Object.fromEntries(Object.entries(facets).filter(([k]) => k !== key));
}

interface Derived {
  readonly reasons: string[];
  readonly facets: Facets;
  /** Why some facet was not proven, reported when no obligation is satisfied. */
  readonly shortfall: string[];
}

function derive<P extends Predicate>(reader: SnapshotReader, need: CompiledNeed, predicate: P, payload: PayloadByPredicate[P]): Derived {
  const subject = need.subject;
  if (predicate === 'implementation_location') {
    const il = payload as PayloadByPredicate['implementation_location'];
    const reasons = il.locations.flatMap((loc, i) =>
      checkLocation(reader, loc, { subject, primary: loc.role === 'primary', at: `locations[${i}]` }),
    );
    if (!il.locations.some((l) => l.role === 'primary')) reasons.push('no primary location');
    const full = fullFacets('implementation_location');
    // Gaps mean the worker could not pin the construct exactly.
    const facets = il.gaps.length === 0 ? full : withoutFacet(full, 'granularity');
    return { reasons, facets, shortfall: il.gaps.length ? [`the worker recorded ${il.gaps.length} gap(s)`] : [] };
  }
  if (predicate === 'runtime_flow') {
    const verdict = checkFlow(reader, payload as PayloadByPredicate['runtime_flow'], subject);
    const full = fullFacets('runtime_flow');
    const facets = verdict.incomplete.length === 0 ? full : withoutFacet(full, 'completeness');
    return { reasons: verdict.reasons, facets, shortfall: verdict.incomplete.map((r) => `not contract_complete: ${r}`) };
  }
  const reasons = checkFocusedTests(reader, payload as PayloadByPredicate['focused_tests'], subject);
  return { reasons, facets: fullFacets('focused_tests'), shortfall: [] };
}

/** Every repository path a parsed payload cites. */
function citedPaths<P extends Predicate>(predicate: P, payload: PayloadByPredicate[P]): string[] {
  if (predicate === 'implementation_location') return (payload as PayloadByPredicate['implementation_location']).locations.map((l) => l.path);
  if (predicate === 'runtime_flow') return (payload as PayloadByPredicate['runtime_flow']).steps.map((s) => s.location.path);
  const tests = payload as PayloadByPredicate['focused_tests'];
  return [tests.location.path, ...tests.evidence_paths];
}

/**
 * The paths a batch of raw proposals cites (those whose payload parses), so
 * that snapshot membership is looked up for all of them with one git call
 * (SnapshotReader.prime with a shared membership map).
 */
export function citedByProposals(proposals: readonly { readonly predicate: unknown; readonly payload: unknown }[]): string[] {
  const out: string[] = [];
  for (const raw of proposals) {
    const predicate = PREDICATES.find((p) => p === raw.predicate);
    if (predicate === undefined) continue;
    try {
      out.push(...citedPaths(predicate, PAYLOAD_SCHEMAS[predicate].parse(raw.payload, 'payload')));
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
    }
  }
  return out;
}

/** Validates one raw proposal for `need`; `wanted` are the obligations the worker was asked for. */
export function validateProposal(
  reader: SnapshotReader,
  need: CompiledNeed,
  wanted: readonly Obligation[],
  raw: { readonly predicate: unknown; readonly payload: unknown },
): Verdict {
  const predicate = PREDICATES.find((p) => p === raw.predicate) ?? null;
  if (predicate === null) return { ok: false, predicate: null, reasons: [`unknown predicate ${String(raw.predicate).slice(0, 40)}`] };
  const asked = wanted.filter((o) => o.predicate === predicate);
  if (asked.length === 0) return { ok: false, predicate, reasons: [`${predicate} was not asked for`] };
  let payload: PayloadByPredicate[typeof predicate];
  try {
    payload = PAYLOAD_SCHEMAS[predicate].parse(raw.payload, 'payload');
  } catch (e) {
    if (e instanceof SchemaError) return { ok: false, predicate, reasons: [e.message] };
    throw e;
  }
  reader.prime(citedPaths(predicate, payload));

  const derived = derive(reader, need, predicate, payload);
  if (derived.reasons.length > 0) return { ok: false, predicate, reasons: derived.reasons };
  const obligations = asked.filter((o) => facetsSatisfy(derived.facets, o.facets));
  if (obligations.length === 0)
    return { ok: false, predicate, reasons: derived.shortfall.length ? derived.shortfall : ['proves none of the requested facets'] };
  return { ok: true, predicate, payload, facets: derived.facets, obligations } as ValidatedProposal;
}
