// What every page handler gets: the open data directory, the repository
// freshness is computed against (null outside one) and a clock.
import type { Db } from '../store/db.js';

export interface UiContext {
  readonly db: Db;
  readonly dataDir: string;
  /** Repository root freshness and apply are checked against; null when none. */
  readonly repository: string | null;
  readonly now: () => number;
}

/** A page: its JSON (served under /api) and its HTML view of the same data. */
export interface Page<T> {
  readonly title: (data: T) => string;
  readonly data: (ctx: UiContext, params: URLSearchParams, id: string | null) => T | null;
  readonly view: (data: T, params: URLSearchParams) => import('./html.js').Html;
}

/** A refused action, reported as JSON with this status. */
export class ActionError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly rule?: string,
  ) {
    super(message);
  }
}
