// Certified evidence handed to verified changes (SPEC §14): what the resolver
// loads for `artifact_ids`/`claim_ids` and what the change workflow consumes.
// Defined here because neither side may import the other.
import type { FocusedTests } from './contracts.js';
import type { Digest } from './digest.js';

export interface CertifiedEvidenceIds {
  readonly artifactIds: readonly string[];
  readonly claimIds: readonly string[];
}

/** One piece of certified evidence, labelled and serialized for an implementer's prompt. */
export interface CertifiedItem {
  readonly id: Digest;
  readonly kind: 'artifact' | 'claim';
  /** `predicate subject path:lines`, e.g. `focused_tests symbol:multiply test/mul.test.mjs:4-6`. */
  readonly label: string;
  /** Canonical JSON of the evidence, at most CHANGE_RUN.maxContextItemBytes. */
  readonly json: string;
}

/** A certified focused test with the whole-file digests its certification rests on. */
export interface CertifiedTestPlan {
  readonly source_id: Digest;
  readonly plan: FocusedTests;
  readonly dependencies: readonly { readonly path: string; readonly digest: Digest }[];
}

export interface CertifiedEvidence {
  readonly items: readonly CertifiedItem[];
  readonly testPlans: readonly CertifiedTestPlan[];
}
