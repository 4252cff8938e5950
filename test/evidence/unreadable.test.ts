// A repository file that is there but cannot be read is never "absent" (issue
// 14 item 3): the static analyzer's reads and the validators' snapshot reads
// raise a clear error naming the file, while a file that does not exist is
// still plainly absent. Tests run as root here, where chmod 000 does not stop
// a read, so the permission case reads the real chmod-000 file from a child
// process running as an unprivileged user (setpriv); a symbolic-link loop is
// the same kind of failure (ELOOP) that even root gets, read in-process.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisContext } from '../../src/evidence/context.js';
import { UnreadableFileError } from '../../src/repo/unreadable.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { cleanupAll, ROOT, requireBuild, tempDir } from '../mcp/fixtures.js';
import { git } from '../support/git.js';

let repo: string;
let home: string;
beforeAll(() => {
  requireBuild();
  const base = tempDir('needle-unreadable-');
  chmodSync(base, 0o755); // the unprivileged reader must reach the repository
  // ...and git must accept a repository another user owns.
  home = join(base, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), '[safe]\n\tdirectory = *\n');
  repo = join(base, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'src/options.ts'), 'export const dryRun = true;\n');
  writeFileSync(join(repo, 'src/secret.ts'), 'export function deploy() {}\n');
  symlinkSync('loop.ts', join(repo, 'src/loop.ts'));
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'root');
  chmodSync(join(repo, 'src/secret.ts'), 0o000);
});
afterAll(cleanupAll);

describe('unreadable is not absent', () => {
  it('the analyzer reads a file, reports a missing one as absent, and raises a symbolic-link loop as unreadable', () => {
    const ctx = new AnalysisContext(repo);
    expect(ctx.read('src/options.ts')).toContain('dryRun');
    expect(ctx.read('src/missing.ts')).toBeNull();
    expect(ctx.read('src/options.ts/not-a-dir.ts')).toBeNull();
    expect(() => ctx.read('src/loop.ts')).toThrow(UnreadableFileError);
    expect(() => ctx.read('src/loop.ts')).toThrow(/^cannot read src\/loop\.ts in the repository \(ELOOP\); it is not treated as absent/);
    // Nothing unreadable entered the observation trace.
    expect(ctx.observed().map((o) => o.path)).toEqual(['src/options.ts']);
  });

  it('a permission error (EACCES) surfaces from the analyzer and from the validators\' reader, naming the file', () => {
    const url = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist/src', p)).href);
    const script = `
      const { AnalysisContext } = await import(${url('evidence/context.js')});
      const { SnapshotReader } = await import(${url('validate/snapshot-reader.js')});
      const out = {};
      const attempt = (name, f) => { try { out[name] = { value: f() }; } catch (e) { out[name] = { error: e.name + ': ' + e.message }; } };
      attempt('analyzer', () => new AnalysisContext(${JSON.stringify(repo)}).read('src/secret.ts'));
      attempt('validator', () => new SnapshotReader(${JSON.stringify(repo)}).file('src/secret.ts'));
      attempt('readable', () => new AnalysisContext(${JSON.stringify(repo)}).read('src/options.ts'));
      process.stdout.write(JSON.stringify(out));`;
    const asRoot = process.getuid?.() === 0;
    const argv = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
    const r = spawnSync(argv[0]!, [...argv.slice(1), '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, { value?: unknown; error?: string }>;
    expect(out.readable).toEqual({ value: 'export const dryRun = true;\n' });
    expect(out.analyzer).toEqual({ error: 'UnreadableFileError: cannot read src/secret.ts in the repository (EACCES); it is not treated as absent — make it readable or remove it, then ask again' });
    expect(out.validator?.error).toMatch(/^UnreadableFileError: cannot read src\/secret\.ts in the repository \(EACCES\)/);
  });

  it('the validators\' reader still says plainly what is missing or not a file', () => {
    const reader = new SnapshotReader(repo);
    expect(reader.file('src/missing.ts')).toMatch(/^not a file of the snapshot/);
    expect(reader.file('src/loop.ts')).toMatch(/symbolic link|not a regular file/);
    expect(reader.exists('src/options.ts')).toBe(true);
  });
});
