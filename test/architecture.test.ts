// The folder layout is the architecture (docs/ARCHITECTURE.md): dependencies
// point one way, `core` imports nothing of ours, and there are no import
// cycles. This test keeps it that way as the code grows.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

/** Which folders each folder may import (values and types alike). */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  store: ['core'],
  repo: ['core'],
  evidence: ['core', 'repo'],
  // Not evidence: the validators check the worker and must not share its code (test code is defined in core/).
  validate: ['core', 'repo'],
  workers: ['core', 'repo', 'store', 'evidence'],
  resolve: ['core', 'repo', 'store', 'validate', 'workers'],
  team: ['core', 'repo', 'store', 'validate'],
  changes: ['core', 'repo', 'store', 'workers'],
  mcp: ['core', 'repo', 'store', 'changes'],
  hooks: ['core', 'repo', 'store', 'changes'],
  ui: ['core', 'repo', 'store', 'validate', 'workers', 'resolve', 'changes'],
  cli: ['core', 'repo', 'store', 'evidence', 'validate', 'workers', 'resolve', 'team', 'changes', 'mcp', 'hooks', 'ui'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const folderOf = (path: string): string => relative(SRC, path).split('/')[0]!;

function imports(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(import|export)(\s+type)?[^'";]*?from\s+['"](\.[^'"]+)['"]/gm)].map((m) => ({
    target: resolve(dirname(file), m[3]!).replace(/\.js$/, '.ts'),
    typeOnly: m[2] !== undefined,
  }));
}

describe('architecture', () => {
  const files = sources(SRC);

  it('has only the documented folders, each importing only what it may', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      expect(Object.keys(ALLOWED)).toContain(from);
      for (const { target } of imports(file)) {
        const to = folderOf(target);
        if (to !== from && !ALLOWED[from]!.includes(to)) violations.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import cycles between modules', () => {
    const edges = new Map(files.map((f) => [f, imports(f).filter((i) => !i.typeOnly).map((i) => i.target)]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, stack: string[]): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).map((f) => relative(SRC, f)).join(' → '));
        else if (!state.has(next)) visit(next, stack);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps modules small enough to read', () => {
    const long = files.filter((f) => readFileSync(f, 'utf8').split('\n').length > 600).map((f) => relative(SRC, f));
    expect(long).toEqual([]);
  });
});
