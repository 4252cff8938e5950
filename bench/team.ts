// `npm run bench -- team`: the team cache next to the local cache, in
// process, with PostgreSQL on loopback (a throw-away cluster, or --url):
// a cold static resolution on a fresh data directory, a local warm hit
// (repeat on the same data directory), and a team hit — a second clone at
// another path with a fresh data directory whose need is answered from the
// team cache: fetch + local re-validation + import + answer, zero workers.
// The team-hit client has its connection open already (as in a server session
// after its first need); the first need of a process also pays the connect.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { arch, cpus, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compileNeed, DEFAULT_WORLD, type CompiledNeed } from '../src/core/need.js';
import { BUILTIN_LOCAL_PROFILE } from '../src/core/profile.js';
import type { EngineResult } from '../src/core/resolution.js';
import type { RouteId } from '../src/core/semantic.js';
import { loadLanguages } from '../src/evidence/parse/treesitter.js';
import { createStaticWorker } from '../src/evidence/static-worker.js';
import { repositoryLineage } from '../src/repo/snapshot.js';
import { createEngine } from '../src/resolve/engine.js';
import { openDataDir } from '../src/store/datadir.js';
import { initTeamCache } from '../src/team/admin.js';
import { TeamCache } from '../src/team/client.js';
import { parseTeamCacheUrl, type TeamCacheConfig } from '../src/team/config.js';
import { generateRepository, GENERATED_SUBJECT } from './evidence/generate.js';
import { postgresUnavailable, startPostgres, type PgServer } from './pg-cluster.js';
import { replaceSection } from './readme.js';
import { summarize, type Summary } from './stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const OPTIONS = () => ({ cacheOnly: false, modelWorkersLeft: 0, signal: new AbortController().signal });

function engineFor(repo: string, scratch: string, team: ((db: ReturnType<typeof openDataDir>['db']) => TeamCache) | null = null) {
  const data = openDataDir(mkdtempSync(join(scratch, 'data-')));
  const client = team ? team(data.db) : null;
  const engine = createEngine({ db: data.db, repoRoot: repo, explorers: [createStaticWorker()], profile: BUILTIN_LOCAL_PROFILE, ...(client ? { team: client } : {}) });
  return {
    engine,
    client,
    close: async () => {
      await client?.close();
      data.db.close();
    },
  };
}

async function timed(f: () => Promise<EngineResult>): Promise<{ ms: number; result: EngineResult }> {
  const t0 = performance.now();
  const result = await f();
  return { ms: performance.now() - t0, result };
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const row = (what: string, s: Summary) => `| ${what} | ${s.n} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.max)} |`;

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { url: { type: 'string' }, repeats: { type: 'string' }, files: { type: 'string' }, 'write-readme': { type: 'boolean' } }, strict: true });
  const repeats = Number(values.repeats ?? 20);
  const files = Number(values.files ?? 1000);
  let server: PgServer | null = null;
  let config: TeamCacheConfig;
  const env = { ...process.env };
  if (values.url) config = parseTeamCacheUrl(values.url, 5_000);
  else {
    const why = postgresUnavailable();
    if (why) {
      process.stderr.write(`bench team: ${why}; pass --url postgres://user@host/db\n`);
      return 2;
    }
    server = await startPostgres();
    Object.assign(env, server.env);
    config = parseTeamCacheUrl(server.url, 5_000);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'needle-bench-team-'));
  try {
    await initTeamCache(config, env);
    const a = join(scratch, 'a');
    generateRepository(a, files);
    const b = join(scratch, 'b');
    execFileSync('git', ['clone', '-q', a, b]);
    await loadLanguages();
    const route: RouteId = 'trace.state-flow';
    const needOf = (repo: string, task: string): CompiledNeed =>
      compileNeed({ route, subject: GENERATED_SUBJECT, required: [], preferred: [], world: DEFAULT_WORLD, task }, repositoryLineage(repo));
    const teamOf = (repo: string) => (db: ReturnType<typeof openDataDir>['db']) => new TeamCache({ config, db, repoRoot: repo, env, log: () => undefined });

    // Cold static resolutions (fresh data directory each), the first one publishing.
    const cold: number[] = [];
    for (let i = 0; i < Math.max(3, Math.floor(repeats / 4)); i++) {
      const s = engineFor(a, scratch, i === 0 ? teamOf(a) : null);
      const { ms, result } = await timed(() => s.engine.resolve(needOf(a, 'cold'), OPTIONS()));
      if (!result.workerSpawned) throw new Error('a cold resolution did not run the static worker');
      cold.push(ms);
      await s.close();
    }
    // Local warm hits on one data directory.
    const warm: number[] = [];
    const local = engineFor(a, scratch);
    await local.engine.resolve(needOf(a, 'warm'), OPTIONS());
    for (let i = 0; i < repeats * 5; i++) {
      const { ms, result } = await timed(() => local.engine.resolve(needOf(a, 'warm'), OPTIONS()));
      if (result.workerSpawned || !result.cacheHit) throw new Error(`a local repeat was ${result.resolution.kind}`);
      warm.push(ms);
    }
    await local.close();
    // Team hits on the second clone, a fresh data directory each, connection already open.
    const team: number[] = [];
    let kind = '';
    for (let i = 0; i < repeats; i++) {
      const s = engineFor(b, scratch, teamOf(b));
      await s.client!.consume(compileNeed({ route: 'locate.implementation', subject: { kind: 'symbol', name: 'warmUpTheConnection' }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'warm' }, repositoryLineage(b)));
      const { ms, result } = await timed(() => s.engine.resolve(needOf(b, 'team'), OPTIONS()));
      if (result.workerSpawned || !result.cacheHit) throw new Error(`a team repeat was ${result.resolution.kind} (worker ${result.workerSpawned})`);
      kind = result.resolution.kind;
      team.push(ms);
      await s.close();
    }
    const table = [
      '| measurement | n | p50 | p95 | max |',
      '|---|---:|---:|---:|---:|',
      row(`cold static resolution (${route}, fresh data directory)`, summarize(cold)),
      row('local warm hit (same data directory, zero workers)', summarize(warm)),
      row(`team hit: second clone, fresh data directory — fetch + re-validate + import + answer (${kind}, zero workers)`, summarize(team)),
    ].join('\n');
    const machine = `Node ${process.version}, ${platform()}-${arch()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}`;
    const report = `Generated TypeScript repository of ${files} files (bench/evidence/generate.ts), ${route} for ${GENERATED_SUBJECT.kind}:${GENERATED_SUBJECT.name}; PostgreSQL ${server ? 'throw-away cluster' : 'given by --url'} on loopback.\n\n${table}\n\nCommand: \`npm run bench -- team --repeats ${repeats}\` (${machine}, ${new Date().toISOString().slice(0, 10)})\n`;
    process.stdout.write(report);
    if (values['write-readme']) {
      replaceSection(join(root, 'README.md'), 'team', report);
      process.stdout.write('README.md updated\n');
    }
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    server?.cleanup();
  }
}

main().then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`bench team: ${(e as Error).message}\n`);
    process.exitCode = 1;
  },
);
