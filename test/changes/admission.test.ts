import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareChange } from '../../src/changes/prepare.js';
import { listEvents, loadChange } from '../../src/changes/store.js';
import { ChangeError } from '../../src/changes/model.js';
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
