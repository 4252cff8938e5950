// MCP sessions: the state a connection froze at startup, kept for audit.
import type { Digest } from '../core/digest.js';
import type { Db } from './db.js';

export interface SessionRecord {
  readonly id: string;
  readonly startedUnixMs: number;
  readonly repositoryRoot: string;
  readonly lineage: Digest;
  readonly dataDir: string;
  readonly profileId: string;
  readonly profileDigest: Digest;
  readonly routes: readonly string[];
  readonly semanticDigest: Digest;
  readonly interfaceDigest: Digest;
  readonly mainModel: string;
  readonly cacheOnly: boolean;
  readonly maxNeeds: number;
  readonly maxWorkers: number;
}

/** Records a session; with `ifAbsent`, a session already recorded under the id is kept as it is. */
export function insertSession(db: Db, s: SessionRecord, ifAbsent = false): void {
  db.prepare(
    `INSERT ${ifAbsent ? 'OR IGNORE ' : ''}INTO mcp_sessions (id, started_unix_ms, repository_root, lineage, data_dir, profile_id, profile_digest, routes,
       semantic_digest, interface_digest, main_model, cache_only, max_needs, max_workers)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    s.id,
    s.startedUnixMs,
    s.repositoryRoot,
    s.lineage,
    s.dataDir,
    s.profileId,
    s.profileDigest,
    JSON.stringify(s.routes),
    s.semanticDigest,
    s.interfaceDigest,
    s.mainModel,
    s.cacheOnly ? 1 : 0,
    s.maxNeeds,
    s.maxWorkers,
  );
}

export function setSessionProtocol(db: Db, id: string, protocolVersion: string): void {
  db.prepare('UPDATE mcp_sessions SET protocol_version = ? WHERE id = ?').run(protocolVersion, id);
}

/** The role-profile revision a recorded session froze, or null when there is no such session. */
export function sessionProfile(db: Db, id: string): { profileId: string; profileDigest: Digest } | null {
  const row = db.prepare('SELECT profile_id, profile_digest FROM mcp_sessions WHERE id = ?').get(id) as
    | { profile_id: string; profile_digest: Digest }
    | undefined;
  return row ? { profileId: row.profile_id, profileDigest: row.profile_digest } : null;
}
