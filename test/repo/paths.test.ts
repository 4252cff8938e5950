import { mkdirSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProtectedPath, normalizeRelativePath, resolveInside } from '../../src/repo/paths.js';
import { tempDir, write } from './fixture.js';

describe('normalizeRelativePath', () => {
  it.each([
    ['src/lib.rs', 'src/lib.rs'],
    ['./src/lib.rs', 'src/lib.rs'],
    ['src//lib.rs', 'src/lib.rs'],
    ['src/./lib.rs', 'src/lib.rs'],
    ['src\\cli\\main.ts', 'src/cli/main.ts'],
    ['src/', 'src'],
    ['a..b/c...txt', 'a..b/c...txt'],
    ['.hidden', '.hidden'],
  ])('accepts %j as %j', (input, expected) => {
    expect(normalizeRelativePath(input)).toBe(expected);
  });

  it.each([
    [''],
    ['.'],
    ['./'],
    ['/etc/passwd'],
    ['\\\\server\\share\\x'],
    ['../outside'],
    ['src/../../x'],
    ['src/../lib.rs'],
    ['..\\x'],
    ['C:\\Windows\\x'],
    ['c:relative'],
    ['src/a\0b'],
  ])('refuses %j', (input) => {
    expect(normalizeRelativePath(input)).toBeNull();
  });
});

describe('resolveInside', () => {
  it('returns the real path of a regular file inside the root and refuses anything else', () => {
    const outside = tempDir('outside');
    write(outside, 'secret.txt', 'secret\n');
    const root = tempDir('root');
    write(root, 'src/lib.rs', 'fn main() {}\n');
    symlinkSync('lib.rs', join(root, 'src/alias.rs'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'escape.txt'));
    symlinkSync('../' + outside.split('/').pop() + '/secret.txt', join(root, 'relative-escape.txt'));
    symlinkSync(outside, join(root, 'linkdir'));
    mkdirSync(join(root, 'dir'));
    mkfifo(join(root, 'pipe'));

    expect(resolveInside(root, 'src/lib.rs')).toBe(join(root, 'src/lib.rs'));
    expect(resolveInside(root, './src//lib.rs')).toBe(join(root, 'src/lib.rs'));
    expect(resolveInside(root, 'src/alias.rs')).toBe(join(root, 'src/lib.rs'));
    expect(resolveInside(root, 'escape.txt')).toBeNull();
    expect(resolveInside(root, 'relative-escape.txt')).toBeNull();
    expect(resolveInside(root, 'linkdir/secret.txt')).toBeNull();
    expect(resolveInside(root, '../' + outside.split('/').pop() + '/secret.txt')).toBeNull();
    expect(resolveInside(root, join(outside, 'secret.txt'))).toBeNull();
    expect(resolveInside(root, 'dir')).toBeNull();
    expect(resolveInside(root, 'pipe')).toBeNull();
    expect(resolveInside(root, 'missing.rs')).toBeNull();
  });
});

function mkfifo(path: string): void {
  // Node has no mkfifo of its own.
  execFileSync('mkfifo', [path]);
}

describe('isProtectedPath', () => {
  it.each([
    ['.git/config', true],
    ['sub/.GIT/hooks/pre-commit', true],
    ['node_modules/x/index.js', true],
    ['packages/a/dist/index.js', true],
    ['Target/debug/app', true],
    ['.needle/db', true],
    ['a\\build\\x', true],
    ['src/lib.rs', false],
    ['src/builder.ts', false],
    ['docs/.gitignore', false],
    ['distribution/x', false],
  ])('%j → %j', (path, expected) => {
    expect(isProtectedPath(path)).toBe(expected);
  });
});
