// Role profiles as immutable, digest-addressed revisions with one active
// revision per profile (SPEC §13). The digest is BLAKE3 of the document's
// stable JSON, so the same document always has the same revision id.
import { blake3, type Digest } from '../core/digest.js';
import { assertNoCredentials, assertSupportedLogins, roleProfileSchema, type RoleProfile } from '../core/profile.js';
import { stableStringify } from '../core/schema.js';
import { StoreError, type Db } from './db.js';

export interface ProfileRevision {
  readonly profileId: string;
  readonly digest: Digest;
  readonly document: RoleProfile;
  readonly createdUnixMs: number;
}

export interface ProfileSummary {
  readonly id: string;
  readonly activeDigest: Digest;
  readonly revisions: number;
}

export function profileDigest(doc: RoleProfile): Digest {
  return blake3(stableStringify(doc));
}

interface RevisionRow {
  profile_id: string;
  digest: string;
  document: string;
  created_unix_ms: number;
}

function toRevision(row: RevisionRow): ProfileRevision {
  // Stored documents are re-validated on read: a hand-edited row must not
  // reach a worker as if it were a checked profile.
  const document = roleProfileSchema.parse(JSON.parse(row.document), 'profile');
  return { profileId: row.profile_id, digest: row.digest as Digest, document, createdUnixMs: row.created_unix_ms };
}

/** Stores a revision (idempotent for an identical document) and returns its digest. */
export function createProfileRevision(db: Db, id: string, doc: RoleProfile): Digest {
  const document = roleProfileSchema.parse(doc, 'profile');
  try {
    assertNoCredentials(document);
    assertSupportedLogins(document);
  } catch (e) {
    throw new StoreError((e as Error).message);
  }
  const digest = profileDigest(document);
  db.prepare(
    'INSERT OR IGNORE INTO role_profile_revisions (profile_id, digest, document, created_unix_ms) VALUES (?, ?, ?, ?)',
  ).run(id, digest, stableStringify(document), Date.now());
  return digest;
}

export function activateProfile(db: Db, id: string, digest: Digest): void {
  const exists = db.prepare('SELECT 1 FROM role_profile_revisions WHERE profile_id = ? AND digest = ?').get(id, digest);
  if (!exists) throw new StoreError(`role profile ${id} has no revision ${digest}`);
  db.prepare(
    `INSERT INTO role_profiles (id, active_digest, updated_unix_ms) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET active_digest = excluded.active_digest, updated_unix_ms = excluded.updated_unix_ms`,
  ).run(id, digest, Date.now());
}

/**
 * `needle profile activate` and the control plane's Activate: makes `revision`
 * (default: the most recently created revision) the active revision of
 * profile `id` and returns its digest. An unknown profile or revision is a
 * StoreError and changes nothing.
 */
export function activateRevision(db: Db, id: string, revision?: Digest): Digest {
  const target = revision !== undefined ? getProfileRevision(db, id, revision) : latestProfileRevision(db, id);
  if (!target) throw new StoreError(revision !== undefined ? `role profile ${id} has no revision ${revision}` : `role profile ${id} does not exist`);
  activateProfile(db, id, target.digest);
  return target.digest;
}

export function getProfileRevision(db: Db, id: string, digest: Digest): ProfileRevision | null {
  const row = db
    .prepare('SELECT profile_id, digest, document, created_unix_ms FROM role_profile_revisions WHERE profile_id = ? AND digest = ?')
    .get(id, digest) as RevisionRow | undefined;
  return row ? toRevision(row) : null;
}

export function getActiveProfile(db: Db, id: string): ProfileRevision | null {
  const row = db
    .prepare(
      `SELECT r.profile_id, r.digest, r.document, r.created_unix_ms
       FROM role_profiles p JOIN role_profile_revisions r ON r.profile_id = p.id AND r.digest = p.active_digest
       WHERE p.id = ?`,
    )
    .get(id) as RevisionRow | undefined;
  return row ? toRevision(row) : null;
}

/** The most recently created revision of a profile, active or not. */
export function latestProfileRevision(db: Db, id: string): ProfileRevision | null {
  const row = db
    .prepare(
      `SELECT profile_id, digest, document, created_unix_ms FROM role_profile_revisions
       WHERE profile_id = ? ORDER BY created_unix_ms DESC, rowid DESC LIMIT 1`,
    )
    .get(id) as RevisionRow | undefined;
  return row ? toRevision(row) : null;
}

export function listProfiles(db: Db): ProfileSummary[] {
  return (
    db
      .prepare(
        `SELECT p.id, p.active_digest, (SELECT count(*) FROM role_profile_revisions r WHERE r.profile_id = p.id) AS revisions
         FROM role_profiles p ORDER BY p.id`,
      )
      .all() as { id: string; active_digest: string; revisions: number }[]
  ).map((r) => ({ id: r.id, activeDigest: r.active_digest as Digest, revisions: r.revisions }));
}

/** Every revision of one profile, newest first (the control plane's history). */
export function listRevisions(db: Db, id: string): ProfileRevision[] {
  return (
    db
      .prepare('SELECT profile_id, digest, document, created_unix_ms FROM role_profile_revisions WHERE profile_id = ? ORDER BY created_unix_ms DESC, rowid DESC')
      .all(id) as RevisionRow[]
  ).map(toRevision);
}
