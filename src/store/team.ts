// Local rows of the team cache (migration 006): where an imported certificate
// came from, remote rows rejected for given local bytes, what this data
// directory published, and counters. The certificates themselves live in the
// evidence tables like every other certified artifact.
import type { Digest } from '../core/digest.js';
import type { Db } from './db.js';

export interface TeamImport {
  readonly certificateId: Digest;
  /** The team cache's URL with the password masked. */
  readonly origin: string;
  readonly publisher: string;
  readonly workerModel: string | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number | null;
}

export function recordImport(db: Db, row: TeamImport, nowMs: number): void {
  db.prepare(
    `INSERT OR IGNORE INTO team_imports
       (certificate_id, origin, publisher, worker_model, input_tokens, output_tokens, cost_usd, imported_unix_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(row.certificateId, row.origin, row.publisher, row.workerModel, row.inputTokens, row.outputTokens, row.costUsd, nowMs);
}

export function importOf(db: Db, certificateId: string): (TeamImport & { importedUnixMs: number }) | null {
  const r = db.prepare('SELECT * FROM team_imports WHERE certificate_id = ?').get(certificateId) as
    | { certificate_id: Digest; origin: string; publisher: string; worker_model: string | null; input_tokens: number; output_tokens: number; cost_usd: number | null; imported_unix_ms: number }
    | undefined;
  if (!r) return null;
  return {
    certificateId: r.certificate_id,
    origin: r.origin,
    publisher: r.publisher,
    workerModel: r.worker_model,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    costUsd: r.cost_usd,
    importedUnixMs: r.imported_unix_ms,
  };
}

/** Whether this remote certificate was already rejected for exactly these local bytes. */
export function wasRejected(db: Db, certificateId: string, localBytes: Digest): boolean {
  return db.prepare('SELECT 1 FROM team_rejections WHERE certificate_id = ? AND local_bytes = ?').get(certificateId, localBytes) !== undefined;
}

export function recordTeamRejection(db: Db, certificateId: string, localBytes: Digest, reason: string, detail: string, nowMs: number): boolean {
  const inserted = db
    .prepare('INSERT OR IGNORE INTO team_rejections (certificate_id, local_bytes, reason, detail, created_unix_ms) VALUES (?, ?, ?, ?, ?)')
    .run(certificateId, localBytes, reason, detail.slice(0, 500), nowMs).changes;
  return inserted > 0;
}

export function wasPublished(db: Db, certificateId: string): boolean {
  return db.prepare('SELECT 1 FROM team_publications WHERE certificate_id = ?').get(certificateId) !== undefined;
}

export function recordPublication(db: Db, certificateId: string, nowMs: number): void {
  db.prepare('INSERT OR IGNORE INTO team_publications (certificate_id, published_unix_ms) VALUES (?, ?)').run(certificateId, nowMs);
}

export function bumpTeamCounter(db: Db, name: string, by = 1): void {
  db.prepare('INSERT INTO team_counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value').run(name, by);
}

export interface TeamStats {
  readonly teamHits: number;
  readonly imported: number;
  readonly published: number;
  readonly rejected: number;
  readonly rejectedByReason: Readonly<Record<string, number>>;
  readonly unreachable: number;
  /** What the imported evidence cost its publisher (the worker runs this clone did not pay for). */
  readonly tokensAvoided: number;
  readonly costAvoidedUsd: number | null;
}

export function teamStats(db: Db): TeamStats {
  const counter = (name: string) => (db.prepare('SELECT value FROM team_counters WHERE name = ?').get(name) as { value: number } | undefined)?.value ?? 0;
  const reasons = db.prepare('SELECT reason, count(*) AS n FROM team_rejections GROUP BY reason ORDER BY reason').all() as { reason: string; n: number }[];
  const imports = db
    .prepare('SELECT count(*) AS n, coalesce(sum(input_tokens + output_tokens), 0) AS tokens, sum(cost_usd) AS cost, sum(cost_usd IS NULL) AS unknown FROM team_imports')
    .get() as { n: number; tokens: number; cost: number | null; unknown: number | null };
  return {
    teamHits: counter('team_hits'),
    imported: imports.n,
    published: (db.prepare('SELECT count(*) AS n FROM team_publications').get() as { n: number }).n,
    rejected: reasons.reduce((s, r) => s + r.n, 0),
    rejectedByReason: Object.fromEntries(reasons.map((r) => [r.reason, r.n])),
    unreachable: counter('unreachable'),
    tokensAvoided: imports.tokens,
    costAvoidedUsd: (imports.unknown ?? 0) > 0 ? null : (imports.cost ?? 0),
  };
}
