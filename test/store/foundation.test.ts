// The foundation store on a real SQLite file: defaults, checksummed
// migrations, immutable digest-addressed profile revisions and the need
// ledger's constraints.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { BUILTIN_LOCAL_PROFILE, type RoleProfile } from '../../src/core/profile.js';
import { openDataDir } from '../../src/store/datadir.js';
import { openDb, type Db } from '../../src/store/db.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { activateProfile, createProfileRevision, getActiveProfile, getProfileRevision, listProfiles, profileDigest } from '../../src/store/profiles.js';
import { insertSession } from '../../src/store/sessions.js';
import { enabledRoutes, listRoutes, setRouteEnabled } from '../../src/store/settings.js';
import { beginStep, finishStep, listSteps } from '../../src/store/steps.js';
import { cleanupAll, ROOT, requireBuild, tempDir } from '../mcp/fixtures.js';

afterAll(cleanupAll);

describe('data directory', () => {
  it('is initialized exactly once when several processes open a new one at the same moment', async () => {
    requireBuild();
    const dir = tempDir();
    const module = pathToFileURL(join(ROOT, 'dist/src/store/datadir.js')).href;
    // Every process loads first, then all open the directory at the same instant.
    const at = Date.now() + 3_000;
    const script = `const m = await import(${JSON.stringify(module)}); while (Date.now() < ${at}); m.openDataDir(${JSON.stringify(dir)}).db.close();`;
    const codes = await Promise.all(
      Array.from({ length: 4 }, () => new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('exit', resolve);
      })),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const db = openDb(join(dir, 'needle.sqlite3'));
    expect((db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n).toBe(MIGRATIONS.length);
    expect(listProfiles(db).map((p) => [p.id, p.revisions])).toEqual([['local', 1]]);
    db.close();
  });

  it('is created with WAL, foreign keys, three enabled routes and the active built-in profile local', () => {
    const dir = tempDir();
    const first = openDataDir(dir);
    expect(first.created).toBe(true);
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(first.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(first.db.pragma('synchronous', { simple: true })).toBe(2);
    expect(listRoutes(first.db)).toEqual([
      { id: 'locate.implementation', enabled: true },
      { id: 'tests.relevant', enabled: true },
      { id: 'trace.state-flow', enabled: true },
    ]);
    const local = getActiveProfile(first.db, 'local')!;
    expect(local.document).toEqual(BUILTIN_LOCAL_PROFILE);
    expect(local.document.implementer).toBeNull();
    expect(local.digest).toBe(profileDigest(BUILTIN_LOCAL_PROFILE));
    setRouteEnabled(first.db, 'trace.state-flow', false);
    first.db.close();
    const again = openDataDir(dir);
    expect(again.created).toBe(false);
    expect(enabledRoutes(again.db)).toEqual(['locate.implementation', 'tests.relevant']);
    again.db.close();
  });

  it('refuses to start when an applied migration text changed, naming it', () => {
    const file = join(tempDir(), 'needle.sqlite3');
    openDb(file).close();
    const edited = MIGRATIONS.map((m) => (m.id === 1 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    expect(() => openDb(file, edited)).toThrow(/migration 1 \(foundation\) changed after it was applied/);
  });
});

describe('role profiles', () => {
  const withLimits: RoleProfile = { ...BUILTIN_LOCAL_PROFILE, limits: { max_needs: 5 } };

  it('stores immutable, digest-addressed revisions with one active revision per profile', () => {
    const { db } = openDataDir(tempDir());
    const d1 = createProfileRevision(db, 'team', BUILTIN_LOCAL_PROFILE);
    expect(createProfileRevision(db, 'team', { ...BUILTIN_LOCAL_PROFILE })).toBe(d1);
    const d2 = createProfileRevision(db, 'team', withLimits);
    expect(d2).not.toBe(d1);
    activateProfile(db, 'team', d1);
    expect(getActiveProfile(db, 'team')!.digest).toBe(d1);
    activateProfile(db, 'team', d2);
    expect(getActiveProfile(db, 'team')!.document.limits).toEqual({ max_needs: 5 });
    expect(getProfileRevision(db, 'team', d1)!.document).toEqual(BUILTIN_LOCAL_PROFILE);
    expect(listProfiles(db).map((p) => [p.id, p.revisions])).toEqual([
      ['local', 1],
      ['team', 2],
    ]);
    expect(() => db.prepare("UPDATE role_profile_revisions SET document = '{}'").run()).toThrow(/immutable/);
    expect(() => db.prepare('DELETE FROM role_profile_revisions').run()).toThrow(/never deleted/);
    expect(() => activateProfile(db, 'team', blake3('nothing'))).toThrow(/has no revision/);
    expect(() => createProfileRevision(db, 'team', { ...BUILTIN_LOCAL_PROFILE, explorer: [] })).toThrow(/profile\.explorer/);
    db.close();
  });
});

describe('need steps', () => {
  function session(db: Db, id: string): void {
    const digest = profileDigest(BUILTIN_LOCAL_PROFILE);
    insertSession(db, {
      id,
      startedUnixMs: Date.now(),
      repositoryRoot: '/repo',
      lineage: blake3('lineage'),
      dataDir: '/data',
      profileId: 'local',
      profileDigest: digest,
      routes: ['locate.implementation'],
      semanticDigest: blake3('semantic'),
      interfaceDigest: blake3('interface'),
      mainModel: 'm',
      cacheOnly: true,
      maxNeeds: 3,
      maxWorkers: 3,
    });
  }
  const step = (sessionId: string, ordinal: number, requestJson = '{}') => ({
    sessionId,
    ordinal,
    needId: blake3('need'),
    requestDigest: blake3('request'),
    route: 'locate.implementation',
    relation: 'independent' as const,
    requestJson,
    needIr: '{}',
  });

  it('keeps ordinals unique per session, bounds the request JSON and records events in order', () => {
    const { db } = openDataDir(tempDir());
    session(db, 's1');
    session(db, 's2');
    const id = beginStep(db, step('s1', 1));
    beginStep(db, step('s2', 1));
    expect(() => beginStep(db, step('s1', 1))).toThrow(/UNIQUE/);
    expect(() => beginStep(db, step('s1', 2, 'x'.repeat(16_385)))).toThrow(/CHECK/);
    expect(() => beginStep(db, step('nope', 1))).toThrow(/FOREIGN KEY/);
    finishStep(db, id, { status: 'bypass', resolutionKind: 'bypass', satisfied: [], missing: ['implementation_location'], resultDigest: blake3('c'), event: 'native_fallback' });
    const [row] = listSteps(db, { sessionId: 's1' });
    expect(row).toMatchObject({ ordinal: 1, status: 'bypass', missing: ['implementation_location'], events: ['requested', 'resolving', 'native_fallback'] });
    db.close();
  });
});
