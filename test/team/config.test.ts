// Team cache configuration without a server: the URL's password is never
// accepted, printed or stored; the wait is bounded; the flag wins over the
// environment.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { passwordFromFile } from '../../src/team/pgpass.js';
import { poolOptions } from '../../src/team/client.js';
import { maskUrl, parseTeamCacheUrl, scrub, TeamCacheConfigError, teamCacheFrom } from '../../src/team/config.js';

describe('team cache configuration', () => {
  it('refuses a URL with a password without echoing it, and masks any URL it shows', () => {
    for (const url of ['postgres://u:s3cr3t-pw@h/db', 'postgresql://u@h/db?password=s3cr3t-pw']) {
      let message = '';
      try {
        parseTeamCacheUrl(url);
      } catch (e) {
        expect(e).toBeInstanceOf(TeamCacheConfigError);
        message = (e as Error).message;
      }
      expect(message).toMatch(/must not contain a password/);
      expect(message).not.toContain('s3cr3t-pw');
    }
    expect(maskUrl('postgres://u:s3cr3t-pw@h:5433/db?sslmode=require')).toBe('postgres://u:***@h:5433/db');
    expect(scrub('failed for postgres://u:s3cr3t-pw@h/db: s3cr3t-pw rejected', 'postgres://u:s3cr3t-pw@h/db')).not.toContain('s3cr3t-pw');
    expect(() => parseTeamCacheUrl('mysql://u@h/db')).toThrow(/postgres:\/\//);
    expect(() => parseTeamCacheUrl('not a url')).toThrow(TeamCacheConfigError);
  });

  it('takes the flag over NEEDLE_TEAM_CACHE, bounds the wait, and is off when neither is set', () => {
    expect(teamCacheFrom(undefined, {})).toBeNull();
    expect(teamCacheFrom(undefined, { NEEDLE_TEAM_CACHE: 'postgres://a@h/db' })?.url).toBe('postgres://a@h/db');
    expect(teamCacheFrom('postgres://b@h/db', { NEEDLE_TEAM_CACHE: 'postgres://a@h/db' })?.url).toBe('postgres://b@h/db');
    expect(teamCacheFrom('postgres://b@h/db', {})?.waitMs).toBe(150);
    expect(teamCacheFrom('postgres://b@h/db', { NEEDLE_TEAM_CACHE_WAIT_MS: '40' })?.waitMs).toBe(40);
    expect(() => teamCacheFrom('postgres://b@h/db', { NEEDLE_TEAM_CACHE_WAIT_MS: '0' })).toThrow(/1\.\.10000/);
  });

  it('connects with the password from PGPASSWORD or the password file, looked up when connecting, never from the URL', async () => {
    const config = parseTeamCacheUrl('postgres://team@db.internal:5433/needle?sslmode=verify-full');
    const withEnv = poolOptions(config, { PGPASSWORD: 'from-env' }, 1000);
    expect(withEnv).toMatchObject({ host: 'db.internal', port: 5433, user: 'team', database: 'needle', ssl: true });
    expect(await (withEnv.password as () => Promise<string>)()).toBe('from-env');
    const dir = mkdtempSync(join(tmpdir(), 'needle-pgpass-'));
    try {
      const file = join(dir, 'pgpass');
      writeFileSync(file, '# team\nother:5433:*:team:wrong\ndb.internal:5433:needle:team:from\\:file\n*:*:*:*:fallback\n', { mode: 0o600 });
      const fromFile = poolOptions(config, { PGPASSFILE: file }, 1000);
      expect(await (fromFile.password as () => Promise<string>)()).toBe('from:file');
      expect(passwordFromFile({ host: 'x', port: 1, database: 'd', user: 'u' }, { PGPASSFILE: file })).toBe('fallback');
      chmodSync(file, 0o644);
      expect(passwordFromFile({ host: 'x', port: 1, database: 'd', user: 'u' }, { PGPASSFILE: file })).toBeUndefined();
      expect(JSON.stringify(fromFile)).not.toContain('from:file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
