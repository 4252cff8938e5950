// Read-only queries behind the control plane (`needle ui`): resolutions paged
// by id with filters (indexed, migrations 007 and 009), what one need caused, daily
// series for the plots and a cheap activity fingerprint for live updates.
import type { Db } from '../db.js';
import { resolutionFrom, workerRunFrom, type ResolutionRow, type StoredResolution, type WorkerRunRow } from './accounting.js';
import { usdOf, type WorkerRunRecord } from '../worker-runs.js';

export interface NeedFilter {
  readonly route?: string;
  readonly kind?: string;
  readonly repository?: string;
  /** Only rows with a smaller id (keyset pagination, newest first). */
  readonly before?: number;
  readonly limit: number;
}

/** A resolution as the control plane shows it: the `needle needs` row and what only the pages use. */
export interface ResolutionDetail extends ResolutionRow {
  /** The repository the need was asked in; null for rows no transport attributed. */
  readonly repository: string | null;
  readonly requestDigest: string;
  readonly sufficiencyId: string | null;
  /** The context text served; null for rows recorded before migration 007. */
  readonly contextText: string | null;
}

interface RawResolution extends StoredResolution {
  repository_root: string | null;
  request_digest: string;
  sufficiency_id: string | null;
  context_text: string | null;
}

const toDetail = (r: RawResolution): ResolutionDetail => ({
  ...resolutionFrom(r),
  repository: r.repository_root,
  requestDigest: r.request_digest,
  sufficiencyId: r.sufficiency_id,
  contextText: r.context_text,
});

/**
 * The query behind one page (exported so a test can EXPLAIN exactly it): each
 * filter is an equality on a column indexed together with id (migrations 007,
 * 009), so a page is an index range walked newest first, never a scan.
 */
export function resolutionPageQuery(f: NeedFilter): { sql: string; args: (string | number)[] } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const add = (clause: string, value: string | number) => {
    where.push(clause);
    args.push(value);
  };
  if (f.route) add('route = ?', f.route);
  if (f.kind) add('resolution_kind = ?', f.kind);
  if (f.repository) add('repository_root = ?', f.repository);
  // Always a bound on id, even on the first page: every page is then a range
  // search walked newest first (never a table scan in any plan), stopped by LIMIT.
  add('id < ?', f.before ?? Number.MAX_SAFE_INTEGER);
  const sql = `SELECT id, need_id, request_digest, route, subject_kind, subject_name, resolution_kind, satisfied, missing, cache_hit, workers_run,
      sufficiency_id, context_bytes, NULL AS context_text, duration_ms, created_unix_ms, repository_root FROM evidence_resolutions WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`;
  return { sql, args: [...args, f.limit + 1] };
}

/** One page of resolutions, newest first, and the id to continue before (null on the last page). */
export function pageResolutions(db: Db, f: NeedFilter): { rows: ResolutionDetail[]; next: number | null } {
  const q = resolutionPageQuery(f);
  const raw = db.prepare(q.sql).all(...q.args) as RawResolution[];
  const rows = raw.slice(0, f.limit).map(toDetail);
  return { rows, next: raw.length > f.limit ? rows[rows.length - 1]!.id : null };
}

export function getResolution(db: Db, id: number): ResolutionDetail | null {
  const r = db.prepare('SELECT * FROM evidence_resolutions WHERE id = ?').get(id) as RawResolution | undefined;
  return r ? toDetail(r) : null;
}

export interface Facets {
  readonly routes: string[];
  readonly kinds: string[];
  readonly repositories: string[];
}

/** The queries behind the filters' choices (exported so a test can EXPLAIN them: each reads a covering index, never the table). */
export const FACET_SQL: { readonly [K in keyof Facets]: string } = {
  routes: 'SELECT DISTINCT route AS v FROM evidence_resolutions ORDER BY v',
  kinds: 'SELECT DISTINCT resolution_kind AS v FROM evidence_resolutions ORDER BY v',
  repositories: 'SELECT DISTINCT repository_root AS v FROM evidence_resolutions WHERE repository_root IS NOT NULL ORDER BY v',
};

/** The values the filters offer (each a small distinct set, read through an index). */
export function resolutionFacets(db: Db): Facets {
  const col = (sql: string) => (db.prepare(sql).all() as { v: string }[]).map((r) => r.v);
  return { routes: col(FACET_SQL.routes), kinds: col(FACET_SQL.kinds), repositories: col(FACET_SQL.repositories) };
}

/** A worker run as the reports list it: the accounting row without its rejections. */
export type RunRow = Omit<WorkerRunRow, 'rejections'>;

export function runsForNeed(db: Db, needId: string): RunRow[] {
  return (db.prepare('SELECT * FROM worker_runs WHERE need_id = ? ORDER BY id').all(needId) as WorkerRunRecord[]).map(workerRunFrom);
}

/** Worker runs newest first, keyset-paged like resolutions. */
export function pageRuns(db: Db, before: number | undefined, limit: number): { rows: RunRow[]; next: number | null } {
  const raw = (
    before === undefined
      ? db.prepare('SELECT * FROM worker_runs WHERE need_id IS NOT NULL ORDER BY id DESC LIMIT ?').all(limit + 1)
      : db.prepare('SELECT * FROM worker_runs WHERE need_id IS NOT NULL AND id < ? ORDER BY id DESC LIMIT ?').all(before, limit + 1)
  ) as WorkerRunRecord[];
  const rows = raw.slice(0, limit).map(workerRunFrom);
  return { rows, next: raw.length > limit ? rows[rows.length - 1]!.id : null };
}

/** The worker runs a hit reused instead of running again. */
export function avoidedRunsOf(db: Db, resolutionId: number): RunRow[] {
  return (
    db
      .prepare('SELECT w.* FROM evidence_avoided_runs v JOIN worker_runs w ON w.id = v.worker_run_id WHERE v.resolution_id = ? ORDER BY w.id')
      .all(resolutionId) as WorkerRunRecord[]
  ).map(workerRunFrom);
}

export interface StepSummary {
  readonly sessionId: string;
  readonly ordinal: number;
  readonly status: string;
  readonly relation: string;
  readonly repository: string;
  readonly mainModel: string;
  readonly requestJson: string;
  readonly createdUnixMs: number;
  readonly events: { kind: string; detail: string | null; atUnixMs: number }[];
}

/** The MCP steps that asked for this need (newest first), with their lifecycle events. */
export function stepsForNeed(db: Db, needId: string, limit: number): StepSummary[] {
  const rows = db
    .prepare(
      `SELECT s.id, s.session_id, s.ordinal, s.status, s.relation, s.request_json, s.created_unix_ms, m.repository_root, m.main_model
       FROM need_steps s JOIN mcp_sessions m ON m.id = s.session_id WHERE s.need_id = ? ORDER BY s.id DESC LIMIT ?`,
    )
    .all(needId, limit) as { id: number; session_id: string; ordinal: number; status: string; relation: string; request_json: string; created_unix_ms: number; repository_root: string; main_model: string }[];
  const events = db.prepare('SELECT kind, detail, at_unix_ms FROM need_events WHERE step_id = ? ORDER BY id');
  return rows.map((r) => ({
    sessionId: r.session_id,
    ordinal: r.ordinal,
    status: r.status,
    relation: r.relation,
    repository: r.repository_root,
    mainModel: r.main_model,
    requestJson: r.request_json,
    createdUnixMs: r.created_unix_ms,
    events: (events.all(r.id) as { kind: string; detail: string | null; at_unix_ms: number }[]).map((e) => ({ kind: e.kind, detail: e.detail, atUnixMs: e.at_unix_ms })),
  }));
}

export interface DayRoute {
  readonly day: string;
  readonly route: string;
  readonly resolutions: number;
  readonly hits: number;
}

export interface DayModel {
  readonly day: string;
  readonly model: string;
  readonly runs: number;
  readonly tokensSpent: number;
  /** Null when a run's price was unknown (never guessed). */
  readonly costSpentUsd: number | null;
  readonly workersAvoided: number;
  readonly tokensAvoided: number;
  readonly costAvoidedUsd: number | null;
}

const DAY = "strftime('%Y-%m-%d', created_unix_ms / 1000, 'unixepoch')";

/** Per UTC day since `sinceMs`: resolutions and hits per route; runs, tokens and cost spent and avoided per model. */
export function dailySeries(db: Db, sinceMs: number): { routes: DayRoute[]; models: DayModel[] } {
  const routes = db
    .prepare(`SELECT ${DAY} AS day, route, COUNT(*) AS resolutions, SUM(cache_hit) AS hits FROM evidence_resolutions WHERE created_unix_ms >= ? GROUP BY day, route ORDER BY day, route`)
    .all(sinceMs) as DayRoute[];
  const byKey = new Map<string, { -readonly [K in keyof DayModel]: DayModel[K] } & { unknownSpent: boolean; unknownAvoided: boolean }>();
  const get = (day: string, model: string) => {
    const key = `${day}\0${model}`;
    let row = byKey.get(key);
    if (!row) byKey.set(key, (row = { day, model, runs: 0, tokensSpent: 0, costSpentUsd: 0, workersAvoided: 0, tokensAvoided: 0, costAvoidedUsd: 0, unknownSpent: false, unknownAvoided: false }));
    return row;
  };
  type Sum = { day: string; model: string; n: number; tokens: number; unknown: number; cost: number };
  for (const r of db
    .prepare(
      `SELECT ${DAY} AS day, COALESCE(model, worker) AS model, COUNT(*) AS n, SUM(input_tokens + output_tokens) AS tokens,
         SUM(price_microusd IS NULL) AS unknown, COALESCE(SUM(price_microusd), 0) AS cost
       FROM worker_runs WHERE created_unix_ms >= ? AND need_id IS NOT NULL GROUP BY day, COALESCE(model, worker)`,
    )
    .all(sinceMs) as Sum[]) {
    const row = get(r.day, r.model);
    Object.assign(row, { runs: r.n, tokensSpent: r.tokens, costSpentUsd: usdOf(r.cost) ?? 0, unknownSpent: r.unknown > 0 });
  }
  for (const r of db
    .prepare(
      `SELECT strftime('%Y-%m-%d', s.created_unix_ms / 1000, 'unixepoch') AS day, COALESCE(w.model, w.worker) AS model, COUNT(*) AS n,
         SUM(w.input_tokens + w.output_tokens) AS tokens, SUM(w.price_microusd IS NULL) AS unknown, COALESCE(SUM(w.price_microusd), 0) AS cost
       FROM evidence_resolutions s JOIN evidence_avoided_runs v ON v.resolution_id = s.id
       JOIN worker_runs w ON w.id = v.worker_run_id WHERE s.created_unix_ms >= ? GROUP BY day, COALESCE(w.model, w.worker)`,
    )
    .all(sinceMs) as Sum[]) {
    const row = get(r.day, r.model);
    Object.assign(row, { workersAvoided: r.n, tokensAvoided: r.tokens, costAvoidedUsd: usdOf(r.cost) ?? 0, unknownAvoided: r.unknown > 0 });
  }
  const models = [...byKey.values()]
    .map(({ unknownSpent, unknownAvoided, ...row }) => ({ ...row, costSpentUsd: unknownSpent ? null : row.costSpentUsd, costAvoidedUsd: unknownAvoided ? null : row.costAvoidedUsd }))
    .sort((a, b) => (a.day === b.day ? (a.model < b.model ? -1 : 1) : a.day < b.day ? -1 : 1));
  return { routes, models };
}

/** Changes whenever a resolution, a worker run, a change event or a certificate is written: live updates poll this. */
export function activityMark(db: Db): string {
  const r = db
    .prepare(
      `SELECT (SELECT COALESCE(MAX(id), 0) FROM evidence_resolutions) AS a, (SELECT COALESCE(MAX(id), 0) FROM worker_runs) AS b,
         (SELECT COALESCE(MAX(id), 0) FROM change_events) AS c, (SELECT COUNT(*) FROM evidence_certificates WHERE invalidated_unix_ms IS NOT NULL) AS d,
         (SELECT COALESCE(MAX(id), 0) FROM need_events) AS e`,
    )
    .get() as { a: number; b: number; c: number; d: number; e: number };
  return `${r.a}.${r.b}.${r.c}.${r.d}.${r.e}`;
}
