// Shared pieces of the team cache tests: clones of one fixture repository at
// different paths, each with its own data directory, and the CLI commands run
// in-process against a real PostgreSQL server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliCommand, CliIO } from '../../src/cli/command.js';
import { teamCacheInitCommand } from '../../src/cli/commands/team-cache.js';
import { dbFileOf } from '../../src/store/datadir.js';
import { openDb, type Db } from '../../src/store/db.js';
import { git } from '../support/git.js';
import { startPostgres, type PgServer } from '../support/postgres.js';
import { makeRepo, type Repo } from '../resolve/fixture.js';

export interface Clone {
  readonly root: string;
  readonly dataDir: string;
}

export interface TeamWorld {
  readonly server: PgServer;
  readonly repo: Repo;
  clone(): Clone;
  run(cmd: CliCommand, argv: string[], where: Clone, env?: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }>;
  db(where: Clone): Db;
  cleanup(): void;
}

export async function teamWorld(): Promise<TeamWorld> {
  const server = await startPostgres();
  const repo = makeRepo();
  const scratch = mkdtempSync(join(tmpdir(), 'needle-team-'));
  let counter = 0;
  const dbs: Db[] = [];
  const world: TeamWorld = {
    server,
    repo,
    clone() {
      const dir = join(scratch, `clone-${++counter}`);
      git(scratch, 'clone', '-q', repo.root, dir);
      return { root: dir, dataDir: join(scratch, `data-${counter}`) };
    },
    async run(cmd, argv, where, env = {}) {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (d) => (out += d));
      stderr.on('data', (d) => (err += d));
      const io: CliIO = {
        stdout,
        stderr,
        stdin: new PassThrough(),
        // A generous wait: the suite runs on a loaded 2-core machine; the bound itself is tested separately.
        env: { ...process.env, ...server.env, NEEDLE_DATA_DIR: where.dataDir, NEEDLE_TEAM_CACHE_WAIT_MS: '5000', ...env },
        cwd: where.root,
        interactive: false,
      };
      const code = await cmd.run(argv, io);
      return { code, out, err };
    },
    db(where) {
      const db = openDb(dbFileOf(where.dataDir));
      dbs.push(db);
      return db;
    },
    cleanup() {
      for (const db of dbs) if (db.open) db.close();
      server.cleanup();
      repo.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
  const init = await world.run(teamCacheInitCommand, [server.url], { root: repo.root, dataDir: join(scratch, 'init') });
  if (init.code !== 0) throw new Error(`team-cache init failed: ${init.err}`);
  return world;
}

export interface Brief {
  readonly status: string;
  readonly kind: string;
  readonly workerSpawned: boolean;
  readonly cacheHit: boolean;
  readonly satisfied: string[];
  readonly context: string;
}

export function brief(jsonText: string): Brief {
  const j = JSON.parse(jsonText) as Record<string, unknown> & { resolution: { kind: string } };
  return {
    status: j.status as string,
    kind: j.resolution.kind,
    workerSpawned: j.worker_spawned as boolean,
    cacheHit: j.cache_hit as boolean,
    satisfied: j.satisfied as string[],
    context: j.context as string,
  };
}

export const locate = (subject: string): string[] => ['--route', 'locate.implementation', '--subject', subject, '--json'];
export const flow = (subject: string): string[] => ['--route', 'trace.state-flow', '--subject', subject, '--json'];
export const tests = (subject: string): string[] => ['--route', 'tests.relevant', '--subject', subject, '--json'];
