// Crash safety between the rows of a certification (issue 14 item 12): a real
// `needle context` process is killed with SIGKILL after the first of several
// certification rows of one step was written (the test hook blocks it there).
// After the restart nothing of that attempt is servable — the next request is
// a miss that runs the worker again, not a hit with part of the rows — and
// everything certified before the crash is still served.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { CLI, requireBuild } from '../mcp/fixtures.js';
import { makeRepo, type Repo } from './fixture.js';

interface Answer {
  readonly status: string;
  readonly satisfied: string[];
  readonly cache_hit: boolean;
  readonly worker_spawned: boolean;
  readonly context: string;
}

let repo: Repo;
beforeAll(requireBuild);
beforeEach(() => {
  repo = makeRepo();
});
afterEach(() => repo.cleanup());

const args = (route: string, subject: string) => [CLI, 'context', '--route', route, '--subject', subject, '--json', '--data-dir', repo.dataDir];
const LOCATE = () => args('locate.implementation', 'symbol:parseOptions');
const FLOW = () => args('trace.state-flow', 'cli_option:--dry-run');

function context(argv: string[]): Answer {
  const r = spawnSync(process.execPath, argv, { cwd: repo.root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NEEDLE_DATA_DIR: '' } });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Answer;
}

const certified = (): string[] => {
  const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
  try {
    return (db.prepare('SELECT certificate_id AS id FROM evidence_certifications ORDER BY certificate_id').all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
};

describe('crash between the rows of a certification', () => {
  it('kill -9 after one of several certification rows: nothing of that attempt is servable, nothing earlier is lost', async () => {
    // Something certified before the crash.
    const first = context(LOCATE());
    expect(first).toMatchObject({ worker_spawned: true, cache_hit: false });
    expect(first.satisfied).toContain('implementation_location');
    const before = certified();
    expect(before.length).toBeGreaterThan(0);

    // The flow need certifies several artifacts in one step; block after the first certification row, then kill -9.
    const fifo = join(repo.root, '..', 'hook.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, FLOW(), {
      cwd: repo.root,
      env: { ...process.env, NEEDLE_DATA_DIR: '', NEEDLE_TEST_HOOK_CERTIFY_FIFO: fifo, NEEDLE_TEST_HOOK_CERTIFY_AFTER_ROWS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
    await new Promise<void>((ok, fail) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('inside certification transaction after 1 certification row(s)') && ok());
      child.on('exit', (code) => fail(new Error(`needle context exited before the hook (${code}): ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // Restart: exactly what was certified before, nothing of the killed attempt.
    expect(certified()).toEqual(before);
    const again = context(FLOW());
    expect(again.cache_hit).toBe(false);
    expect(again.worker_spawned).toBe(true);
    expect(again.satisfied.length).toBeGreaterThan(1);
    // This time the step committed whole; the earlier certificate was never lost.
    const after = certified();
    expect(after.length).toBeGreaterThan(before.length + 1);
    expect(after).toEqual(expect.arrayContaining(before));
    const hit = context(LOCATE());
    expect(hit).toMatchObject({ status: 'hit', cache_hit: true, worker_spawned: false, satisfied: first.satisfied });
    expect(hit.context).toContain('src/config.ts');
  }, 120_000);
});
