// The worktree watch (repo/worktree-watch.ts) against a real git repository:
// the digest it reports is the snapshot git would compute, and any edit a
// `git grep` could see — to a file nobody read, inside a directory created
// after the watch started, to .gitignore — withholds it until it was taken
// again, after one turn of the event loop (no timed assertions: the test
// waits for the watch's own report).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { WorktreeWatch } from '../../src/repo/worktree-watch.js';
import { createRepo } from '../evidence/fixtures/repos.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits (event-driven, bounded) until the watch reports a digest again. */
async function known(w: WorktreeWatch): Promise<string> {
  for (let i = 0; i < 6_000 && w.current() === null; i++) await new Promise((r) => setTimeout(r, 5));
  const d = w.current();
  if (d === null) throw new Error('the watch never reported a digest');
  return d;
}

function repo(): string {
  const root = createRepo({ '.gitignore': 'build/\n', 'src/a.ts': 'export const a = 1;\n', 'src/deep/b.ts': 'export const b = 2;\n', 'README.md': '# r\n' });
  mkdirSync(join(root, 'build'));
  dirs.push(root);
  return root;
}

describe('worktree watch', () => {
  it('reports the snapshot git computes, withholds it after any visible edit, and reports the new one', async () => {
    const root = repo();
    const w = new WorktreeWatch(root).start();
    try {
      expect(await known(w)).toBe(captureSnapshot(root).sourceDigest);

      // An existing file nobody read, one directory down: no listing changes.
      writeFileSync(join(root, 'src/deep/b.ts'), 'export const b = 3;\n');
      await turn();
      expect(w.current()).toBeNull();
      const edited = await known(w);
      expect(edited).toBe(captureSnapshot(root).sourceDigest);

      // A directory created after the watch started, then a file edited inside it.
      mkdirSync(join(root, 'src/new'));
      writeFileSync(join(root, 'src/new/c.ts'), 'export const c = 1;\n');
      await turn();
      expect(w.current()).toBeNull();
      await known(w);
      writeFileSync(join(root, 'src/new/c.ts'), 'export const c = 2;\n');
      await turn();
      expect(w.current()).toBeNull();
      expect(await known(w)).toBe(captureSnapshot(root).sourceDigest);

      // Un-ignoring a directory makes its files visible: .gitignore is watched.
      writeFileSync(join(root, 'build/out.ts'), 'export const o = 1;\n');
      await turn();
      writeFileSync(join(root, '.gitignore'), '\n');
      await turn();
      expect(w.current()).toBeNull();
      expect(await known(w)).toBe(captureSnapshot(root).sourceDigest);
      writeFileSync(join(root, 'build/out.ts'), 'export const o = 2;\n');
      await turn();
      expect(w.current()).toBeNull();
      expect(await known(w)).toBe(captureSnapshot(root).sourceDigest);
    } finally {
      w.close();
    }
  });

  it('reports nothing once closed', async () => {
    const root = repo();
    const w = new WorktreeWatch(root).start();
    await known(w);
    w.close();
    expect(w.current()).toBeNull();
  });

  it('gives a token for the worktree while its digest is being taken, and the digest for that token only while nothing changed', async () => {
    const root = repo();
    const idle = new WorktreeWatch(root).start(60_000);
    try {
      // Not watching yet: no token (a change now would go unseen).
      expect(idle.pending()).toBeNull();
    } finally {
      idle.close();
    }
    const w = new WorktreeWatch(root).start();
    try {
      const digest = await known(w);
      const token = w.pending();
      expect(token).not.toBeNull();
      expect(w.digestAt(token!)).toBe(digest);
      writeFileSync(join(root, 'src/a.ts'), 'export const a = 2;\n');
      await turn();
      expect(w.digestAt(token!)).toBeNull();
      await known(w);
      // The old moment is gone for good, even once the new digest is known.
      expect(w.digestAt(token!)).toBeNull();
      expect(w.digestAt(w.pending()!)).toBe(captureSnapshot(root).sourceDigest);
    } finally {
      w.close();
    }
    expect(w.pending()).toBeNull();
  });

  it('lists the files git lists — tracked, staged, deleted but still indexed, untracked — never the ignored ones, and nothing while re-verifying', async () => {
    const root = repo();
    const gitIn = (...args: string[]) => execFileSync('git', args, { cwd: root });
    writeFileSync(join(root, 'build/out.ts'), 'ignored\n');
    writeFileSync(join(root, 'src/new file é.ts'), 'untracked\n');
    writeFileSync(join(root, 'staged.ts'), 'staged\n');
    // A path may hold a tab: its tail is not a path of the listing.
    writeFileSync(join(root, 'odd\tname.ts'), 'tab\n');
    gitIn('add', 'staged.ts', 'odd\tname.ts');
    rmSync(join(root, 'README.md'));
    const lsFiles = () =>
      gitIn('ls-files', '-z', '--cached', '--others', '--exclude-standard')
        .toString('utf8')
        .split('\0')
        .filter(Boolean);
    const w = new WorktreeWatch(root).start();
    try {
      await known(w);
      const listing = w.listing()!;
      const members = lsFiles();
      expect(members.sort()).toEqual(['.gitignore', 'README.md', 'odd\tname.ts', 'src/a.ts', 'src/deep/b.ts', 'src/new file é.ts', 'staged.ts']);
      for (const path of members) expect(listing.has(path), path).toBe(true);
      for (const path of ['build/out.ts', 'name.ts', 'src', 'a.ts', 'src/a', 'new file é.ts', 'missing.ts']) expect(listing.has(path), path).toBe(false);

      writeFileSync(join(root, 'src/c.ts'), 'export const c = 1;\n');
      await turn();
      expect(w.listing()).toBeNull();
      await known(w);
      expect(w.listing()!.has('src/c.ts')).toBe(true);
      expect(lsFiles()).toContain('src/c.ts');
    } finally {
      w.close();
    }
    expect(w.listing()).toBeNull();
  });
});
