// Accounting rows (SPEC §10.9): the worker runs of need resolutions (written
// to the one run table by store/worker-runs.ts) with their usage and price,
// every rejected proposal with its reasons, every resolution, and for each hit
// the original worker runs whose cost it avoided.
import type { Digest } from '../../core/digest.js';
import type { Db } from '../db.js';
import { statement } from '../statements.js';
import { usdOf, type RunUsageFields, type WorkerRunRecord } from '../worker-runs.js';

export function recordRejection(
  db: Db,
  r: { needId: Digest; workerRunId: number | null; predicate: string | null; reasons: readonly string[]; payload: unknown },
  nowMs: number,
): void {
  statement(
    db,
    'INSERT INTO evidence_rejections (need_id, worker_run_id, predicate, reasons, payload, created_unix_ms) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(r.needId, r.workerRunId, r.predicate, JSON.stringify(r.reasons), JSON.stringify(r.payload ?? null), nowMs);
}

export interface RejectionRow {
  readonly needId: string;
  readonly predicate: string | null;
  readonly reasons: string[];
  readonly createdUnixMs: number;
}

export function rejectionsForNeed(db: Db, needId: string): RejectionRow[] {
  return (
    db
      .prepare('SELECT need_id, predicate, reasons, created_unix_ms FROM evidence_rejections WHERE need_id = ? ORDER BY id')
      .all(needId) as { need_id: string; predicate: string | null; reasons: string; created_unix_ms: number }[]
  ).map((r) => ({ needId: r.need_id, predicate: r.predicate, reasons: JSON.parse(r.reasons) as string[], createdUnixMs: r.created_unix_ms }));
}

export interface NewResolution {
  readonly needId: Digest;
  /** The repository the need was asked in, whatever the transport (CLI, MCP, hook); null when unknown. */
  readonly repositoryRoot: string | null;
  readonly requestDigest: Digest;
  readonly route: string;
  readonly subjectKind: string;
  readonly subjectName: string;
  readonly kind: string;
  readonly satisfied: readonly string[];
  readonly missing: readonly string[];
  readonly cacheHit: boolean;
  readonly workersRun: number;
  readonly sufficiencyId: Digest | null;
  readonly contextBytes: number;
  /** The context text served (what the main model read); kept for the control plane. */
  readonly contextText?: string;
  readonly durationMs: number;
  /** Worker runs whose results this resolution reused instead of running again. */
  readonly avoidedRuns: readonly number[];
}

export function recordResolution(db: Db, r: NewResolution, nowMs: number): number {
  return db.transaction(() => {
    const row = statement(
      db,
      `INSERT INTO evidence_resolutions (need_id, request_digest, route, subject_kind, subject_name, resolution_kind,
           satisfied, missing, cache_hit, workers_run, sufficiency_id, context_bytes, context_text, duration_ms, created_unix_ms, repository_root)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
        r.needId,
        r.requestDigest,
        r.route,
        r.subjectKind,
        r.subjectName,
        r.kind,
        JSON.stringify(r.satisfied),
        JSON.stringify(r.missing),
        r.cacheHit ? 1 : 0,
        r.workersRun,
        r.sufficiencyId,
        r.contextBytes,
        r.contextText ?? null,
        r.durationMs,
        nowMs,
        r.repositoryRoot,
      );
    const id = Number(row.lastInsertRowid);
    const avoided = statement(db, 'INSERT OR IGNORE INTO evidence_avoided_runs (resolution_id, worker_run_id) VALUES (?, ?)');
    for (const run of new Set(r.avoidedRuns)) avoided.run(id, run);
    return id;
  })();
}

export interface ResolutionRow {
  readonly id: number;
  readonly needId: string;
  readonly route: string;
  readonly subject: string;
  readonly kind: string;
  readonly satisfied: string[];
  readonly missing: string[];
  readonly cacheHit: boolean;
  readonly workersRun: number;
  readonly contextBytes: number;
  readonly durationMs: number;
  readonly createdUnixMs: number;
}

/** The stored columns every view of a resolution reads. */
export interface StoredResolution {
  id: number;
  need_id: string;
  route: string;
  subject_kind: string;
  subject_name: string;
  resolution_kind: string;
  satisfied: string;
  missing: string;
  cache_hit: number;
  workers_run: number;
  context_bytes: number;
  duration_ms: number;
  created_unix_ms: number;
}

/** One stored resolution row as `needle needs` lists it (the control plane adds its own columns). */
export function resolutionFrom(r: StoredResolution): ResolutionRow {
  return {
    id: r.id,
    needId: r.need_id,
    route: r.route,
    subject: `${r.subject_kind}:${r.subject_name}`,
    kind: r.resolution_kind,
    satisfied: JSON.parse(r.satisfied) as string[],
    missing: JSON.parse(r.missing) as string[],
    cacheHit: r.cache_hit === 1,
    workersRun: r.workers_run,
    contextBytes: r.context_bytes,
    durationMs: r.duration_ms,
    createdUnixMs: r.created_unix_ms,
  };
}

export function recentResolutions(db: Db, limit: number): ResolutionRow[] {
  return (
    db
      .prepare(
        `SELECT id, need_id, route, subject_kind, subject_name, resolution_kind, satisfied, missing, cache_hit, workers_run,
           context_bytes, duration_ms, created_unix_ms FROM evidence_resolutions ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as StoredResolution[]
  ).map(resolutionFrom);
}

export interface StatsRow {
  readonly route: string;
  readonly model: string;
  readonly resolutions: number;
  readonly hits: number;
  readonly workerRuns: number;
  /** Input plus output tokens of the runs (cached input included in input). */
  readonly tokensSpent: number;
  readonly workersAvoided: number;
  readonly tokensAvoided: number;
  /** Null when any avoided run had an unknown price. */
  readonly costAvoidedUsd: number | null;
  readonly costSpentUsd: number | null;
}

/** Per route and model: what ran, what hits avoided (from the original runs' usage). */
export function stats(db: Db): StatsRow[] {
  const byKey = new Map<string, StatsRow & { unknownAvoided: boolean; unknownSpent: boolean }>();
  const get = (route: string, model: string) => {
    const key = `${route}\0${model}`;
    let row = byKey.get(key);
    if (!row) {
      row = { route, model, resolutions: 0, hits: 0, workerRuns: 0, tokensSpent: 0, workersAvoided: 0, tokensAvoided: 0, costAvoidedUsd: 0, costSpentUsd: 0, unknownAvoided: false, unknownSpent: false };
      byKey.set(key, row);
    }
    return row as { -readonly [K in keyof typeof row]: (typeof row)[K] };
  };
  for (const r of db
    .prepare('SELECT route, COUNT(*) AS n, SUM(cache_hit) AS hits FROM evidence_resolutions GROUP BY route')
    .all() as { route: string; n: number; hits: number }[]) {
    const row = get(r.route, '*');
    row.resolutions = r.n;
    row.hits = r.hits;
  }
  for (const r of db
    .prepare(
      `SELECT route, COALESCE(model, worker) AS model, COUNT(*) AS n, SUM(input_tokens + output_tokens) AS tokens,
         SUM(price_microusd IS NULL) AS unknown, COALESCE(SUM(price_microusd), 0) AS cost
       FROM worker_runs WHERE need_id IS NOT NULL GROUP BY route, COALESCE(model, worker)`,
    )
    .all() as { route: string; model: string; n: number; tokens: number; unknown: number; cost: number }[]) {
    const row = get(r.route, r.model);
    row.workerRuns = r.n;
    row.tokensSpent = r.tokens;
    row.costSpentUsd = usdOf(r.cost);
    row.unknownSpent = r.unknown > 0;
  }
  for (const r of db
    .prepare(
      `SELECT s.route, COALESCE(w.model, w.worker) AS model, COUNT(*) AS n,
         SUM(w.input_tokens + w.output_tokens) AS tokens, SUM(w.price_microusd IS NULL) AS unknown, COALESCE(SUM(w.price_microusd), 0) AS cost
       FROM evidence_avoided_runs v JOIN evidence_resolutions s ON s.id = v.resolution_id
       JOIN worker_runs w ON w.id = v.worker_run_id GROUP BY s.route, COALESCE(w.model, w.worker)`,
    )
    .all() as { route: string; model: string; n: number; tokens: number; unknown: number; cost: number }[]) {
    const row = get(r.route, r.model);
    row.workersAvoided = r.n;
    row.tokensAvoided = r.tokens;
    row.costAvoidedUsd = usdOf(r.cost);
    row.unknownAvoided = r.unknown > 0;
  }
  return [...byKey.values()]
    .map(({ unknownAvoided, unknownSpent, ...row }) => ({
      ...row,
      costAvoidedUsd: unknownAvoided ? null : row.costAvoidedUsd,
      costSpentUsd: unknownSpent ? null : row.costSpentUsd,
    }))
    .sort((a, b) => (a.route === b.route ? (a.model < b.model ? -1 : 1) : a.route < b.route ? -1 : 1));
}

export interface SufficiencyRow {
  readonly id: Digest;
  readonly needId: Digest;
  readonly worldId: Digest;
  readonly kind: string;
  readonly obligations: unknown;
  readonly units: unknown;
  readonly createdUnixMs: number;
}

export function storeSufficiency(db: Db, s: Omit<SufficiencyRow, 'createdUnixMs'>, nowMs: number): void {
  statement(
    db,
    `INSERT OR IGNORE INTO evidence_sufficiency (id, need_id, world_id, resolution_kind, obligations, units, created_unix_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(s.id, s.needId, s.worldId, s.kind, JSON.stringify(s.obligations), JSON.stringify(s.units), nowMs);
}

function toSufficiency(r: { id: string; need_id: string; world_id: string; resolution_kind: string; obligations: string; units: string; created_unix_ms: number }): SufficiencyRow {
  return {
    id: r.id as Digest,
    needId: r.need_id as Digest,
    worldId: r.world_id as Digest,
    kind: r.resolution_kind,
    obligations: JSON.parse(r.obligations) as unknown,
    units: JSON.parse(r.units) as unknown,
    createdUnixMs: r.created_unix_ms,
  };
}

/** Sufficiency certificates whose plan used the certificate `certificateId` (newest first). */
export function sufficiencyUsing(db: Db, certificateId: string, limit: number): SufficiencyRow[] {
  return (
    db
      .prepare(`SELECT * FROM evidence_sufficiency WHERE instr(units, ?) > 0 ORDER BY created_unix_ms DESC, id LIMIT ?`)
      .all(certificateId, limit) as Parameters<typeof toSufficiency>[0][]
  ).map(toSufficiency);
}

export function getSufficiency(db: Db, id: string): SufficiencyRow | null {
  const r = db.prepare('SELECT * FROM evidence_sufficiency WHERE id = ?').get(id) as Parameters<typeof toSufficiency>[0] | undefined;
  return r ? toSufficiency(r) : null;
}

export interface WorkerRunRow extends RunUsageFields {
  readonly id: number;
  readonly needId: string;
  readonly route: string;
  /** The same price in USD, for display. */
  readonly costUsd: number | null;
  readonly createdUnixMs: number;
  /** The proposals of this run the validators rejected, with their reasons. */
  readonly rejections: readonly { readonly predicate: string | null; readonly reasons: readonly string[] }[];
}


/** The typed run of a stored row of a need's resolution (without its rejections). */
export const workerRunFrom = (r: WorkerRunRecord): Omit<WorkerRunRow, 'rejections'> => ({
  id: r.id,
  needId: r.need_id ?? '',
  route: r.route ?? '',
  worker: r.worker,
  model: r.model,
  outcome: r.outcome,
  inputTokens: r.input_tokens,
  cachedInputTokens: r.cached_input_tokens,
  outputTokens: r.output_tokens,
  priceMicroUsd: r.price_microusd,
  costUsd: usdOf(r.price_microusd),
  durationMs: r.duration_ms,
  createdUnixMs: r.created_unix_ms,
});

/** The most recent worker runs of the ladder (every worker, static included), newest first, with their rejections. */
export function recentWorkerRuns(db: Db, limit: number): WorkerRunRow[] {
  const rejections = db.prepare('SELECT predicate, reasons FROM evidence_rejections WHERE worker_run_id = ? ORDER BY id');
  return (
    db
      .prepare(
        `SELECT * FROM worker_runs WHERE need_id IS NOT NULL ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as WorkerRunRecord[]
  ).map((r) => ({
    ...workerRunFrom(r),
    rejections: (rejections.all(r.id) as { predicate: string | null; reasons: string }[]).map((x) => ({ predicate: x.predicate, reasons: JSON.parse(x.reasons) as string[] })),
  }));
}
