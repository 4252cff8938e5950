// Team cache configuration (issue 12): one PostgreSQL URL, from --team-cache
// or NEEDLE_TEAM_CACHE. The password never comes from the URL (it would end up
// in shell history, process listings and MCP client configuration): libpq's
// own places are used instead — PGPASSWORD or ~/.pgpass (PGPASSFILE). A URL
// that carries one is refused without echoing it, and every URL Needle prints
// or records is masked.

export const TEAM_CACHE_ENV = 'NEEDLE_TEAM_CACHE';
export const TEAM_CACHE_WAIT_ENV = 'NEEDLE_TEAM_CACHE_WAIT_MS';

/** Default bounded wait for the team cache per need, in milliseconds. */
export const DEFAULT_WAIT_MS = 150;
export const MAX_WAIT_MS = 10_000;

export class TeamCacheConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TeamCacheConfigError';
  }
}

export interface TeamCacheConfig {
  /** The URL as given (never contains a password). */
  readonly url: string;
  /** The URL as printed and recorded: user, host, port and database only. */
  readonly masked: string;
  readonly waitMs: number;
}

/** The URL with any password replaced by `***` (and query parameters dropped); unparsable text is not echoed. */
export function maskUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return '<unparsable team cache URL>';
  }
  if (u.password) u.password = '***';
  u.search = '';
  u.hash = '';
  return u.toString();
}

/** Removes every occurrence of the URL (and of any password in it) from a message before it is shown. */
export function scrub(message: string, url: string): string {
  let out = message.split(url).join(maskUrl(url));
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password) out = out.split(password).join('***');
  } catch {
    // nothing to remove
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, 300);
}

export function parseTeamCacheUrl(text: string, waitMs: number = DEFAULT_WAIT_MS): TeamCacheConfig {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new TeamCacheConfigError('the team cache URL must look like postgres://user@host:5432/database');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    throw new TeamCacheConfigError(`the team cache URL must start with postgres:// or postgresql://, not ${u.protocol.slice(0, 20)}//`);
  if (u.password || u.searchParams.has('password'))
    throw new TeamCacheConfigError(
      'the team cache URL must not contain a password (it is not echoed): put it in PGPASSWORD or ~/.pgpass instead',
    );
  if (!u.hostname && !u.searchParams.has('host')) throw new TeamCacheConfigError('the team cache URL has no host');
  return { url: text, masked: maskUrl(text), waitMs };
}

function parseWait(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_WAIT_MS;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_WAIT_MS) throw new TeamCacheConfigError(`${TEAM_CACHE_WAIT_ENV} must be an integer 1..${MAX_WAIT_MS} (milliseconds)`);
  return n;
}

/** The configured team cache: the flag wins over NEEDLE_TEAM_CACHE; null when neither is set (local only). */
export function teamCacheFrom(flag: string | undefined, env: NodeJS.ProcessEnv): TeamCacheConfig | null {
  const text = flag ?? env[TEAM_CACHE_ENV];
  if (text === undefined || text === '') return null;
  return parseTeamCacheUrl(text, parseWait(env[TEAM_CACHE_WAIT_ENV]));
}
