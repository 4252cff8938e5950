import { describe, it, expect, afterEach } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { applyChange, recoverInterruptedApplies } from '../../src/changes/apply.js';
import { currentChangeDigest, loadChange, loadPatch } from '../../src/changes/store.js';
import { prepareChangeResultSchema, verifyChangeResultSchema } from '../../src/changes/model.js';
import { changeCommand } from '../../src/cli/commands/change.js';
import { git } from '../support/git.js';
import { crashMidApply } from './crash-apply.js';
import { ARGS, deps, FIXED_ADD, goodImplementer, makeEnv, profile, signal, verdictVerifier, type Env } from './fixture.js';

let env: Env;
afterEach(() => env?.cleanup());

async function cli(e: Env, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  let code: number;
  try {
    code = await changeCommand.run(argv, { stdout, stderr, stdin: new PassThrough(), env: { NEEDLE_DATA_DIR: e.dataDir }, cwd: e.root, interactive: false });
  } catch (x) {
    err += (x as Error).message;
    code = 1;
  }
  return { code, out, err };
}

describe('prepare → verify → apply', () => {
  it('keeps the worktree untouched until an explicit, verified, drift-free apply', async () => {
    env = makeEnv();
    const d = deps(env, profile(goodImplementer(env), verdictVerifier(env, 'verified')));
    const before = readFileSync(join(env.root, 'src/add.mjs'), 'utf8');

    const prepared = await prepareChange(d, ARGS, signal());
    prepareChangeResultSchema.parse(prepared);
    expect(prepared.change_id).toMatch(/^chg_[0-9a-f]{24}$/);
    expect(prepared.changed_files).toEqual([{ path: 'src/add.mjs', operation: 'update' }]);
    expect(prepared.verification_status).toBe('not_requested');
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(before);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
    const id = prepared.change_id;
    const stored = loadPatch(env.db, id, 1)!;
    expect(stored.files[0]!.before!.toString()).toBe(before);
    expect(stored.files[0]!.after!.toString()).toBe(FIXED_ADD);

    const early = currentChangeDigest(env.db, loadChange(env.db, id)!);
    expect(() => applyChange(env.db, env.root, id, early)).toThrow(/not verified/);

    const verified = await verifyChange(d, { change_id: id.toUpperCase().replace('CHG_', 'chg_') }, signal());
    verifyChangeResultSchema.parse(verified);
    expect(verified.status).toBe('verified');
    expect(verified.verifier_started).toBe(true);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);

    const again = await verifyChange(d, { change_id: id }, signal());
    expect(again).toMatchObject({ status: 'verified', verifier_started: false, verification_id: verified.verification_id });

    const digest = currentChangeDigest(env.db, loadChange(env.db, id)!);
    expect(() => applyChange(env.db, env.root, id, 'b3:' + '0'.repeat(64))).toThrow(/if-match/);

    writeFileSync(join(env.root, 'notes.txt'), 'unrelated edit\n');
    expect(() => applyChange(env.db, env.root, id, digest)).toThrow(/changed since/);
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(before);
    const { rmSync } = await import('node:fs');
    rmSync(join(env.root, 'notes.txt'));

    const shown = await cli(env, 'show', id);
    expect(shown.out).toContain(`--if-match ${digest}`);
    const diff = await cli(env, 'diff', id);
    expect(diff.out).toContain('-  return a - b;');
    expect(diff.out).toContain('+  return a + b;');

    const applied = await cli(env, 'apply', id, '--if-match', digest, '--json');
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.out)).toMatchObject({ status: 'applied', change_id: id });
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD);
    expect(git(env.root, 'diff', '--cached', '--name-only')).toBe('');

    const second = await cli(env, 'apply', id, '--if-match', digest);
    expect(second.code).not.toBe(0);
    expect(second.err).toMatch(/already applied/);
    const listed = await cli(env, 'list');
    expect(listed.out).toContain(`${id}  applied`);
  });

  it('rolls back an apply interrupted after its journal was written', async () => {
    env = makeEnv();
    const d = deps(env, profile(goodImplementer(env), verdictVerifier(env, 'verified')));
    const { change_id: id } = await prepareChange(d, ARGS, signal());
    await verifyChange(d, { change_id: id }, signal());
    const patch = loadPatch(env.db, id, 1)!;
    // A real apply killed after its journal was committed, while writing its first file.
    crashMidApply(join(env.dataDir, 'needle.sqlite3'), env.root, id, currentChangeDigest(env.db, loadChange(env.db, id)!), 0);
    expect(loadChange(env.db, id)!.state).toBe('applying');
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD.slice(0, Math.floor(Buffer.byteLength(FIXED_ADD) / 2)));

    const recovered = recoverInterruptedApplies(env.db, env.root);
    expect(recovered).toMatchObject([{ change_id: id, status: 'rolled_back', problems: [] }]);
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(patch.files[0]!.before!.toString());
    expect(loadChange(env.db, id)!.state).toBe('verified');

    const digest = currentChangeDigest(env.db, loadChange(env.db, id)!);
    expect(applyChange(env.db, env.root, id, digest).status).toBe('applied');
    expect(existsSync(join(env.root, 'src/add.mjs'))).toBe(true);
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD);
  });
});
