import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPatchToCheckout, createCheckout, diffCheckout, disposeCheckout, type Checkout, type FileChange } from '../../src/repo/checkout.js';
import { RepoError } from '../../src/repo/git.js';
import { makeRepo, tempDir, write } from './fixture.js';

const FILES = {
  'src/app.ts': 'export const mode = "prod";\n',
  'src/old.ts': 'export const legacy = true;\n',
  'README.md': '# app\n',
};

const open: Checkout[] = [];
afterEach(() => {
  for (const c of open.splice(0)) disposeCheckout(c);
});

function fresh(root: string): Checkout {
  const c = createCheckout(root, join(tempDir('runs'), 'runs'), 'change');
  open.push(c);
  return c;
}

function repoWithLink(): string {
  const root = makeRepo(FILES);
  symlinkSync('README.md', join(root, 'docs-link'));
  return root;
}

describe('diffCheckout', () => {
  it('is empty for an untouched checkout, and after rewriting identical bytes or touching mtimes', () => {
    const c = fresh(repoWithLink());
    expect(diffCheckout(c)).toEqual([]);
    writeFileSync(join(c.dir, 'src/app.ts'), FILES['src/app.ts']);
    utimesSync(join(c.dir, 'README.md'), new Date(0), new Date(0));
    expect(diffCheckout(c)).toEqual([]);
  });

  it('reports creates, updates, deletes, symlinks and other file types exactly, sorted by path', () => {
    const c = fresh(repoWithLink());
    write(c.dir, 'src/app.ts', 'export const mode = "dev";\n');
    rmSync(join(c.dir, 'src/old.ts'));
    write(c.dir, 'src/new/feature.ts', 'export const feature = 1;\n');
    symlinkSync('src/app.ts', join(c.dir, 'alias'));
    rmSync(join(c.dir, 'docs-link'));
    symlinkSync('src/app.ts', join(c.dir, 'docs-link'));
    execFileSync('mkfifo', [join(c.dir, 'pipe')]);
    write(c.dir, '.git/extra', 'a change to the checkout repository is reported as one change of .git');

    const summary = diffCheckout(c).map((ch) => ({ ...ch, before: ch.before?.toString('utf8') ?? null, after: ch.after?.toString('utf8') ?? null }));
    expect(summary).toEqual([
      { path: '.git', op: 'update', before: null, after: null, kind: 'other' },
      { path: 'alias', op: 'create', before: null, after: 'src/app.ts', kind: 'symlink' },
      { path: 'docs-link', op: 'update', before: 'README.md', after: 'src/app.ts', kind: 'symlink' },
      { path: 'pipe', op: 'create', before: null, after: null, kind: 'other' },
      { path: 'src/app.ts', op: 'update', before: FILES['src/app.ts'], after: 'export const mode = "dev";\n', kind: 'file' },
      { path: 'src/new/feature.ts', op: 'create', before: null, after: 'export const feature = 1;\n', kind: 'file' },
      { path: 'src/old.ts', op: 'delete', before: FILES['src/old.ts'], after: null, kind: 'file' },
    ]);
  });

  it('reports a file replaced by a symlink as an update of kind symlink, and binary bytes exactly', () => {
    const c = fresh(repoWithLink());
    rmSync(join(c.dir, 'README.md'));
    symlinkSync('src/app.ts', join(c.dir, 'README.md'));
    write(c.dir, 'blob.bin', Buffer.from([0, 0x9f, 0x92, 0x96]));
    const changes = diffCheckout(c);
    expect(changes.map((ch) => [ch.path, ch.op, ch.kind])).toEqual([
      ['README.md', 'update', 'symlink'],
      ['blob.bin', 'create', 'file'],
    ]);
    expect(changes[1]!.after).toEqual(Buffer.from([0, 0x9f, 0x92, 0x96]));
  });

  it('sees a same-size edit made right after the checkout was created', () => {
    const c = fresh(repoWithLink());
    write(c.dir, 'src/app.ts', 'export const mode = "test";\n');
    expect(diffCheckout(c).map((ch) => ch.path)).toEqual(['src/app.ts']);
  });

  it('fails closed when the base objects in the checkout were tampered with', () => {
    const c = fresh(repoWithLink());
    write(c.dir, 'src/app.ts', 'changed\n');
    rmSync(join(c.dir, '.git/objects'), { recursive: true, force: true });
    expect(() => diffCheckout(c)).toThrow(/base bytes of src\/app\.ts are gone/);
  });

  it('fails closed when .git is replaced by a symlink to another directory', () => {
    const c = fresh(repoWithLink());
    const decoy = tempDir('decoy');
    write(decoy, 'objects/placeholder', 'x');
    write(c.dir, 'src/app.ts', 'changed\n');
    rmSync(join(c.dir, '.git'), { recursive: true, force: true });
    symlinkSync(decoy, join(c.dir, '.git'));
    expect(() => diffCheckout(c)).toThrow(RepoError);
  });
});

describe('applyPatchToCheckout', () => {
  it('materializes a patch in a fresh checkout of the same base, so the fresh checkout diffs to the same patch', () => {
    const root = repoWithLink();
    const patched = fresh(root);
    write(patched.dir, 'src/app.ts', 'export const mode = "dev";\n');
    rmSync(join(patched.dir, 'src/old.ts'));
    write(patched.dir, 'src/new/feature.ts', 'export const feature = 1;\n');
    const patch = diffCheckout(patched);

    const replay = fresh(root);
    applyPatchToCheckout(replay, patch);
    expect(diffCheckout(replay)).toEqual(patch);
    expect(readFileSync(join(replay.dir, 'src/new/feature.ts'), 'utf8')).toBe('export const feature = 1;\n');
    expect(existsSync(join(replay.dir, 'src/old.ts'))).toBe(false);
    // Replaying onto the already patched bytes is a base mismatch.
    expect(() => applyPatchToCheckout(replay, patch)).toThrow(new RepoError('base mismatch: src/app.ts'));
  });

  it('refuses a patch whose base does not match and leaves the checkout untouched', () => {
    const c = fresh(repoWithLink());
    const patch: FileChange[] = [
      { path: 'README.md', op: 'update', before: Buffer.from('# app\n'), after: Buffer.from('# new\n'), kind: 'file' },
      { path: 'src/app.ts', op: 'update', before: Buffer.from('something else\n'), after: Buffer.from('x\n'), kind: 'file' },
    ];
    expect(() => applyPatchToCheckout(c, patch)).toThrow(new RepoError('base mismatch: src/app.ts'));
    expect(diffCheckout(c)).toEqual([]);
    expect(() =>
      applyPatchToCheckout(c, [{ path: 'README.md', op: 'create', before: null, after: Buffer.from('x'), kind: 'file' }]),
    ).toThrow(new RepoError('base mismatch: README.md'));
  });

  it('refuses unsafe, protected, duplicate, malformed and non-file changes', () => {
    const c = fresh(repoWithLink());
    const create = (path: string, kind: FileChange['kind'] = 'file'): FileChange => ({ path, op: 'create', before: null, after: Buffer.from('x'), kind });
    expect(() => applyPatchToCheckout(c, [create('../escape.txt')])).toThrow('unsafe patch path: ../escape.txt');
    expect(() => applyPatchToCheckout(c, [create('.git/hooks/pre-commit')])).toThrow('unsafe patch path: .git/hooks/pre-commit');
    expect(() => applyPatchToCheckout(c, [create('a.txt'), create('a.txt')])).toThrow('duplicate patch path: a.txt');
    expect(() => applyPatchToCheckout(c, [create('l', 'symlink')])).toThrow('cannot materialize a symlink: l');
    expect(() => applyPatchToCheckout(c, [{ path: 'x.txt', op: 'update', before: null, after: Buffer.from('x'), kind: 'file' }])).toThrow(
      'malformed update for x.txt',
    );
    expect(diffCheckout(c)).toEqual([]);
  });

  it('does not write through a symlinked directory', () => {
    const c = fresh(repoWithLink());
    const outside = tempDir('outside');
    symlinkSync(outside, join(c.dir, 'out'));
    expect(() =>
      applyPatchToCheckout(c, [{ path: 'out/planted.txt', op: 'create', before: null, after: Buffer.from('x'), kind: 'file' }]),
    ).toThrow('base mismatch: out/planted.txt');
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });
});
