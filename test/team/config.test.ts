// Team cache configuration without a server: the URL's password is never
// accepted, printed or stored; the wait is bounded; the flag wins over the
// environment.
import { describe, expect, it } from 'vitest';
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

  it('connects with the password from the environment only, never from the URL', () => {
    const config = parseTeamCacheUrl('postgres://team@db.internal:5433/needle?sslmode=verify-full');
    expect(poolOptions(config, { PGPASSWORD: 'from-env' }, 1000)).toMatchObject({
      host: 'db.internal',
      port: 5433,
      user: 'team',
      database: 'needle',
      password: 'from-env',
      ssl: true,
    });
    expect(poolOptions(config, {}, 1000)).not.toHaveProperty('password');
  });
});
