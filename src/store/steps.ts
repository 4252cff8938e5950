// The need ledger on disk: one row per need step with its lifecycle events
// (requested → resolving → resolved | native_fallback | cancelled | failed →
// delivered). Rows are written only after a request passed validation.
import type { Digest } from '../core/digest.js';
import type { Relation } from '../core/relation.js';
import type { Db } from './db.js';
import { statement } from './statements.js';

export const STEP_EVENTS = ['requested', 'resolving', 'resolved', 'native_fallback', 'cancelled', 'failed', 'delivered'] as const;
export type StepEvent = (typeof STEP_EVENTS)[number];
export type StepStatus = 'resolving' | 'hit' | 'generated' | 'bypass' | 'cancelled' | 'failed';

export interface NewStep {
  readonly sessionId: string;
  readonly ordinal: number;
  readonly needId: Digest;
  readonly requestDigest: Digest;
  readonly route: string;
  readonly relation: Relation;
  readonly requestJson: string;
  readonly needIr: string;
}

export interface StepOutcome {
  readonly status: Exclude<StepStatus, 'resolving'>;
  readonly resolutionKind: string | null;
  readonly satisfied: readonly string[];
  readonly missing: readonly string[];
  readonly resultDigest: string | null;
  readonly event: Extract<StepEvent, 'resolved' | 'native_fallback' | 'cancelled' | 'failed'>;
  readonly detail?: string;
}

export interface StepRow {
  readonly id: number;
  readonly sessionId: string;
  readonly ordinal: number;
  readonly needId: string;
  readonly route: string;
  readonly relation: Relation;
  readonly status: StepStatus;
  readonly resolutionKind: string | null;
  readonly satisfied: string[];
  readonly missing: string[];
  readonly requestJson: string;
  readonly needIr: string;
  readonly resultDigest: string | null;
  readonly events: StepEvent[];
}

export function addStepEvent(db: Db, stepId: number, kind: StepEvent, detail?: string): void {
  statement(db, 'INSERT INTO need_events (step_id, kind, detail, at_unix_ms) VALUES (?, ?, ?, ?)').run(
    stepId,
    kind,
    detail ?? null,
    Date.now(),
  );
}

/** Inserts the step with its `requested` and `resolving` events; returns the row id. */
export function beginStep(db: Db, s: NewStep): number {
  return db.transaction(() => {
    const now = Date.now();
    const info = statement(
      db,
      `INSERT INTO need_steps (session_id, ordinal, need_id, request_digest, route, relation, status, request_json, need_ir, created_unix_ms)
         VALUES (?, ?, ?, ?, ?, ?, 'resolving', ?, ?, ?)`,
    ).run(s.sessionId, s.ordinal, s.needId, s.requestDigest, s.route, s.relation, s.requestJson, s.needIr, now);
    const id = Number(info.lastInsertRowid);
    addStepEvent(db, id, 'requested');
    addStepEvent(db, id, 'resolving');
    return id;
  })();
}

export function finishStep(db: Db, stepId: number, o: StepOutcome): void {
  db.transaction(() => {
    statement(
      db,
      `UPDATE need_steps SET status = ?, resolution_kind = ?, satisfied = ?, missing = ?, result_digest = ?, finished_unix_ms = ?
       WHERE id = ?`,
    ).run(o.status, o.resolutionKind, JSON.stringify(o.satisfied), JSON.stringify(o.missing), o.resultDigest, Date.now(), stepId);
    addStepEvent(db, stepId, o.event, o.detail);
  })();
}

interface RawStep {
  id: number;
  session_id: string;
  ordinal: number;
  need_id: string;
  route: string;
  relation: Relation;
  status: StepStatus;
  resolution_kind: string | null;
  satisfied: string;
  missing: string;
  request_json: string;
  need_ir: string;
  result_digest: string | null;
}

/** Steps newest-first (or of one session in ordinal order), each with its events in order. */
export function listSteps(db: Db, opts: { sessionId?: string; limit?: number } = {}): StepRow[] {
  const limit = opts.limit ?? 100;
  const rows = (
    opts.sessionId
      ? db.prepare('SELECT * FROM need_steps WHERE session_id = ? ORDER BY ordinal LIMIT ?').all(opts.sessionId, limit)
      : db.prepare('SELECT * FROM need_steps ORDER BY id DESC LIMIT ?').all(limit)
  ) as RawStep[];
  const events = db.prepare('SELECT kind FROM need_events WHERE step_id = ? ORDER BY id');
  return rows.map((r) => ({
    id: r.id,
    sessionId: r.session_id,
    ordinal: r.ordinal,
    needId: r.need_id,
    route: r.route,
    relation: r.relation,
    status: r.status,
    resolutionKind: r.resolution_kind,
    satisfied: JSON.parse(r.satisfied) as string[],
    missing: JSON.parse(r.missing) as string[],
    requestJson: r.request_json,
    needIr: r.need_ir,
    resultDigest: r.result_digest,
    events: (events.all(r.id) as { kind: StepEvent }[]).map((e) => e.kind),
  }));
}
