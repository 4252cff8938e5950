import type { Migration } from './index.js';

// One counter that moves whenever anything a cache plan reads changes: a
// certificate issued or invalidated, an artifact, claim, dependency or
// negative outcome written or removed — by this process or any other. A
// resolver that remembers a decided hit (resolve/hit-memo.ts) reuses it only
// while the counter is where it was, so reading one row replaces re-planning
// without ever missing a certification or an invalidation. Bookkeeping tables
// (steps, resolutions, worker runs) are not counted: they change on every
// request and never decide what is servable.
const SERVABLE_TABLES = [
  'evidence_artifacts',
  'evidence_certificates',
  'evidence_dependencies',
  'evidence_claims',
  'evidence_claim_origins',
  'evidence_claim_dependencies',
  'evidence_certifications',
  'evidence_negative_outcomes',
  'evidence_negative_dependencies',
  'evidence_negative_certifications',
] as const;

const triggers = SERVABLE_TABLES.flatMap((table) =>
  (['INSERT', 'UPDATE', 'DELETE'] as const).map(
    (event) =>
      `CREATE TRIGGER ${table}_${event.toLowerCase()}_generation AFTER ${event} ON ${table}
BEGIN UPDATE evidence_generation SET n = n + 1 WHERE id = 1; END;`,
  ),
).join('\n');

export const evidenceGeneration: Migration = {
  id: 8,
  name: 'evidence_generation',
  sql: `
CREATE TABLE evidence_generation (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n INTEGER NOT NULL
) STRICT;
INSERT INTO evidence_generation (id, n) VALUES (1, 0);
${triggers}
`,
};
