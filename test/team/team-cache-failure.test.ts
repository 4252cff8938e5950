// The team cache when things go wrong, against a real PostgreSQL server:
// stale or invalidated local evidence is never published, four publishers of
// one certificate converge on one row, a silent or stopped server costs at
// most the bounded wait (one warning per process) and sharing resumes after a
// restart, and a publisher killed mid-transaction leaves nothing visible.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextCommand } from '../../src/cli/commands/context.js';
import { compileNeed, DEFAULT_WORLD } from '../../src/core/need.js';
import { repositoryLineage } from '../../src/repo/snapshot.js';
import { flushBookkeeping } from '../../src/store/bookkeeping.js';
import { invalidate } from '../../src/store/evidence/certificates.js';
import { TeamCache, resetTeamCacheWarning, BACKOFF_MS } from '../../src/team/client.js';
import { parseTeamCacheUrl } from '../../src/team/config.js';
import { CLI, requireBuild, ServerProcess, callNeed } from '../mcp/fixtures.js';
import { postgresUnavailable } from '../support/postgres.js';
import { brief, locate, teamWorld, type Clone, type TeamWorld } from './helpers.js';

const unavailable = postgresUnavailable();
if (unavailable) console.warn(`team cache failure tests skipped: ${unavailable}`);

let w: TeamWorld;

function teamFor(where: Clone, url = w.server.url, waitMs = 5_000, log: string[] = []): TeamCache {
  return new TeamCache({ config: parseTeamCacheUrl(url, waitMs), db: w.db(where), repoRoot: where.root, env: w.server.env, log: (l) => log.push(l) });
}

function certificateIds(where: Clone): `b3:${string}`[] {
  const db = w.db(where);
  try {
    return (db.prepare('SELECT id FROM evidence_certificates ORDER BY id').all() as { id: `b3:${string}` }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

const count = async (sql: string, params: unknown[] = []): Promise<number> => (await w.server.query<{ n: number }>(sql, params))[0]!.n;

describe.skipIf(unavailable !== null)('team cache failures on a real PostgreSQL server', () => {
  beforeAll(async () => {
    w = await teamWorld();
  });
  afterAll(() => w?.cleanup());

  it('never publishes stale or invalidated local evidence; fresh evidence is published', async () => {
    const lineage = repositoryLineage(w.repo.root);
    const stale = w.clone();
    await w.run(contextCommand, locate('symbol:parseOptions'), stale);
    const [staleId] = certificateIds(stale);
    appendFileSync(`${stale.root}/src/config.ts`, '\n');
    const staleTeam = teamFor(stale);
    expect(await staleTeam.publishOne(lineage, staleId!)).toBe(false);
    await staleTeam.close();

    const invalidated = w.clone();
    await w.run(contextCommand, locate('symbol:parseOptions'), invalidated);
    const [invalidatedId] = certificateIds(invalidated);
    expect(invalidatedId).toBe(staleId);
    const db = w.db(invalidated);
    invalidate(db, invalidatedId!, 'wrong', Date.now());
    db.close();
    const invalidatedTeam = teamFor(invalidated);
    expect(await invalidatedTeam.publishOne(lineage, invalidatedId!)).toBe(false);
    await invalidatedTeam.close();
    expect(await count('SELECT count(*)::int AS n FROM needle_team_certificates')).toBe(0);

    const fresh = w.clone();
    await w.run(contextCommand, locate('symbol:parseOptions'), fresh);
    const freshTeam = teamFor(fresh);
    expect(await freshTeam.publishOne(lineage, staleId!)).toBe(true);
    await freshTeam.close();
    expect(await count('SELECT count(*)::int AS n FROM needle_team_certificates WHERE certificate_id = $1', [staleId])).toBe(1);
  });

  it('four publishers of the same certificate at once converge on one row (and one set of claims)', async () => {
    const lineage = repositoryLineage(w.repo.root);
    const clones = [w.clone(), w.clone(), w.clone(), w.clone()];
    for (const c of clones) await w.run(contextCommand, locate('symbol:deploy'), c);
    const ids = clones.map(certificateIds);
    for (const i of ids) expect(i).toEqual(ids[0]);
    const [id] = ids[0]!;
    const teams = clones.map((c) => teamFor(c));
    const written = await Promise.all(teams.map((t) => t.publishOne(lineage, id!)));
    await Promise.all(teams.map((t) => t.close()));
    expect(written.filter(Boolean)).toHaveLength(1);
    expect(await count('SELECT count(*)::int AS n FROM needle_team_certificates WHERE certificate_id = $1', [id])).toBe(1);
    const db = w.db(clones[0]!);
    const localClaims = (db.prepare('SELECT count(*) AS n FROM evidence_claim_origins WHERE certificate_id = ?').get(id) as { n: number }).n;
    db.close();
    expect(await count('SELECT count(*)::int AS n FROM needle_team_claims WHERE certificate_id = $1', [id])).toBe(localClaims);
  });

  it('a publisher holding its transaction open blocks neither the publisher of another certificate nor fails a racing publisher of its own', async () => {
    const lineage = repositoryLineage(w.repo.root);
    const x = w.clone();
    const y = w.clone();
    const x2 = w.clone();
    await w.run(contextCommand, locate('symbol:Options'), x);
    await w.run(contextCommand, locate('symbol:Options'), x2);
    await w.run(contextCommand, locate('symbol:answer'), y);
    const [idX] = certificateIds(x);
    const [idY] = certificateIds(y);
    expect(idX).toBeDefined();
    expect(idY).toBeDefined();
    expect(certificateIds(x2)).toEqual([idX]);
    const slow = new TeamCache({
      config: parseTeamCacheUrl(w.server.url, 5_000),
      db: w.db(x),
      repoRoot: x.root,
      env: { ...w.server.env, NEEDLE_TEST_HOOK_TEAM_PUBLISH_PAUSE: '4000' },
      log: () => undefined,
    });
    let slowDone = false;
    const slowWrite = slow.publishOne(lineage, idX!).finally(() => (slowDone = true));
    // Wait until the slow publisher's transaction is open with its rows written (its last statement inserted claims).
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) {
      seen = (await count("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'needle' AND state = 'idle in transaction' AND query LIKE 'INSERT INTO needle_team_claims%'")) > 0;
      if (!seen) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBe(true);
    const other = teamFor(y);
    expect(await other.publishOne(lineage, idY!)).toBe(true);
    expect(slowDone).toBe(false);
    const racing = teamFor(x2);
    const racingWrite = racing.publishOne(lineage, idX!);
    expect(await slowWrite).toBe(true);
    expect(await racingWrite).toBe(false);
    await Promise.all([slow.close(), other.close(), racing.close()]);
    expect(await count('SELECT count(*)::int AS n FROM needle_team_certificates WHERE certificate_id = ANY($1)', [[idX, idY]])).toBe(2);
  });

  it('a team cache that accepts connections and never answers costs at most the bounded wait, with one warning', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      resetTeamCacheWarning();
      const here = w.clone();
      const log: string[] = [];
      const team = teamFor(here, `postgres://needle_team@127.0.0.1:${port}/postgres`, 150, log);
      const need = compileNeed(
        { route: 'locate.implementation', subject: { kind: 'symbol', name: 'deploy' }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'find it' },
        repositoryLineage(here.root),
      );
      const started = performance.now();
      expect(await team.consume(need)).toEqual([]);
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(140);
      expect(waited).toBeLessThan(1_500);
      // Within the back-off the team cache is not asked at all.
      const again = performance.now();
      expect(await team.consume(need)).toEqual([]);
      expect(performance.now() - again).toBeLessThan(50);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatch(/did not answer in time: no answer within 150 ms; answering from the local store only \(warned once\)/);
      await team.close();
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('kill -9 of a publisher inside its transaction leaves nothing visible; the next publisher writes the whole certificate', async () => {
    requireBuild();
    const a = w.clone();
    const child = spawn(process.execPath, [CLI, 'context', ...locate('cli_option:--dry-run'), '--team-cache', w.server.url], {
      cwd: a.root,
      env: { ...process.env, ...w.server.env, NEEDLE_DATA_DIR: a.dataDir, NEEDLE_TEAM_CACHE_WAIT_MS: '5000', NEEDLE_TEST_HOOK_TEAM_PUBLISH_PAUSE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    await new Promise<void>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`publisher never reached its transaction: ${err}`)), 60_000);
      child.stderr.on('data', (d) => {
        err += d;
        if (err.includes('inside team publish transaction')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // The answer went out before publishing started.
    expect(brief(stdout).status).toBe('generated');
    const visible = "SELECT count(*)::int AS n FROM needle_team_certificates WHERE subject_name = '--dry-run'";
    expect(await count(visible)).toBe(0);
    child.kill('SIGKILL');
    await exited;
    expect(await count(visible)).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM needle_team_claims')).toBe(
      await count('SELECT count(*)::int AS n FROM needle_team_claims k JOIN needle_team_certificates c USING (certificate_id)'),
    );
    const b = w.clone();
    await w.run(contextCommand, [...locate('cli_option:--dry-run'), '--team-cache', w.server.url], b);
    expect(await count(visible)).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM needle_team_claims k JOIN needle_team_certificates c USING (certificate_id) WHERE c.subject_name = '--dry-run'")).toBeGreaterThan(0);
  });

  it('PostgreSQL stopped mid-session: the MCP server answers locally with one warning; restarted, sharing resumes', async () => {
    requireBuild();
    const b = w.clone();
    const server = new ServerProcess({
      repo: b.root,
      dataDir: b.dataDir,
      env: { ...w.server.env, NEEDLE_TEAM_CACHE: w.server.url, NEEDLE_TEAM_CACHE_WAIT_MS: '2000' },
    });
    try {
      await server.initialize();
      w.server.stop();
      const local = await server.request(callNeed('down', { route: 'tests.relevant', subject: { kind: 'cli_option', name: '--dry-run' }, task: 'which test?' }));
      expect(local.result.isError).toBeFalsy();
      expect(local.result.structuredContent).toMatchObject({ status: 'generated', worker_spawned: true });
      w.server.start();
      await new Promise((r) => setTimeout(r, BACKOFF_MS + 200));
      const shared = await server.request(callNeed('up', { route: 'locate.implementation', subject: { kind: 'cli_option', name: '--dry-run' }, task: 'where?' }));
      expect(shared.result.structuredContent).toMatchObject({ status: 'hit', worker_spawned: false, cache_hit: true });
      expect(await server.close()).toBe(0);
      expect(server.stderr.match(/answering from the local store only/g)).toHaveLength(1);
      expect(server.stderr).not.toContain(w.server.env.PGPASSWORD);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe.skipIf(unavailable !== null)('what a shared model-worker answer saves', () => {
  let world: TeamWorld;
  beforeAll(async () => {
    world = await teamWorld();
  });
  afterAll(() => world?.cleanup());

  it('a model worker answer published once is imported by every other clone with zero workers; the accounting shows the tokens and cost each avoided', async () => {
    const { createEngine } = await import('../../src/resolve/engine.js');
    const { BUILTIN_LOCAL_PROFILE } = await import('../../src/core/profile.js');
    const { scriptedWorker } = await import('../resolve/fixture.js');
    const { teamStats } = await import('../../src/store/team.js');
    const profile = {
      ...BUILTIN_LOCAL_PROFILE,
      pricing: [{ model: 'test-model', input_usd_per_mtok: 1.25, cached_input_usd_per_mtok: 0.125, output_usd_per_mtok: 10 }],
    };
    const proposal = {
      predicate: 'implementation_location',
      payload: { locations: [{ role: 'primary', path: 'src/config.ts', symbol: 'Options', start_line: 1, end_line: 3 }], gaps: [] },
    };
    const session = (c: Clone, withWorker: boolean) => {
      const db = world.db(c);
      const worker = scriptedWorker({ root: c.root } as never, (_input, observe) => {
        observe('src/config.ts');
        return [proposal as never];
      }, { model: true });
      const team = new TeamCache({ config: parseTeamCacheUrl(world.server.url, 5_000), db, repoRoot: c.root, env: world.server.env, log: () => undefined });
      const engine = createEngine({ db, repoRoot: c.root, explorers: withWorker ? [worker] : [], profile, team });
      return { db, team, engine, worker };
    };
    const needOf = (c: Clone) =>
      compileNeed({ route: 'locate.implementation', subject: { kind: 'symbol', name: 'Options' }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'find it' }, repositoryLineage(c.root));
    const opts = () => ({ cacheOnly: false, modelWorkersLeft: 3, signal: new AbortController().signal });

    const a = world.clone();
    const pub = session(a, true);
    const first = await pub.engine.resolve(needOf(a), opts());
    expect(first.workerSpawned).toBe(true);
    await pub.team.close();
    const spent = pub.db.prepare('SELECT input_tokens + output_tokens AS tokens, price_microusd FROM worker_runs').get() as { tokens: number; price_microusd: number };
    expect(spent).toEqual({ tokens: 1100, price_microusd: 2025 });

    for (const c of [world.clone(), world.clone(), world.clone()]) {
      const s = session(c, true);
      const r = await s.engine.resolve(needOf(c), opts());
      expect(r).toMatchObject({ workerSpawned: false, cacheHit: true });
      expect(s.worker.calls).toHaveLength(0);
      // Counters are bookkeeping, committed after the answer (store/bookkeeping.ts).
      flushBookkeeping(s.db);
      expect(teamStats(s.db)).toMatchObject({ teamHits: 1, imported: 1, tokensAvoided: 1100, costAvoidedUsd: 0.002025 });
      await s.team.close();
    }
  });

  it('a profile with team_cache.publish_model_results false keeps model-worker certificates local', async () => {
    const { createEngine } = await import('../../src/resolve/engine.js');
    const { BUILTIN_LOCAL_PROFILE } = await import('../../src/core/profile.js');
    const { scriptedWorker, IL_PARSE_OPTIONS } = await import('../resolve/fixture.js');
    const c = world.clone();
    const db = world.db(c);
    const profile = { ...BUILTIN_LOCAL_PROFILE, team_cache: { publish_model_results: false } };
    const worker = scriptedWorker({ root: c.root } as never, (_input, observe) => {
      observe('src/config.ts');
      observe('src/deploy.ts');
      return [IL_PARSE_OPTIONS];
    }, { model: true });
    const team = new TeamCache({
      config: parseTeamCacheUrl(world.server.url, 5_000),
      db,
      repoRoot: c.root,
      env: world.server.env,
      log: () => undefined,
      publishModelResults: profile.team_cache.publish_model_results,
    });
    const engine = createEngine({ db, repoRoot: c.root, explorers: [worker], profile, team });
    const need = compileNeed({ route: 'locate.implementation', subject: { kind: 'symbol', name: 'parseOptions' }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'find it' }, repositoryLineage(c.root));
    expect((await engine.resolve(need, { cacheOnly: false, modelWorkersLeft: 3, signal: new AbortController().signal })).workerSpawned).toBe(true);
    await team.close();
    expect((await world.server.query<{ n: number }>("SELECT count(*)::int AS n FROM needle_team_certificates WHERE subject_name = 'parseOptions'"))[0]!.n).toBe(0);
  });
});
