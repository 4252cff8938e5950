// Apply refusals through the real code (issue "Code health" 13): a verified
// change made by a scripted implementer, applied to a worktree whose snapshot
// still equals the base, but where something the snapshot does not cover (an
// ignored file, an ignored symlink) or the repository itself differs.
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { applyChange } from '../../src/changes/apply.js';
import { currentChangeDigest, loadChange } from '../../src/changes/store.js';
import { ARGS, deps, FIXED_ADD, makeEnv, profile, refusal, script, signal, verdictVerifier, type Env } from './fixture.js';

let env: Env;
let other: Env | null = null;
afterEach(() => {
  env.cleanup();
  other?.cleanup();
  other = null;
});

/** A verified change that fixes add() and creates `created`. */
async function verifiedChange(created: string): Promise<{ id: string; digest: string }> {
  const impl = script(env, 'creator', `fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)}); fs.mkdirSync(path.dirname(${JSON.stringify(created)}), { recursive: true }); fs.writeFileSync(${JSON.stringify(created)}, 'export const x = 1;\\n');`);
  const d = deps(env, profile(impl, verdictVerifier(env, 'verified')), { sandbox: { bwrap: null, active: false, reason: 'not needed here' } });
  const { change_id: id } = await prepareChange(d, ARGS, signal());
  const verified = await verifyChange(d, { change_id: id }, signal());
  expect(verified.status).toBe('verified');
  return { id, digest: currentChangeDigest(env.db, loadChange(env.db, id)!) };
}


const untouched = () => expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toContain('a - b');

describe('applyChange refuses, naming the rule, and writes nothing', () => {
  it('wrong_repository: the change belongs to another repository', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange('src/extra.mjs');
    other = makeEnv();
    const err = refusal(() => applyChange(env.db, other!.root, id, digest));
    expect(err.rule).toBe('wrong_repository');
    expect(readFileSync(join(other.root, 'src/add.mjs'), 'utf8')).toContain('a - b');
    untouched();
    expect(loadChange(env.db, id)!.state).toBe('verified');
  });

  it('base_mismatch: a file the patch creates already exists, ignored, in the worktree', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange('src/extra.mjs');
    // Excluded through .git/info/exclude: invisible to the snapshot, present on disk.
    appendFileSync(join(env.root, '.git/info/exclude'), 'src/extra.mjs\n');
    writeFileSync(join(env.root, 'src/extra.mjs'), 'mine\n');
    const err = refusal(() => applyChange(env.db, env.root, id, digest));
    expect(err.rule).toBe('base_mismatch');
    expect(err.message).toContain('src/extra.mjs already exists');
    expect(readFileSync(join(env.root, 'src/extra.mjs'), 'utf8')).toBe('mine\n');
    untouched();
    expect(loadChange(env.db, id)!.state).toBe('verified');
  });

  it('base_mismatch: an ancestor of a created file is an (ignored) symlink that would redirect the write', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange('src/gen/extra.mjs');
    const elsewhere = join(env.root, '..', 'elsewhere');
    mkdirSync(elsewhere);
    appendFileSync(join(env.root, '.git/info/exclude'), 'src/gen\n');
    symlinkSync(elsewhere, join(env.root, 'src/gen'));
    const err = refusal(() => applyChange(env.db, env.root, id, digest));
    expect(err.rule).toBe('base_mismatch');
    expect(err.message).toContain('src/gen is not a directory');
    untouched();
    expect(loadChange(env.db, id)!.state).toBe('verified');
  });
});
