// better-sqlite3 compiles SQL on every prepare(). Statements on the warm-hit
// path, and a cold need's writes (its single-flight lease, certification and
// rejections), are compiled once per database handle and reused; only for
// run/get/all (an iterating statement cannot be shared).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

const compiled = new WeakMap<Db, Map<string, Statement>>();

export function statement(db: Db, sql: string): Statement {
  let byText = compiled.get(db);
  if (!byText) {
    byText = new Map();
    compiled.set(db, byText);
  }
  let stmt = byText.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    byText.set(sql, stmt);
  }
  return stmt;
}
