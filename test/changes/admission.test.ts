import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareChange } from '../../src/changes/prepare.js';
import { listEvents, loadChange } from '../../src/changes/store.js';
import { ChangeError } from '../../src/changes/model.js';
import { admitPatch } from '../../src/changes/admission.js';
import type { FileChange } from '../../src/repo/checkout.js';
import { ARGS, deps, makeEnv, profile, script, signal, verdictVerifier, type Env } from './fixture.js';

let env: Env;
beforeAll(() => {
  env = makeEnv();
});
afterAll(() => env.cleanup());

async function rejectionOf(name: string, body: string, args = ARGS): Promise<ChangeError> {
  const d = deps(env, profile(script(env, name, body), verdictVerifier(env, 'verified')));
  const error = await prepareChange(d, args, signal()).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChangeError);
  return error as ChangeError;
}

const snapshotOfWorktree = () => ({
  add: readFileSync(join(env.root, 'src/add.mjs'), 'utf8'),
  readme: readFileSync(join(env.root, 'README.md'), 'utf8'),
  src: readdirSync(join(env.root, 'src')).sort(),
});

describe('admission rejects the whole patch and names the rule', () => {
  const cases: [string, string][] = [
    ['no_change', `// nothing`],
    ['too_many_files', `for (let i = 0; i < 17; i++) fs.writeFileSync('src/f' + i + '.mjs', 'x\\n');`],
    ['out_of_scope', `fs.writeFileSync('src/add.mjs', 'ok\\n'); fs.writeFileSync('README.md', 'changed\\n');`],
    ['protected_path', `fs.mkdirSync('src/node_modules', { recursive: true }); fs.writeFileSync('src/node_modules/x.js', 'x\\n');`],
    ['symlink', `fs.symlinkSync('add.mjs', 'src/link.mjs');`],
    ['not_utf8', `fs.writeFileSync('src/bin.dat', Buffer.from([0x00, 0x9f, 0x92, 0x96]));`],
    ['after_too_large', `fs.writeFileSync('src/big.txt', 'a'.repeat(1024 * 1024 + 1));`],
    ['patch_too_large', `fs.writeFileSync('src/big.txt', 'a'.repeat(512 * 1024 + 1));`],
    ['rename_like', `fs.renameSync('src/add.mjs', 'src/sum.mjs');`],
    ['mode_change', `fs.chmodSync('src/add.mjs', 0o755);`],
    ['mode_change', `fs.writeFileSync('src/run.sh', '#!/bin/sh\\necho hi\\n', { mode: 0o755 }); fs.chmodSync('src/run.sh', 0o755);`],
  ];
  it.each(cases)('%s', async (rule, body) => {
    const before = snapshotOfWorktree();
    const err = await rejectionOf(rule, body);
    expect(err.rule).toBe(rule);
    expect(err.message).toContain(rule);
    const change = loadChange(env.db, err.changeId!)!;
    expect(change).toMatchObject({ state: 'failed', failureRule: rule, latestRevision: 0 });
    expect(snapshotOfWorktree()).toEqual(before);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  // An implementer that rewrites its checkout's own repository: the next git
  // command there would obey it (core.fsmonitor, aliases, hooks, refs).
  const gitTampering: [string, string][] = [
    ['config', `fs.appendFileSync('.git/config', '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n'); fs.writeFileSync('src/add.mjs', 'x\\n');`],
    ['HEAD', `fs.writeFileSync('.git/HEAD', 'ref: refs/heads/evil\\n'); fs.writeFileSync('src/add.mjs', 'x\\n');`],
    ['info', `fs.writeFileSync('.git/info/exclude', 'src\\n'); fs.writeFileSync('src/add.mjs', 'x\\n');`],
    ['hooks', `fs.mkdirSync('.git/hooks', { recursive: true }); fs.writeFileSync('.git/hooks/post-checkout', '#!/bin/sh\\n'); fs.writeFileSync('src/add.mjs', 'x\\n');`],
    ['refs', `fs.writeFileSync('.git/refs/heads/evil', fs.readFileSync('.git/refs/heads/main')); fs.writeFileSync('src/add.mjs', 'x\\n');`],
    ['only .git', `fs.appendFileSync('.git/config', '[alias]\\n\\tstatus = !touch /tmp/pwned\\n');`],
  ];
  it.each(gitTampering)('rejects a change to the checkout\'s .git (%s) as protected_path naming .git', async (what, body) => {
    const err = await rejectionOf(`git-${what.replace(/\W/g, '')}`, body);
    expect(err.rule).toBe('protected_path');
    expect(err.message).toContain('.git');
    expect(loadChange(env.db, err.changeId!)).toMatchObject({ state: 'failed', failureRule: 'protected_path', latestRevision: 0 });
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  it('stores no raw diagnostic text from a failing implementer', async () => {
    const secret = 'SECRET-DIAGNOSTIC-7f3a';
    const err = await rejectionOf('crashing', `console.log('${secret}'); console.error('${secret}'); process.exit(3);`);
    expect(err.rule).toBe('implementer_exit_nonzero');
    expect(err.message).not.toContain(secret);
    const events = listEvents(env.db, err.changeId!);
    expect(events.map((e) => e.type)).toEqual(['requested', 'failed']);
    env.db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = readFileSync(join(env.dataDir, 'needle.sqlite3'));
    expect(bytes.includes(Buffer.from(secret))).toBe(false);
  });

  it('refuses unsafe and protected allowed paths before any worker runs', async () => {
    for (const path of ['../outside', '.git/config', '/etc/passwd', 'src/../..']) {
      const err = await rejectionOf('never-runs', `fs.writeFileSync('/proc/never', 'x');`, { ...ARGS, allowed_paths: [{ path, scope: 'exact' as const }] });
      expect(err.rule).toBe('invalid_request');
      expect(err.changeId).toBeNull();
    }
  });
});

describe('admission of empty files', () => {
  const file = (path: string, op: FileChange['op'], before: string | null, after: string | null): FileChange => ({
    path,
    op,
    before: before === null ? null : Buffer.from(before),
    after: after === null ? null : Buffer.from(after),
    kind: 'file',
  });
  const anywhere = [{ path: 'src', scope: 'subtree' as const }];

  it('deleting one empty file while creating another is not rename_like', () => {
    const files = admitPatch([file('src/a.txt', 'delete', '', null), file('src/b.txt', 'create', null, '')], anywhere);
    expect(files.map((f) => [f.path, f.operation])).toEqual([
      ['src/a.txt', 'delete'],
      ['src/b.txt', 'create'],
    ]);
  });

  it('a non-empty file recreated byte for byte still is', () => {
    expect(() => admitPatch([file('src/a.txt', 'delete', 'x\n', null), file('src/b.txt', 'create', null, 'x\n')], anywhere)).toThrow(/rename_like/);
  });
});
