// The static analyzer's git calls go through the one scrubbed runner of
// repo/git.ts: a GIT_DIR or GIT_WORK_TREE inherited from whoever started
// Needle cannot redirect the candidate search to another repository.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalysisContext } from '../../src/evidence/context.js';
import { git } from '../support/git.js';

function repo(dir: string, file: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  writeFileSync(join(dir, file), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'init');
}

describe('AnalysisContext runs git without the caller\'s GIT_* variables', () => {
  let base: string;
  const saved = { ...process.env };
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'needle-context-git-'));
    repo(join(base, 'mine'), 'mine.ts', 'export const dryRun = true;\n');
    repo(join(base, 'other'), 'other.ts', 'export const dryRun = false; // other repository\n');
  });
  afterAll(() => {
    process.env = saved;
    rmSync(base, { recursive: true, force: true });
  });

  it('lists and greps the analyzed worktree even when GIT_DIR and GIT_WORK_TREE point elsewhere', () => {
    process.env.GIT_DIR = join(base, 'other', '.git');
    process.env.GIT_WORK_TREE = join(base, 'other');
    process.env.GIT_INDEX_FILE = join(base, 'other', '.git', 'index');
    try {
      const ctx = new AnalysisContext(join(base, 'mine'));
      expect(ctx.listFiles()).toEqual(['mine.ts']);
      expect(ctx.grep(['dryRun'])).toEqual([{ path: 'mine.ts', line: 1, text: 'export const dryRun = true;' }]);
      expect(ctx.grep(['no-such-word-anywhere'])).toEqual([]);
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_WORK_TREE;
      delete process.env.GIT_INDEX_FILE;
    }
  });
});
