// Real git repositories in temp dirs for the repo tests; removed after each file.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { git } from '../../src/repo/git.js';

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

export function tempDir(label: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `needle-repo-${label}-`)));
  temps.push(d);
  return d;
}

export function write(root: string, rel: string, content: string | Buffer): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

const IDENTITY = ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.invalid', '-c', 'commit.gpgsign=false'];

export function commitAll(root: string, message = 'commit'): void {
  git(root, ['add', '--all']);
  git(root, [...IDENTITY, 'commit', '-q', '--allow-empty', '-m', message]);
}

/** A repository whose first commit holds `files`. */
export function makeRepo(files: Record<string, string | Buffer>, label = 'src'): string {
  const root = tempDir(label);
  git(root, ['init', '-q', '--initial-branch=main']);
  for (const [rel, content] of Object.entries(files)) write(root, rel, content);
  commitAll(root, 'initial');
  return root;
}

export { IDENTITY };
