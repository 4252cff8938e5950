import { appendFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineageDigest } from '../../src/core/need.js';
import { git, RepoError } from '../../src/repo/git.js';
import { captureSnapshot, findRepositoryRoot, repositoryLineage } from '../../src/repo/snapshot.js';
import { commitAll, makeRepo, tempDir, write } from './fixture.js';

const FILES = { 'src/main.ts': 'export const answer = 42;\n', 'README.md': '# demo\n', '.gitignore': '*.log\nbuild/\n' };

describe('captureSnapshot', () => {
  it('is stable when nothing changes', () => {
    const root = makeRepo(FILES);
    const a = captureSnapshot(root);
    expect(captureSnapshot(root)).toEqual(a);
    expect(a.root).toBe(root);
    expect(a.head).toMatch(/^[0-9a-f]{40}$/);
    expect(a.sourceDigest).toMatch(/^b3:[0-9a-f]{64}$/);
  });

  it('changes on a one-byte edit, including whitespace, and returns when the edit is undone', () => {
    const root = makeRepo(FILES);
    const clean = captureSnapshot(root);
    write(root, 'src/main.ts', 'export const answer = 42; \n');
    const edited = captureSnapshot(root);
    expect(edited.sourceDigest).not.toBe(clean.sourceDigest);
    expect(edited.trackedDigest).not.toBe(clean.trackedDigest);
    expect(edited.untrackedDigest).toBe(clean.untrackedDigest);
    write(root, 'src/main.ts', 'export const answer = 43; \n');
    expect(captureSnapshot(root).sourceDigest).not.toBe(edited.sourceDigest);
    write(root, 'src/main.ts', FILES['src/main.ts']);
    expect(captureSnapshot(root).sourceDigest).toBe(clean.sourceDigest);
  });

  it('changes when an edit is staged even though the bytes stay the same', () => {
    const root = makeRepo(FILES);
    write(root, 'README.md', '# demo, edited\n');
    const unstaged = captureSnapshot(root);
    git(root, ['add', 'README.md']);
    const staged = captureSnapshot(root);
    expect(staged.sourceDigest).not.toBe(unstaged.sourceDigest);
  });

  it('changes on a new untracked file and on deleting a tracked file', () => {
    const root = makeRepo(FILES);
    const clean = captureSnapshot(root);
    write(root, 'notes.txt', 'todo\n');
    const untracked = captureSnapshot(root);
    expect(untracked.sourceDigest).not.toBe(clean.sourceDigest);
    expect(untracked.untrackedDigest).not.toBe(clean.untrackedDigest);
    expect(untracked.trackedDigest).toBe(clean.trackedDigest);
    rmSync(join(root, 'notes.txt'));
    rmSync(join(root, 'README.md'));
    const deleted = captureSnapshot(root);
    expect(deleted.sourceDigest).not.toBe(clean.sourceDigest);
    expect(deleted.trackedDigest).not.toBe(clean.trackedDigest);
  });

  it('ignores changes to ignored files', () => {
    const root = makeRepo(FILES);
    const clean = captureSnapshot(root);
    write(root, 'debug.log', 'one\n');
    write(root, 'build/out.js', 'x\n');
    expect(captureSnapshot(root).sourceDigest).toBe(clean.sourceDigest);
    appendFileSync(join(root, 'debug.log'), 'two\n');
    expect(captureSnapshot(root).sourceDigest).toBe(clean.sourceDigest);
  });

  it('covers a dirty symlink by its target and a nested repository without reading into it', () => {
    const root = makeRepo(FILES);
    const clean = captureSnapshot(root);
    symlinkSync('README.md', join(root, 'link'));
    const linked = captureSnapshot(root);
    expect(linked.sourceDigest).not.toBe(clean.sourceDigest);
    rmSync(join(root, 'link'));
    symlinkSync('src/main.ts', join(root, 'link'));
    expect(captureSnapshot(root).sourceDigest).not.toBe(linked.sourceDigest);
    rmSync(join(root, 'link'));
    const nested = join(root, 'vendor');
    mkdirSync(nested);
    git(nested, ['init', '-q']);
    expect(() => captureSnapshot(root)).not.toThrow();
  });

  it('is equal for a clone with the same dirty edits and differs for an unrelated repository', () => {
    const root = makeRepo(FILES);
    const cloneParent = tempDir('clone');
    git(cloneParent, ['clone', '-q', '--no-local', root, 'copy']);
    const clone = join(cloneParent, 'copy');
    expect(repositoryLineage(clone)).toBe(repositoryLineage(root));
    expect(captureSnapshot(clone).sourceDigest).toBe(captureSnapshot(root).sourceDigest);
    for (const r of [root, clone]) {
      write(r, 'src/main.ts', 'export const answer = 7;\n');
      write(r, 'data.bin', Buffer.from([0, 159, 146, 150]));
    }
    expect(captureSnapshot(clone).sourceDigest).toBe(captureSnapshot(root).sourceDigest);

    const unrelated = makeRepo({ 'other.txt': 'x\n' }, 'unrelated');
    expect(repositoryLineage(unrelated)).not.toBe(repositoryLineage(root));
  });

  it('keeps the lineage when commits are added, since it comes from root commits', () => {
    const root = makeRepo(FILES);
    const before = repositoryLineage(root);
    write(root, 'more.txt', 'more\n');
    commitAll(root, 'second');
    expect(repositoryLineage(root)).toBe(before);
  });

  it('handles a repository without commits', () => {
    const root = tempDir('empty');
    git(root, ['init', '-q']);
    write(root, 'a.txt', 'a\n');
    const snap = captureSnapshot(root);
    expect(snap.head).toBeNull();
    expect(snap.lineage).toBe(lineageDigest([]));
    expect(repositoryLineage(root)).toBe(lineageDigest([]));
  });

  it('is not redirected by a caller GIT_DIR', () => {
    const root = makeRepo(FILES);
    const other = makeRepo({ 'elsewhere.txt': 'e\n' }, 'other');
    const expected = captureSnapshot(root);
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = join(other, '.git');
    try {
      expect(captureSnapshot(root)).toEqual(expected);
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });
});

describe('findRepositoryRoot', () => {
  it('finds the top from a subdirectory', () => {
    const root = makeRepo(FILES);
    expect(findRepositoryRoot(join(root, 'src'))).toBe(root);
    expect(captureSnapshot(join(root, 'src')).root).toBe(root);
  });

  it('refuses a directory outside any work tree with one clear line', () => {
    const dir = tempDir('plain');
    expect(() => findRepositoryRoot(dir)).toThrow(RepoError);
    expect(() => findRepositoryRoot(dir)).toThrow(`not inside a git work tree: ${dir}`);
    expect(() => findRepositoryRoot(join(dir, 'missing'))).toThrow(`not inside a git work tree: ${join(dir, 'missing')}`);
  });
});
