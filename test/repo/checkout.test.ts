import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { createCheckout, disposeCheckout, sweepOrphanRuns } from '../../src/repo/checkout.js';
import { git, RepoError } from '../../src/repo/git.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { commitAll, IDENTITY, makeRepo, tempDir, write } from './fixture.js';

const FILES = {
  'src/app.ts': 'export const mode = "prod";\n',
  'src/gone.ts': 'export {};\n',
  'README.md': '# app\n',
  '.gitignore': '*.log\nnode_modules/\n',
  'bin/run.sh': '#!/bin/sh\necho run\n',
};

function dirtyRepo(): string {
  const root = makeRepo(FILES);
  chmodSync(join(root, 'bin/run.sh'), 0o755);
  commitAll(root, 'exec bit');
  write(root, 'src/app.ts', 'export const mode = "dev";\n');
  rmSync(join(root, 'src/gone.ts'));
  write(root, 'notes/todo.txt', 'untracked\n');
  write(root, 'data.bin', Buffer.from([0, 1, 2, 0, 255]));
  write(root, 'debug.log', 'ignored\n');
  write(root, 'node_modules/dep/index.js', 'ignored\n');
  return root;
}

/** runs/ three levels below a test-owned dir, so `..` probes stay inside it. */
function runsRoot(): string {
  return join(tempDir('runs'), 'a', 'b', 'runs');
}

function listTree(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listTree(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe('createCheckout', () => {
  it('copies the dirty state: modified and untracked files, not deleted or ignored ones', () => {
    const root = dirtyRepo();
    const c = createCheckout(root, runsRoot(), 'worker');
    try {
      expect(c.snapshot.sourceDigest).toBe(captureSnapshot(root).sourceDigest);
      const files = listTree(c.dir).filter((p) => !p.startsWith('.git/')).sort();
      expect(files).toEqual(['.gitignore', 'README.md', 'bin/run.sh', 'data.bin', 'notes/todo.txt', 'src/app.ts']);
      expect(readFileSync(join(c.dir, 'src/app.ts'), 'utf8')).toBe('export const mode = "dev";\n');
      expect(readFileSync(join(c.dir, 'data.bin'))).toEqual(Buffer.from([0, 1, 2, 0, 255]));
      expect(statSync(join(c.dir, 'bin/run.sh')).mode & 0o111).not.toBe(0);
      expect([...c.manifest.keys()]).toEqual(files);
      expect(c.manifest.get('data.bin')).toBe(blake3(Buffer.from([0, 1, 2, 0, 255])));
      expect(c.skipped).toEqual([]);
      expect(JSON.parse(readFileSync(join(c.runDir, 'owner.json'), 'utf8'))).toMatchObject({ pid: process.pid });
      expect(readdirSync(c.home)).toEqual([]);
      expect(readdirSync(c.tmp)).toEqual([]);
    } finally {
      disposeCheckout(c);
    }
  });

  it('is its own git repository with a clean base commit that tools can diff against', () => {
    const root = dirtyRepo();
    const c = createCheckout(root, runsRoot(), 'change');
    try {
      const commonDir = resolve(c.dir, git(c.dir, ['rev-parse', '--git-common-dir']).trim());
      expect(commonDir).toBe(join(c.dir, '.git'));
      expect(lstatSync(join(c.dir, '.git')).isDirectory()).toBe(true);
      expect(existsSync(join(c.dir, '.git/objects/info/alternates'))).toBe(false);
      expect(git(c.dir, ['status', '--porcelain'])).toBe('');
      write(c.dir, 'src/app.ts', 'export const mode = "test";\n');
      expect(git(c.dir, ['diff', '--name-only'])).toBe('src/app.ts\n');
      // The user's repository does not know the checkout exists.
      expect(git(root, ['worktree', 'list', '--porcelain'])).not.toContain(c.dir);
    } finally {
      disposeCheckout(c);
    }
  });

  it('keeps a process in the checkout from reaching the user repository config or hooks', () => {
    const root = dirtyRepo();
    const hooksBefore = listTree(join(root, '.git/hooks'));
    const configBefore = readFileSync(join(root, '.git/config'));
    const headBefore = git(root, ['rev-parse', 'HEAD']);
    const c = createCheckout(root, runsRoot(), 'worker');
    try {
      const script = [
        `printf '[core]\\n\\thooksPath = /nonexistent/evil\\n' >> .git/config`,
        `mkdir -p .git/hooks && printf '#!/bin/sh\\nexit 1\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
        `for p in .. ../.. ../../.. ../../../..; do mkdir -p "$p/.git/hooks" && printf '[core]\\n\\tbare = true\\n' >> "$p/.git/config" && printf 'x' > "$p/.git/hooks/post-checkout"; done`,
        `git config user.name attacker`,
        `git config core.hooksPath "$PWD/.git/hooks"`,
        `git -c commit.gpgsign=false commit -q --allow-empty -m probe || true`,
        `git rev-parse --absolute-git-dir`,
      ].join('\n');
      const gitDir = execFileSync('sh', ['-c', script], { cwd: c.dir, env: { PATH: process.env.PATH, HOME: c.home } }).toString();
      expect(gitDir.trim()).toBe(join(c.dir, '.git'));
      expect(readFileSync(join(root, '.git/config'))).toEqual(configBefore);
      expect(listTree(join(root, '.git/hooks'))).toEqual(hooksBefore);
      expect(git(root, ['rev-parse', 'HEAD'])).toBe(headBefore);
      expect(git(root, ['config', 'user.name'], { okCodes: [0, 1] })).not.toContain('attacker');
    } finally {
      disposeCheckout(c);
    }
  });

  it('copies symlinks that stay inside and skips and records those that escape', () => {
    const root = makeRepo({ 'a.txt': 'a\n', 'dir/b.txt': 'b\n' });
    symlinkSync('a.txt', join(root, 'inside'));
    symlinkSync('../a.txt', join(root, 'dir/up'));
    symlinkSync('/etc/passwd', join(root, 'absolute'));
    symlinkSync('../outside', join(root, 'escape'));
    symlinkSync('.', join(root, 'self'));
    symlinkSync('self/..', join(root, 'sneaky'));
    // Checked while `later` does not exist yet, escaping once it does.
    symlinkSync('later/..', join(root, 'early'));
    symlinkSync('self', join(root, 'later'));
    commitAll(root);
    const c = createCheckout(root, runsRoot(), 'worker');
    try {
      expect(readlinkSync(join(c.dir, 'inside'))).toBe('a.txt');
      expect(readlinkSync(join(c.dir, 'dir/up'))).toBe('../a.txt');
      expect(readlinkSync(join(c.dir, 'self'))).toBe('.');
      for (const p of ['absolute', 'early', 'escape', 'sneaky']) expect(lstatSync(join(c.dir, p), { throwIfNoEntry: false })).toBeUndefined();
      expect(c.skipped.map((s) => s.path).sort()).toEqual(['absolute', 'early', 'escape', 'sneaky']);
      expect(readlinkSync(join(c.dir, 'later'))).toBe('self');
      expect(c.skipped.every((s) => s.reason === 'symlink points outside the repository')).toBe(true);
      expect(c.manifest.get('inside')).toBe(blake3('a.txt'));
    } finally {
      disposeCheckout(c);
    }
  });

  it('skips and records submodules and nested repositories', () => {
    const lib = makeRepo({ 'lib.txt': 'lib\n' }, 'lib');
    const root = makeRepo({ 'main.txt': 'main\n' });
    git(root, [...IDENTITY, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib']);
    commitAll(root, 'submodule');
    mkdirSync(join(root, 'nested'));
    git(join(root, 'nested'), ['init', '-q']);
    write(root, 'nested/inner.txt', 'inner\n');
    const c = createCheckout(root, runsRoot(), 'worker');
    try {
      expect([...c.skipped].sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
        { path: 'nested', reason: 'submodule or nested repository' },
        { path: 'vendor/lib', reason: 'submodule or nested repository' },
      ]);
      expect(existsSync(join(c.dir, 'vendor/lib/lib.txt'))).toBe(false);
      expect(existsSync(join(c.dir, 'nested'))).toBe(false);
      expect(readFileSync(join(c.dir, 'main.txt'), 'utf8')).toBe('main\n');
    } finally {
      disposeCheckout(c);
    }
  });

  it('refuses a runs directory inside the repository', () => {
    const root = makeRepo({ 'a.txt': 'a\n' });
    expect(() => createCheckout(root, join(root, '.needle/runs'), 'worker')).toThrow(/runs directory is inside the repository/);
  });

  it('fails with "snapshot changed while copying" when a file changes during the copy, leaving no run dir', async () => {
    const root = makeRepo({ 'hot.txt': 'start\n', 'cold.txt': 'cold\n', '.gitignore': '*.tmp\n' });
    const runs = runsRoot();
    const writer = spawn(
      process.execPath,
      [
        '-e',
        // Rename over the file, so every read sees a complete and different version.
        `const fs=require('fs');const f=process.argv[1];let i=0;const put=()=>{fs.writeFileSync(f+'.tmp','v'+(++i));fs.renameSync(f+'.tmp',f);};put();console.log('ready');for(;;)put();`,
        join(root, 'hot.txt'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((ok, fail) => {
        writer.stdout.once('data', () => ok());
        writer.once('exit', () => fail(new Error('writer exited early')));
      });
      expect(() => createCheckout(root, runs, 'worker')).toThrow(new RepoError('snapshot changed while copying'));
      expect(readdirSync(runs)).toEqual([]);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('copies a 1 000-file repository', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1000; i++) files[`pkg${i % 20}/mod${i}.ts`] = `export const v${i} = ${i};\n`.repeat(20);
    const root = makeRepo(files);
    const c = createCheckout(root, runsRoot(), 'verify');
    try {
      expect(c.manifest.size).toBe(1000);
      expect(git(c.dir, ['ls-files']).split('\n').filter(Boolean)).toHaveLength(1000);
    } finally {
      disposeCheckout(c);
    }
  });
});

describe('disposeCheckout', () => {
  it('removes the whole run directory, even with read-only directories left by a worker', () => {
    const root = makeRepo({ 'a.txt': 'a\n' });
    const c = createCheckout(root, runsRoot(), 'worker');
    write(c.dir, 'locked/inner.txt', 'x');
    chmodSync(join(c.dir, 'locked'), 0o555);
    expect(disposeCheckout(c)).toEqual({ removed: true, error: null });
    expect(existsSync(c.runDir)).toBe(false);
  });
});

describe('sweepOrphanRuns', () => {
  it('removes run directories of dead processes and keeps live and foreign ones', () => {
    const root = makeRepo({ 'a.txt': 'a\n' });
    const runs = runsRoot();
    const live = createCheckout(root, runs, 'worker');
    try {
      const deadPid = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)']).toString().trim());
      const dead = join(runs, `change-${deadPid}-1700000000000-0badc0de`);
      mkdirSync(join(dead, 'checkout'), { recursive: true });
      writeFileSync(join(dead, 'owner.json'), JSON.stringify({ pid: deadPid, started: 1 }));
      const noOwner = join(runs, `verify-${deadPid}-1700000000001-00000001`);
      mkdirSync(noOwner);
      const foreign = join(runs, 'keep-me');
      mkdirSync(foreign);
      expect(sweepOrphanRuns(runs).removed.sort()).toEqual([dead, noOwner].sort());
      expect(existsSync(live.runDir)).toBe(true);
      expect(existsSync(foreign)).toBe(true);
      expect(sweepOrphanRuns(join(runs, 'missing'))).toEqual({ removed: [] });
    } finally {
      disposeCheckout(live);
    }
  });
});
