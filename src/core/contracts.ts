// Evidence contracts (SPEC §6): the one closed schema per predicate that every
// worker — static or model — must produce. Validators, the Codex output schema
// and storage all derive from these definitions.
import { EVIDENCE } from './limits.js';
import { array, enumOf, integer, literal, nullable, object, string, type Infer, type Schema } from './schema.js';
import type { Predicate } from './semantic.js';

const path = string({ minBytes: 1, maxBytes: EVIDENCE.pathMaxBytes, description: 'repository-relative path with / separators' });
const gaps = array(string({ nonBlank: true, maxBytes: EVIDENCE.gapMaxBytes }), { max: EVIDENCE.maxGaps });
const line = integer({ min: 1 });

export const LOCATION_ROLES = ['primary', 'supporting'] as const;
export const FLOW_ROLES = ['producer', 'carrier', 'transformation', 'precedence', 'consumer'] as const;
export type FlowRole = (typeof FLOW_ROLES)[number];
export const TEST_RUNNERS = ['cargo', 'npm', 'npx', 'pytest', 'go'] as const;
export type TestRunner = (typeof TEST_RUNNERS)[number];

export const locationSchema = object({
  role: enumOf(LOCATION_ROLES),
  path,
  symbol: nullable(string({ minBytes: 1, maxBytes: EVIDENCE.symbolMaxBytes })),
  start_line: line,
  end_line: line,
});
export type Location = Infer<typeof locationSchema>;

export const implementationLocationSchema = object({
  locations: array(locationSchema, { min: 1, max: EVIDENCE.maxLocations }),
  gaps,
});
export type ImplementationLocation = Infer<typeof implementationLocationSchema>;

export const flowStepSchema = object({
  role: enumOf(FLOW_ROLES),
  location: locationSchema,
  description: string({ nonBlank: true, maxBytes: EVIDENCE.descriptionMaxBytes }),
});
export type FlowStep = Infer<typeof flowStepSchema>;

export const runtimeFlowSchema = object({
  scenario: literal('default'),
  steps: array(flowStepSchema, { min: 1, max: EVIDENCE.maxFlowSteps }),
  gaps,
});
export type RuntimeFlow = Infer<typeof runtimeFlowSchema>;

export const focusedTestsSchema = object({
  runner: enumOf(TEST_RUNNERS),
  argv: array(string({ nonBlank: true, maxBytes: EVIDENCE.argMaxBytes }), { min: EVIDENCE.minArgv, max: EVIDENCE.maxArgv }),
  cwd_relative: string({ minBytes: 1, maxBytes: EVIDENCE.pathMaxBytes }),
  identifier: string({ nonBlank: true, maxBytes: EVIDENCE.symbolMaxBytes }),
  selection: literal('representative'),
  location: locationSchema,
  evidence_paths: array(path, { min: 1, max: EVIDENCE.maxEvidencePaths, unique: true }),
});
export type FocusedTests = Infer<typeof focusedTestsSchema>;

export interface PayloadByPredicate {
  implementation_location: ImplementationLocation;
  runtime_flow: RuntimeFlow;
  focused_tests: FocusedTests;
}

export const PAYLOAD_SCHEMAS: { [P in Predicate]: Schema<PayloadByPredicate[P]> } = {
  implementation_location: implementationLocationSchema,
  runtime_flow: runtimeFlowSchema,
  focused_tests: focusedTestsSchema,
};

/** A worker's proposal for one predicate; only a proposal until a validator certifies it. */
export type Proposal = {
  [P in Predicate]: { readonly predicate: P; readonly payload: PayloadByPredicate[P] };
}[Predicate];
