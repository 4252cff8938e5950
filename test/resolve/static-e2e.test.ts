import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliCommand, CliIO } from '../../src/cli/command.js';
import { cacheInvalidateCommand, cacheListCommand, cacheShowCommand } from '../../src/cli/commands/cache.js';
import { contextCommand } from '../../src/cli/commands/context.js';
import { needsCommand } from '../../src/cli/commands/needs.js';
import { statsCommand } from '../../src/cli/commands/stats.js';
import { makeRepo, type Repo } from './fixture.js';

let repo: Repo;
beforeAll(() => {
  repo = makeRepo();
});
afterAll(() => repo.cleanup());

async function run(cmd: CliCommand, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const io: CliIO = { stdout, stderr, stdin: new PassThrough(), env: { ...process.env, NEEDLE_DATA_DIR: repo.dataDir }, cwd: repo.root, interactive: false };
  const code = await cmd.run(argv, io);
  return { code, out, err };
}

describe('static worker end to end through the CLI commands', () => {
  const args = ['--route', 'locate.implementation', '--subject', 'symbol:parseOptions'];

  it('resolves a need with the real static worker, then serves the repeat from the cache with zero workers', async () => {
    const first = await run(contextCommand, [...args, '--json']);
    expect(first.code).toBe(0);
    const a = JSON.parse(first.out);
    expect(a.status).toBe('generated');
    expect(a.worker_spawned).toBe(true);
    expect(a.satisfied).toEqual(['implementation_location']);
    expect(a.context).toMatch(/primary: src\/config.ts:5-8/);

    const second = await run(contextCommand, [...args, '--json']);
    const b = JSON.parse(second.out);
    expect(b.status).toBe('hit');
    expect(b.resolution.kind).toBe('exact_hit');
    expect(b.worker_spawned).toBe(false);
    expect(b.cache_hit).toBe(true);
    expect(b.context).toBe(a.context.replace('resolution=miss', 'resolution=exact_hit'));

    const human = await run(contextCommand, args);
    expect(human.out).toMatch(/^\[NEEDLE_CONTEXT route=locate.implementation subject=symbol:parseOptions resolution=exact_hit\]/);
  });

  it('lists, shows (with replay validity), invalidates, and reports needs and stats', async () => {
    const list = JSON.parse((await run(cacheListCommand, ['--json'])).out);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ predicate: 'implementation_location', subject: 'symbol:parseOptions', status: 'fresh' });
    const show = JSON.parse((await run(cacheShowCommand, [list[0].certificate_id, '--json'])).out);
    expect(show.dependencies.every((d: { state: string }) => d.state === 'unchanged')).toBe(true);
    expect(show.sufficiency[0]).toMatchObject({ replay_valid: true });

    const needs = JSON.parse((await run(needsCommand, ['--json'])).out);
    expect(needs.map((n: { kind: string }) => n.kind)).toEqual(['exact_hit', 'exact_hit', 'miss']);
    const stats = JSON.parse((await run(statsCommand, ['--json'])).out);
    expect(stats).toContainEqual(expect.objectContaining({ route: 'locate.implementation', model: '*', resolutions: 3, hits: 2 }));
    expect(stats).toContainEqual(expect.objectContaining({ model: 'static', workerRuns: 1, workersAvoided: 2, costAvoidedUsd: 0 }));

    expect((await run(cacheInvalidateCommand, [list[0].artifact_id])).out).toBe('invalidated 1 certificate(s)\n');
    const after = JSON.parse((await run(cacheShowCommand, [list[0].certificate_id, '--json'])).out);
    expect(after.status).toBe('invalidated');
    expect(after.sufficiency[0]).toMatchObject({ replay_valid: false });
    const cached = JSON.parse((await run(contextCommand, [...args, '--json', '--cache-only'])).out);
    expect(cached.status).toBe('bypass');
  });

  it('refuses bad invocations with one line', async () => {
    await expect(run(contextCommand, ['--route', 'nope', '--subject', 'symbol:x'])).rejects.toThrow(/--route must be one of/);
    await expect(run(contextCommand, ['--route', 'locate.implementation', '--subject', 'x'])).rejects.toThrow(/kind:name/);
  });
});
