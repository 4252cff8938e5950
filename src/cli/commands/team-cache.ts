// `needle team-cache init|status`: create or migrate the PostgreSQL schema of
// a team cache, and show what it holds. The URL is the positional argument or
// NEEDLE_TEAM_CACHE; it is only ever printed masked, and a URL carrying a
// password is refused (use PGPASSWORD or ~/.pgpass).
import { initTeamCache, TeamCacheError, teamCacheStatus } from '../../team/admin.js';
import { TEAM_CACHE_ENV, TeamCacheConfigError, teamCacheFrom, type TeamCacheConfig } from '../../team/config.js';
import { parseCommandArgs } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';

function configOf(url: string | undefined, env: NodeJS.ProcessEnv): TeamCacheConfig {
  let config;
  try {
    config = teamCacheFrom(url, env);
  } catch (e) {
    if (e instanceof TeamCacheConfigError) throw new UsageError(e.message);
    throw e;
  }
  if (config === null) throw new UsageError(`name the team cache: needle team-cache init postgres://user@host:5432/db (or set ${TEAM_CACHE_ENV})`);
  return config;
}

export const teamCacheInitCommand: CliCommand = {
  path: ['team-cache', 'init'],
  summary: 'create or migrate the PostgreSQL schema of a team cache',
  help: `Usage: needle team-cache init [URL]

Creates the team cache's tables in the PostgreSQL database named by URL
(default: $${TEAM_CACHE_ENV}), or applies the migrations it lacks. Migrations are
additive and checksummed; one that changed after it was applied is refused.
Safe to run from several machines at once. The password is read from
PGPASSWORD or ~/.pgpass, never from the URL, and never stored by Needle.
`,
  async run(argv, io) {
    const { positionals } = parseCommandArgs(argv, {}, 1);
    const config = configOf(positionals[0], io.env);
    try {
      const { applied, version } = await initTeamCache(config, io.env);
      io.stdout.write(
        applied.length > 0
          ? `team cache ${config.masked}: applied migration(s) ${applied.join(', ')}; schema version ${version}\n`
          : `team cache ${config.masked}: schema version ${version}, up to date\n`,
      );
      return 0;
    } catch (e) {
      if (e instanceof TeamCacheError) {
        io.stderr.write(`needle: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
  },
};

export const teamCacheStatusCommand: CliCommand = {
  path: ['team-cache', 'status'],
  summary: "the team cache's size and newest certificates per repository lineage",
  help: `Usage: needle team-cache status [URL] [--json]

Shows the schema version, how many certificates and claims the team cache
holds and their size on disk, and per repository lineage its newest
certificates (URL default: $${TEAM_CACHE_ENV}).
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, { json: { type: 'boolean' } }, 1);
    const config = configOf(positionals[0], io.env);
    let status;
    try {
      status = await teamCacheStatus(config, io.env);
    } catch (e) {
      if (e instanceof TeamCacheError) {
        io.stderr.write(`needle: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ url: config.masked, ...status }, null, 2)}\n`);
      return 0;
    }
    const lines = [
      `team cache ${config.masked}: schema version ${status.version}, ${status.certificates} certificate(s), ${status.claims} claim(s), ${(status.bytes / 1024).toFixed(0)} KiB`,
    ];
    for (const l of status.lineages) {
      lines.push(`lineage ${l.lineage}: ${l.certificates} certificate(s)`);
      for (const n of l.newest) lines.push(`  ${n.published_at}  ${n.certificate_id.slice(0, 19)}…  ${n.predicate}  ${n.subject}  (${n.publisher})`);
    }
    io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
};
