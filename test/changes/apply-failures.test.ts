// Apply failures through the real code (issue 14 item 13): a write that fails
// half-way is rolled back live and leaves the worktree exactly as before; a
// rollback that fails itself is recorded in the journal and the error says
// what to do; and what others do meanwhile — a second apply, an editor
// creating a file the patch creates — is refused or left as they made it,
// never undone by our rollback. The disk is real; failures are injected only
// at the apply's one file-write seam (ApplyFs).
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { applyChange, REAL_APPLY_FS, type ApplyFs } from '../../src/changes/apply.js';
import { currentChangeDigest, loadChange } from '../../src/changes/store.js';
import { ChangeError } from '../../src/changes/model.js';
import { captureSnapshot } from '../../src/repo/snapshot.js';
import { ARGS, deps, FIXED_ADD, makeEnv, profile, refusal, script, signal, verdictVerifier, type Env } from './fixture.js';

let env: Env;
afterEach(() => env.cleanup());

const CREATED = 'src/gen/extra.mjs';
const ORIGINAL_ADD = 'export function add(a, b) {\n  return a - b;\n}\n';

/** A verified change that fixes add() (an update) and creates src/gen/extra.mjs (a new directory and file). */
async function verifiedChange(): Promise<{ id: string; digest: string }> {
  const impl = script(env, 'creator', `fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)}); fs.mkdirSync('src/gen', { recursive: true }); fs.writeFileSync(${JSON.stringify(CREATED)}, 'export const x = 1;\\n');`);
  const d = deps(env, profile(impl, verdictVerifier(env, 'verified')), { sandbox: { bwrap: null, active: false, reason: 'not needed here' } });
  const { change_id: id } = await prepareChange(d, ARGS, signal());
  expect((await verifyChange(d, { change_id: id }, signal())).status).toBe('verified');
  return { id, digest: currentChangeDigest(env.db, loadChange(env.db, id)!) };
}


const eio = (): Error => Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
const source = () => captureSnapshot(env.root).sourceDigest;
const applyRow = (id: string) =>
  env.db.prepare('SELECT apply_id, status, error FROM change_applies WHERE change_id = ? ORDER BY created_unix_ms DESC LIMIT 1').get(id) as { apply_id: string; status: string; error: string | null };
const events = (id: string) => (env.db.prepare('SELECT event_type FROM change_events WHERE change_id = ? ORDER BY id').all(id) as { event_type: string }[]).map((e) => e.event_type);

describe('applyChange when writes fail', () => {
  it('a write that fails half-way is rolled back live: the worktree is exactly as before, and the change can be applied later', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange();
    const before = source();
    // add.mjs is written; extra.mjs gets half its bytes, then the disk fails.
    const failing: ApplyFs = {
      ...REAL_APPLY_FS,
      write: (abs, bytes, exclusive) => {
        if (!abs.endsWith('extra.mjs')) return REAL_APPLY_FS.write(abs, bytes, exclusive);
        REAL_APPLY_FS.write(abs, bytes.subarray(0, 5), exclusive);
        throw eio();
      },
    };
    const err = refusal(() => applyChange(env.db, env.root, id, digest, failing));
    expect(err.rule).toBe('apply_failed');
    expect(err.message).toBe('apply failed: EIO: i/o error, write; the worktree was rolled back');
    expect(source()).toBe(before);
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(ORIGINAL_ADD);
    expect(existsSync(join(env.root, 'src/gen'))).toBe(false);
    expect(applyRow(id)).toMatchObject({ status: 'rolled_back' });
    expect(loadChange(env.db, id)!.state).toBe('verified');
    expect(events(id).slice(-2)).toEqual(['apply_started', 'apply_rolled_back']);

    expect(applyChange(env.db, env.root, id, currentChangeDigest(env.db, loadChange(env.db, id)!)).status).toBe('applied');
    expect(readFileSync(join(env.root, CREATED), 'utf8')).toBe('export const x = 1;\n');
  });

  it('rollback_failed: the rollback cannot restore a file; the journal records it, the change is failed, and the error says what to do', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange();
    let addWrites = 0;
    const broken: ApplyFs = {
      ...REAL_APPLY_FS,
      write: (abs, bytes, exclusive) => {
        if (abs.endsWith('extra.mjs')) throw eio();
        // The apply's write of add.mjs succeeds; the rollback's write of its before-bytes fails.
        if (++addWrites === 2) throw Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS' });
        return REAL_APPLY_FS.write(abs, bytes, exclusive);
      },
    };
    const err = refusal(() => applyChange(env.db, env.root, id, digest, broken));
    expect(err.rule).toBe('apply_failed');
    expect(err.message).toMatch(new RegExp(`^ROLLBACK FAILED, the change is now failed: restore these paths by hand \\(\`needle change diff ${id}\` shows what the apply wrote, \`git status\` what differs\\): src/add\\.mjs: EROFS`));
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD);
    const row = applyRow(id);
    expect(row.status).toBe('rollback_failed');
    expect(row.error).toContain('src/add.mjs: EROFS');
    // The before-bytes stay in the journal for whoever restores by hand.
    const journal = env.db.prepare('SELECT path, before_blob FROM change_apply_journal WHERE apply_id = ? ORDER BY ordinal').all(row.apply_id) as { path: string; before_blob: Buffer | null }[];
    expect(journal.map((j) => [j.path, j.before_blob?.toString() ?? null])).toEqual([['src/add.mjs', ORIGINAL_ADD], [CREATED, null]]);
    expect(loadChange(env.db, id)!.state).toBe('failed');
    // Nothing recovers it behind the user's back, and it cannot be applied again.
    expect(refusal(() => applyChange(env.db, env.root, id, digest)).rule).toBe('not_verified');
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD);
  });
});

describe('applyChange while others act', () => {
  it('a second apply while the first is writing is refused; the first is not mistaken for a crashed one and completes', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange();
    let second: ChangeError | null = null;
    const racing: ApplyFs = {
      ...REAL_APPLY_FS,
      write: (abs, bytes, exclusive) => {
        second ??= refusal(() => applyChange(env.db, env.root, id, digest));
        return REAL_APPLY_FS.write(abs, bytes, exclusive);
      },
    };
    expect(applyChange(env.db, env.root, id, digest, racing).status).toBe('applied');
    expect(second).not.toBeNull();
    expect(second!.rule).toBe('not_verified');
    expect(second!.message).toContain('state: applying');
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(FIXED_ADD);
    expect(readFileSync(join(env.root, CREATED), 'utf8')).toBe('export const x = 1;\n');
    expect(applyRow(id).status).toBe('applied');
    expect(events(id).filter((k) => k.startsWith('apply_'))).toEqual(['apply_started', 'apply_completed']);
  });

  it('a file the patch creates appears after the checks: the apply stops, undoes only its own writes and leaves the newcomer alone', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange();
    const editor: ApplyFs = {
      ...REAL_APPLY_FS,
      write: (abs, bytes, exclusive) => {
        // Someone else creates the file while the apply writes add.mjs.
        if (abs.endsWith('add.mjs') && !existsSync(join(env.root, CREATED))) {
          mkdirSync(join(env.root, 'src/gen'));
          writeFileSync(join(env.root, CREATED), 'theirs\n');
        }
        return REAL_APPLY_FS.write(abs, bytes, exclusive);
      },
    };
    const err = refusal(() => applyChange(env.db, env.root, id, digest, editor));
    expect(err.rule).toBe('apply_failed');
    expect(err.message).toMatch(/^apply failed: EEXIST.*; the worktree was rolled back$/);
    expect(readFileSync(join(env.root, CREATED), 'utf8')).toBe('theirs\n');
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe(ORIGINAL_ADD);
    expect(applyRow(id).status).toBe('rolled_back');
    // The worktree moved on: applying again is refused as drift, not attempted.
    expect(refusal(() => applyChange(env.db, env.root, id, currentChangeDigest(env.db, loadChange(env.db, id)!))).rule).toBe('snapshot_drift');
  });

  it('a file the patch updates is changed by someone after the checks: it is not overwritten, and nothing of ours stays', async () => {
    env = makeEnv();
    const { id, digest } = await verifiedChange();
    // The editor acts right after the journal transaction's last row (the 'apply_started' event), before the first write.
    let edited = false;
    env.db.function('needle_test_edit', () => {
      if (!edited) writeFileSync(join(env.root, 'src/add.mjs'), 'export function add(a, b) { return b + a; }\n');
      edited = true;
      return 0;
    });
    env.db.prepare(`CREATE TEMP TRIGGER edit_after_journal AFTER INSERT ON change_events WHEN NEW.event_type = 'apply_started' BEGIN SELECT needle_test_edit(); END`).run();
    const err = refusal(() => applyChange(env.db, env.root, id, digest));
    expect(edited).toBe(true);
    expect(err.rule).toBe('apply_failed');
    expect(err.message).toBe('apply failed: src/add.mjs changed in the worktree during the apply; the worktree was rolled back');
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toBe('export function add(a, b) { return b + a; }\n');
    expect(existsSync(join(env.root, CREATED))).toBe(false);
    expect(applyRow(id).status).toBe('rolled_back');
  });
});
