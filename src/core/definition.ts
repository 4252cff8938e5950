// The digest of the whole semantic definition — vocabulary, route contracts
// and evidence contracts — that every transport freezes with a session.
import { PAYLOAD_SCHEMAS } from './contracts.js';
import { canonical, type Digest } from './digest.js';
import { stableStringify } from './schema.js';
import { FACETS, PREDICATES, ROUTES, SUBJECT_KINDS } from './semantic.js';

/** Digest of the whole semantic definition: vocabulary, route contracts and evidence contracts. */
export const SEMANTIC_DIGEST: Digest = canonical('semantic-definition')
  .text(
    stableStringify({
      subject_kinds: SUBJECT_KINDS,
      predicates: PREDICATES,
      facets: FACETS,
      routes: ROUTES,
      contracts: Object.fromEntries(PREDICATES.map((p) => [p, PAYLOAD_SCHEMAS[p].json])),
    }),
  )
  .finish();

