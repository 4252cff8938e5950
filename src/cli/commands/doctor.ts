import { existsSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { BUILTIN_PROFILE_ID, type ChangeRoleConfig, type ExplorerConfig } from '../../core/profile.js';
import { git } from '../../repo/git.js';
import { findRepositoryRoot } from '../../repo/snapshot.js';
import { dbFileOf, isInitialized } from '../../store/datadir.js';
import { openDb } from '../../store/db.js';
import { getActiveProfile, listProfiles } from '../../store/profiles.js';
import { enabledRoutes } from '../../store/settings.js';
import { probeTeamCache } from '../../team/admin.js';
import { TeamCacheConfigError, teamCacheFrom } from '../../team/config.js';
import { detectSandbox } from '../../workers/sandbox.js';
import { checkProfileId, parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import type { CliCommand, CliIO } from '../command.js';

type Level = 'ok' | 'warn' | 'fail';
interface Check {
  readonly area: string;
  readonly level: Level;
  readonly detail: string;
}

function onPath(binary: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, binary))) return join(dir, binary);
  }
  return null;
}

function describeWorker(role: string, config: ExplorerConfig | ChangeRoleConfig | null, env: NodeJS.ProcessEnv): Check {
  if (config === null) return { area: role, level: 'ok', detail: 'not configured' };
  switch (config.adapter) {
    case 'static':
      return { area: role, level: 'ok', detail: 'static (embedded, offline)' };
    case 'codex': {
      const binary = config.codex_path ?? onPath('codex', env);
      const found = binary !== null && existsSync(binary);
      return {
        area: role,
        level: found ? 'ok' : 'warn',
        detail: `codex model ${config.model}${found ? ` (${binary})` : ' (codex binary not found)'}`,
      };
    }
    case 'command': {
      const program = config.argv[0]!;
      const found = program.includes('/') ? existsSync(program) : onPath(program, env) !== null;
      return { area: role, level: found ? 'ok' : 'warn', detail: `command ${program}${found ? '' : ' (not found)'}` };
    }
  }
}

function storeChecks(dataDir: string, profileId: string, env: NodeJS.ProcessEnv): Check[] {
  const file = dbFileOf(dataDir);
  if (!existsSync(file)) return [{ area: 'database', level: 'warn', detail: `${dataDir} is not initialized (run needle init)` }];
  let db;
  try {
    db = openDb(file);
  } catch (e) {
    return [{ area: 'database', level: 'fail', detail: (e as Error).message }];
  }
  try {
    const checks: Check[] = [];
    const mode = String(db.pragma('journal_mode', { simple: true }));
    checks.push({
      area: 'database',
      level: isInitialized(db) ? 'ok' : 'warn',
      detail: `${file} (journal ${mode}, ${listProfiles(db).length} role profile(s))${isInitialized(db) ? '' : ', defaults missing: run needle init'}`,
    });
    const routes = enabledRoutes(db);
    checks.push({ area: 'routes', level: routes.length > 0 ? 'ok' : 'fail', detail: routes.join(', ') || 'no route is enabled' });
    const active = getActiveProfile(db, profileId);
    if (!active) {
      checks.push({ area: 'profile', level: 'fail', detail: `role profile ${profileId} has no active revision` });
      return checks;
    }
    const doc = active.document;
    checks.push({ area: 'profile', level: 'ok', detail: `${profileId} ${active.digest}` });
    doc.explorer.forEach((e, i) => checks.push(describeWorker(`explorer[${i}]`, e, env)));
    checks.push(describeWorker('implementer', doc.implementer, env));
    checks.push(describeWorker('verifier', doc.verifier, env));
    if (doc.require_sandbox && !detectSandbox().active)
      checks.push({ area: 'profile', level: 'fail', detail: 'the profile requires the sandbox, which is not available' });
    return checks;
  } finally {
    db.close();
  }
}

function gitChecks(repository: string): Check[] {
  let version: string;
  try {
    version = git(repository, ['--version']).trim();
  } catch (e) {
    return [{ area: 'git', level: 'fail', detail: (e as Error).message.split('\n', 1)[0]! }];
  }
  const checks: Check[] = [{ area: 'git', level: 'ok', detail: version }];
  try {
    checks.push({ area: 'repository', level: 'ok', detail: findRepositoryRoot(repository) });
  } catch {
    checks.push({ area: 'repository', level: 'warn', detail: `${repository} is not inside a git work tree` });
  }
  return checks;
}

/** Reachability, schema version and latency of the team cache, when one is configured. */
async function teamChecks(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<Check[]> {
  let config;
  try {
    config = teamCacheFrom(flag, env);
  } catch (e) {
    if (e instanceof TeamCacheConfigError) return [{ area: 'team cache', level: 'fail', detail: e.message }];
    throw e;
  }
  if (config === null) return [{ area: 'team cache', level: 'ok', detail: 'not configured (local only)' }];
  const probe = await probeTeamCache(config, env);
  if (!probe.reachable) return [{ area: 'team cache', level: 'fail', detail: probe.problem ?? `${config.masked} is unreachable` }];
  const latency = `${probe.latencyMs!.toFixed(1)} ms round trip`;
  const schema = probe.problem === null ? `schema version ${probe.version}` : probe.problem;
  return [
    {
      area: 'team cache',
      level: probe.problem === null ? (probe.latencyMs! > config.waitMs ? 'warn' : 'ok') : 'fail',
      detail: `${config.masked} reachable, ${latency} (wait per need ${config.waitMs} ms), ${schema}`,
    },
  ];
}

function print(io: CliIO, checks: readonly Check[], json: boolean): void {
  if (json) {
    io.stdout.write(`${JSON.stringify({ checks }, null, 2)}\n`);
    return;
  }
  const width = Math.max(...checks.map((c) => c.area.length));
  for (const c of checks) io.stdout.write(`${c.level.padEnd(4)}  ${c.area.padEnd(width)}  ${c.detail}\n`);
}

export const doctorCommand: CliCommand = {
  path: ['doctor'],
  summary: 'check the database, git, the sandbox and the configured workers',
  help: `Usage: needle doctor [--data-dir D] [--repository R] [--role-profile ID] [--team-cache URL] [--json]

Reports, one line each: the database (opened and migrated, never created),
the enabled routes, git and the repository, bubblewrap sandbox availability,
the workers of the role profile (default: ${BUILTIN_PROFILE_ID}), and the team cache
(--team-cache or $NEEDLE_TEAM_CACHE: reachability, schema version, latency;
the URL is shown with its password masked). Exits 1 when a check fails.
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      'data-dir': { type: 'string' },
      repository: { type: 'string' },
      'role-profile': { type: 'string' },
      json: { type: 'boolean' },
      'team-cache': { type: 'string' },
    });
    const profileId = checkProfileId(stringOption(values, 'role-profile') ?? BUILTIN_PROFILE_ID);
    const dataDir = resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd);
    const repository = resolve(io.cwd, stringOption(values, 'repository') ?? '.');
    const sandbox = detectSandbox();
    const checks = [
      ...storeChecks(dataDir, profileId, io.env),
      ...gitChecks(repository),
      { area: 'sandbox', level: sandbox.active ? 'ok' : 'warn', detail: sandbox.reason } satisfies Check,
      ...(await teamChecks(stringOption(values, 'team-cache'), io.env)),
    ];
    print(io, checks, values.json === true);
    return checks.some((c) => c.level === 'fail') ? 1 : 0;
  },
};
