// The Stop hook (`needle hook stop`, one process per event, run from dist/ as
// the clients run it) through the team cache on a real PostgreSQL server:
// clone A's hook resolves a need and its certificate is in the team cache by
// the time the hook process has exited; clone B, at another path with its own
// data directory, configured by NEEDLE_TEAM_CACHE alone, gets the same
// FrontierView as an exact hit with no worker run; a malformed team cache URL
// never fails the client's turn and writes nothing, locally or remotely.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { NEEDLE_BIN, runClient } from '../hooks/clients.js';
import { postgresUnavailable } from '../support/postgres.js';
import { teamWorld, type Clone, type TeamWorld } from './helpers.js';

const unavailable = postgresUnavailable();
if (unavailable) console.warn(`team cache hook tests skipped: ${unavailable}`);

const SUBJECT = 'cli_option:--dry-run';
const HOOK_MS = 60_000;

let w: TeamWorld;

interface HookRun {
  readonly code: number | null;
  readonly answer: { decision?: string; reason?: string };
  readonly stdout: string;
  readonly stderr: string;
}

const stopPayload = (where: Clone, session: string): string =>
  JSON.stringify({
    session_id: session,
    cwd: where.root,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: `Let me ask for evidence.\n\n@@need\n@route locate.implementation\n@subject ${SUBJECT}\n\nWhere is the dry-run option implemented?\n@@end`,
  });

/** `needle hook stop --client claude-code` from dist/, the payload on stdin; resolves once the process has exited. */
async function hookStop(where: Clone, session: string, extraArgs: string[], extraEnv: NodeJS.ProcessEnv): Promise<HookRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...w.server.env, NEEDLE_TEAM_CACHE_WAIT_MS: '5000', ...extraEnv };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  const r = await runClient(process.execPath, [NEEDLE_BIN, 'hook', 'stop', '--client', 'claude-code', '--data-dir', where.dataDir, ...extraArgs], {
    cwd: where.root,
    env,
    timeoutMs: HOOK_MS,
    input: stopPayload(where, session),
  });
  let answer: HookRun['answer'] = {};
  try {
    answer = JSON.parse(r.stdout) as HookRun['answer'];
  } catch {
    throw new Error(`hook printed no JSON (exit ${r.code}): stdout=${JSON.stringify(r.stdout)} stderr=${JSON.stringify(r.stderr)}`);
  }
  return { code: r.code, answer, stdout: r.stdout, stderr: r.stderr };
}

/** Every row count of every table of a clone's store. */
function localCounts(where: Clone): Record<string, number> {
  const db = w.db(where);
  try {
    return counts(db);
  } finally {
    db.close();
  }
}

function counts(db: Db): Record<string, number> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n]));
}

/** Every row count of every table of the team cache schema. */
async function remoteCounts(): Promise<Record<string, number>> {
  const tables = await w.server.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables) out[table_name] = (await w.server.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}"`))[0]!.n;
  return out;
}

interface StepRow {
  readonly status: string;
  readonly resolution_kind: string | null;
  readonly satisfied: string;
}

const steps = (db: Db): StepRow[] => db.prepare('SELECT status, resolution_kind, satisfied FROM need_steps ORDER BY id').all() as StepRow[];
const workerRuns = (db: Db): number => (db.prepare('SELECT count(*) AS n FROM worker_runs').get() as { n: number }).n;

describe.skipIf(unavailable !== null)('needle hook stop with the team cache on a real PostgreSQL server', () => {
  let a: Clone;
  let b: Clone;
  let reasonA = '';
  let publisher = '';

  beforeAll(async () => {
    w = await teamWorld();
    a = w.clone();
    b = w.clone();
  });
  afterAll(() => w?.cleanup());

  it("A's Stop hook with --team-cache resolves the need and has published its certificate when the process exits", { timeout: 2 * HOOK_MS }, async () => {
    expect(await remoteCounts()).toMatchObject({ needle_team_certificates: 0 });
    const r = await hookStop(a, 'session-a', ['--team-cache', w.server.url], { NEEDLE_TEAM_CACHE: undefined });
    expect(r.code).toBe(0);
    expect(r.answer.decision).toBe('block');
    expect(r.answer.reason).toContain('resolution=miss');
    expect(r.answer.reason).toMatch(/src\/deploy\.ts/);
    reasonA = r.answer.reason!;

    // Nothing waited for: the process is gone, and the row is already there.
    const published = await w.server.query<{ predicate: string; publisher: string }>('SELECT predicate, publisher FROM needle_team_certificates');
    expect(published.map((p) => p.predicate)).toEqual(['implementation_location']);
    publisher = published[0]!.publisher;

    const db = w.db(a);
    expect(steps(db)).toEqual([{ status: 'generated', resolution_kind: 'miss', satisfied: JSON.stringify(['implementation_location']) }]);
    expect(workerRuns(db)).toBeGreaterThan(0);
    db.close();
  });

  it('B, another clone with its own data directory and only NEEDLE_TEAM_CACHE set, gets an exact hit with no worker run, origin recorded', { timeout: 2 * HOOK_MS }, async () => {
    expect(reasonA).not.toBe('');
    const r = await hookStop(b, 'session-b', [], { NEEDLE_TEAM_CACHE: w.server.url });
    expect(r.code).toBe(0);
    expect(r.answer.decision).toBe('block');
    expect(r.answer.reason).toContain('resolution=exact_hit');
    expect(r.answer.reason).toBe(reasonA.replace('resolution=miss', 'resolution=exact_hit'));

    const db = w.db(b);
    expect(steps(db)).toEqual([{ status: 'hit', resolution_kind: 'exact_hit', satisfied: JSON.stringify(['implementation_location']) }]);
    expect(workerRuns(db)).toBe(0);
    expect(db.prepare('SELECT origin, publisher FROM team_imports').all()).toEqual([{ origin: w.server.url, publisher }]);
    db.close();
    // B does not publish back what it imported.
    expect(await remoteCounts()).toMatchObject({ needle_team_certificates: 1 });
  });

  const malformed: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
    ['--team-cache not a URL', ['--team-cache', 'postgres//no-scheme'], { NEEDLE_TEAM_CACHE: undefined }, /must look like postgres:\/\//],
    ['NEEDLE_TEAM_CACHE with another scheme', [], { NEEDLE_TEAM_CACHE: 'mysql://needle_team@127.0.0.1/postgres' }, /must start with postgres:\/\//],
    ['--team-cache carrying a password', ['--team-cache', 'postgres://needle_team:hunter22@127.0.0.1/postgres'], { NEEDLE_TEAM_CACHE: undefined }, /must not contain a password/],
  ];

  for (const [name, args, env, message] of malformed) {
    it(`${name}: the hook answers {} with one line on stderr, exit 0, and changes no rows`, { timeout: 2 * HOOK_MS }, async () => {
      const before = { local: localCounts(a), remote: await remoteCounts() };
      const r = await hookStop(a, `session-malformed-${name}`, args, env);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('{}\n');
      expect(r.answer).toEqual({});
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^needle hook stop: /);
      expect(lines[0]).toMatch(message);
      expect(r.stderr).not.toContain('hunter22');
      expect({ local: localCounts(a), remote: await remoteCounts() }).toEqual(before);
    });
  }
});
