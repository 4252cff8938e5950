// Needle works next to a user who is using git in the same repository: it
// must never rewrite their `.git/index` nor hold `.git/index.lock`, or the
// user's next `git add`/`git commit` fails with "Unable to create
// '.git/index.lock': File exists". A plain `git status` does both whenever
// tracked files' timestamps moved since the index last recorded them, so the
// tests first age the index (move every tracked file's mtime past it), then
// drive the built `needle mcp serve` and `needle change apply` as a user would.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, utimesSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blake3 } from '../../src/core/digest.js';
import { git, gitAsync, TEST_GIT_ENV } from '../support/git.js';
import {
  changeDigest,
  commandProfile,
  implementerScript,
  installProfile,
  makeWorld,
  needle,
  PATCHED,
  PREPARE_ARGS,
  readText,
  serve,
  verifierScript,
  writeText,
  type Served,
  type World,
} from './mcp-harness.js';

let world: World | null = null;
let served: Served | null = null;
afterEach(async () => {
  await served?.close();
  served = null;
  world?.cleanup();
  world = null;
});

const NEED = { route: 'locate.implementation', subject: { kind: 'symbol', name: 'add' }, task: 'Where is add() implemented?' };

async function call(s: Served, name: string, args: unknown): Promise<Record<string, unknown>> {
  const r = await s.client.callTool({ name, arguments: args as Record<string, unknown> });
  expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
  return r.structuredContent as Record<string, unknown>;
}

const indexDigest = (w: World): string => blake3(readFileSync(join(w.repo, '.git/index')));

/**
 * Moves every tracked file's mtime an hour past now (a step no clock race can
 * undo), so the stat data the index recorded no longer matches and any git
 * command allowed to would refresh and rewrite the index.
 */
function ageIndex(w: World): void {
  const later = new Date(Date.now() + 3_600_000);
  for (const rel of git(w.repo, 'ls-files', '-z').split('\0').filter(Boolean)) utimesSync(join(w.repo, rel), later, later);
}

/**
 * Every entry git creates, renames or removes directly under `.git`, seen
 * through inotify as it happens, however briefly it existed. `settle()`
 * writes a marker and waits (bounded) for its event: inotify reports events
 * of one directory in order, so everything before the marker has been seen.
 * It returns the names seen since the previous settle. One watcher per test,
 * closed after it: a second watcher of the same path, started right after the
 * first was closed, missed events here.
 */
interface GitDirWatch {
  settle(): Promise<string[]>;
  close(): void;
}
let watching: GitDirWatch | null = null;
afterEach(() => {
  watching?.close();
  watching = null;
});

function watchGitDir(w: World): GitDirWatch {
  const dir = join(w.repo, '.git');
  let seen: string[] = [];
  let settled = 0;
  let onEvent = (): void => {};
  const watcher = watch(dir, (_event, name) => {
    if (name) seen.push(name);
    onEvent();
  });
  watching = {
    settle: async () => {
      const marker = `needle-test-settled-${++settled}`;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no inotify event for ${marker} within 10s`)), 10_000);
        onEvent = () => {
          if (!seen.includes(marker)) return;
          clearTimeout(timer);
          resolve();
        };
        writeFileSync(join(dir, marker), '');
      });
      rmSync(join(dir, marker));
      const names = [...new Set(seen.filter((n) => !n.startsWith('needle-test-settled-')))].sort();
      seen = [];
      return names;
    },
    close: () => watcher.close(),
  };
  return watching;
}

/** `git status` as a user types it: the fixture environment, but with optional locks allowed. */
function userStatus(w: World): string {
  const env = { ...TEST_GIT_ENV };
  delete env.GIT_OPTIONAL_LOCKS;
  return execFileSync('git', ['status', '--porcelain'], { cwd: w.repo, env, encoding: 'utf8' });
}

describe("the user's git index while Needle works", () => {
  it('resolution, prepare/verify and apply leave an aged .git/index byte-identical and never create index.lock', async () => {
    const w = (world = makeWorld());
    installProfile(w, commandProfile(implementerScript(w), verifierScript(w)));
    ageIndex(w);
    const before = indexDigest(w);
    const watched = watchGitDir(w);

    const s = (served = await serve(w));
    expect(await call(s, 'need_context', NEED)).toMatchObject({ status: 'generated', worker_spawned: true, satisfied: ['implementation_location'] });
    const prepared = await call(s, 'prepare_change', PREPARE_ARGS);
    const id = prepared.change_id as string;
    expect(await call(s, 'verify_change', { change_id: id })).toMatchObject({ status: 'verified' });
    const applied = await needle(w, 'change', 'apply', id, '--if-match', (await changeDigest(w, id)).digest);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    for (const [rel, text] of Object.entries(PATCHED)) expect(readText(w, rel)).toBe(text);

    expect(indexDigest(w), '.git/index was rewritten').toBe(before);
    expect(await watched.settle()).not.toContain('index.lock');
    // Nothing staged: the index still describes the user's last commit.
    expect(git(w.repo, 'diff', '--cached', '--name-only')).toBe('');

    // The control: the same aged index is rewritten, through index.lock, by
    // the first `git status` the user runs, so the checks above had teeth.
    expect(userStatus(w)).toBe(' M src/add.mjs\n?? src/lib/\n');
    expect(await watched.settle()).toContain('index.lock');
    expect(indexDigest(w)).not.toBe(before);
  });

  // A timing check from the user's side; the deterministic guarantee behind
  // it is the test above (Needle never creates index.lock at all). Only git
  // runs during each round: the files are written before, so the resolution's
  // own answer does not depend on how the two interleave.
  it('lets the user add and commit while Needle resolves: every commit succeeds', async () => {
    const rounds = 6;
    const w = (world = makeWorld());
    // One connection answers max_needs needs; past that it bypasses.
    installProfile(w, { ...commandProfile(implementerScript(w), verifierScript(w)), limits: { max_needs: rounds } });
    const s = (served = await serve(w));
    for (let round = 1; round <= rounds; round++) {
      // Stale stat data again, so a git that Needle let take optional locks
      // would want index.lock in this round, just as the user's git does.
      ageIndex(w);
      writeText(w, 'NOTES.md', `round ${round}\n`);
      const user = (async () => {
        const add = await gitAsync(w.repo, 'add', 'NOTES.md');
        const commit = await gitAsync(w.repo, 'commit', '-q', '-m', `notes, round ${round}`);
        return [add, commit];
      })();
      const [resolved, outcomes] = await Promise.all([call(s, 'need_context', { ...NEED, task: `Where is add() implemented? (round ${round})` }), user]);
      for (const o of outcomes) expect(o, `round ${round}`).toMatchObject({ code: 0, stderr: '' });
      expect(resolved, `round ${round}`).toMatchObject({ status: expect.stringMatching(/^(generated|hit)$/), satisfied: ['implementation_location'] });
    }
    expect(git(w.repo, 'rev-list', '--count', 'HEAD')).toBe(`${rounds + 1}\n`);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
  });
});
