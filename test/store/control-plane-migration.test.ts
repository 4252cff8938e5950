// Migration 009 on a store written by the previous version: resolutions asked
// through an MCP session get that session's repository; one no session asked
// (a `needle context` call before this version) stays unattributed rather than
// guessed; and the new column is what the repository filter reads.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blake3, type Digest } from '../../src/core/digest.js';
import { openDb } from '../../src/store/db.js';
import { pageResolutions } from '../../src/store/evidence/reports.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { activateProfile, createProfileRevision } from '../../src/store/profiles.js';
import { insertSession } from '../../src/store/sessions.js';
import { beginStep } from '../../src/store/steps.js';
import { cleanupAll, tempDir } from '../mcp/fixtures.js';

afterAll(cleanupAll);

const d = (s: string) => blake3(s) as Digest;

function oldResolution(db: ReturnType<typeof openDb>, needId: Digest): void {
  db.prepare(
    `INSERT INTO evidence_resolutions (need_id, request_digest, route, subject_kind, subject_name, resolution_kind, satisfied, missing,
       cache_hit, workers_run, sufficiency_id, context_bytes, duration_ms, created_unix_ms)
     VALUES (?, ?, 'locate.implementation', 'symbol', 'add', 'miss', '[]', '[]', 0, 0, NULL, 0, 1, 1)`,
  ).run(needId, d('request'));
}

describe('migration 009 (control plane)', () => {
  it('attributes old resolutions to the repository of the session that asked them, and leaves the rest unattributed', () => {
    const file = join(tempDir(), 'needle.sqlite3');
    const before = openDb(file, MIGRATIONS.filter((m) => m.id < 9));
    const profileDigest = createProfileRevision(before, 'local', BUILTIN_LOCAL_PROFILE);
    activateProfile(before, 'local', profileDigest);
    insertSession(before, {
      id: 'sess',
      startedUnixMs: 1,
      repositoryRoot: '/repos/served',
      lineage: d('lineage'),
      dataDir: '/data',
      profileId: 'local',
      profileDigest,
      routes: ['locate.implementation'],
      semanticDigest: d('semantic'),
      interfaceDigest: d('interface'),
      mainModel: 'm',
      cacheOnly: false,
      maxNeeds: 8,
      maxWorkers: 4,
    });
    beginStep(before, { sessionId: 'sess', ordinal: 1, needId: d('asked over mcp'), requestDigest: d('request'), route: 'locate.implementation', relation: 'independent', requestJson: '{}', needIr: '{}' });
    oldResolution(before, d('asked over mcp'));
    oldResolution(before, d('asked from the shell'));
    before.close();

    const after = openDb(file);
    const rows = after.prepare('SELECT need_id, repository_root FROM evidence_resolutions ORDER BY id').all();
    expect(rows).toEqual([
      { need_id: d('asked over mcp'), repository_root: '/repos/served' },
      { need_id: d('asked from the shell'), repository_root: null },
    ]);
    expect(pageResolutions(after, { repository: '/repos/served', limit: 10 }).rows.map((r) => r.needId)).toEqual([d('asked over mcp')]);
    after.close();
  });
});
