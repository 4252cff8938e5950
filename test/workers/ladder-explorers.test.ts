/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
// buildExplorers: the profile's explorer list as workers, in order, with the
// Codex worker's settings taken from the profile and its credential from the
// environment at run time only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openDb } from '../../src/store/db.js';
import { buildExplorers, runsRootOf } from '../../src/workers/explorers.js';
import { makeRepo, need, options, type Repo } from '../resolve/fixture.js';
import { readLog, simulator } from './fixtures.js';
import { certifiedPredicates, ladderEngine, ladderProfile, NO_SANDBOX } from './ladder-fixture.js';

const BEHAVIOR = { kind: 'behavior' as const, name: 'the upload is skipped' };

let repo: Repo;
beforeEach(() => {
  repo = makeRepo();
});
afterEach(() => repo.cleanup());

describe('buildExplorers', () => {
  it('keeps the profile order: the free static worker first, model workers counted against the limit', () => {
    const profile = ladderProfile({ model: 'gpt-sim-mini' });
    const workers = buildExplorers(profile, { dataDir: repo.dataDir, db: openDb(join(repo.dataDir, 'needle.sqlite3')), sandbox: NO_SANDBOX });
    expect(workers.map((w) => [w.name, w.countsAgainstLimit])).toEqual([
      ['static', false],
      ['codex', true],
    ]);
  });

  it('reads the provider key from the given environment when the run starts, and gives it to the app server only', async () => {
    const sim = simulator(join(repo.dataDir, 'sims'), 'key', { turns: [{ steps: [{ message: { implementation_location: null } }] }] });
    const env: NodeJS.ProcessEnv = { NEEDLE_SIM_MODEL_KEY: 'sk-at-build-time' };
    const profile = ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, provider: { name: 'mock', base_url: 'http://127.0.0.1:9/v1', env_key: 'NEEDLE_SIM_MODEL_KEY' } });
    const { engine } = ladderEngine(repo, profile, NO_SANDBOX, env);
    env.NEEDLE_SIM_MODEL_KEY = 'sk-rotated';
    const result = await engine.resolve(need(repo, 'locate.implementation', BEHAVIOR), options());
    expect(result.resolution).toMatchObject({ kind: 'bypass', reason: expect.stringContaining('codex: the model could not establish any missing obligation') });

    const log = readLog(sim.log);
    const start = log.find((e) => e.event === 'start')!;
    expect((start.env as Record<string, string>).NEEDLE_SIM_MODEL_KEY).toBe('sk-rotated');
    expect(process.env.NEEDLE_SIM_MODEL_KEY).toBeUndefined();
    expect(start.cwd as string).toContain(`${runsRootOf(repo.dataDir)}/worker-`);
    // The model's shell never sees the key.
    const thread = log.find((e) => e.event === 'request' && e.method === 'thread/start')!.params as any;
    expect(JSON.stringify(thread.config.shell_environment_policy)).not.toContain('sk-');
    expect((start.argv as string[]).join(' ')).not.toContain('sk-');
  });

  it('honours require_sandbox: without isolation the Codex worker refuses before starting anything', async () => {
    const sim = simulator(join(repo.dataDir, 'sims'), 'required', { turns: [] });
    const profile = ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe }, { require_sandbox: true });
    const { db, engine } = ladderEngine(repo, profile, { bwrap: null, active: false, reason: 'bwrap not found on PATH' });
    await expect(engine.resolve(need(repo, 'locate.implementation', BEHAVIOR), options())).rejects.toThrow(
      'the role profile requires sandboxing but it is not active: bwrap not found on PATH',
    );
    expect(readLog(sim.log)).toEqual([]);
    expect(certifiedPredicates(db, BEHAVIOR.name)).toEqual([]);
  });
});
