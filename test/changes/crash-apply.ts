// A real apply killed mid-write: a child process runs the built applyChange,
// writes `completeWrites` files whole and half of the next, then SIGKILLs
// itself. What it leaves — the journal and change_applies rows applyChange
// committed before its first write, the half-written worktree, the change in
// `applying` under a dead owner — is exactly what a crash leaves, so recovery
// tests need no hand-written rows.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { ROOT, requireBuild } from '../mcp/fixtures.js';

export function crashMidApply(dbFile: string, repoRoot: string, changeId: string, digest: string, completeWrites = 1): void {
  requireBuild();
  const mod = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist/src', p)).href);
  const script = `
    const { applyChange, REAL_APPLY_FS } = await import(${mod('changes/apply.js')});
    const { openDb } = await import(${mod('store/db.js')});
    let writes = 0;
    const io = { ...REAL_APPLY_FS, write(abs, bytes, exclusive) {
      if (++writes > ${completeWrites}) {
        REAL_APPLY_FS.write(abs, bytes.subarray(0, Math.floor(bytes.length / 2)), exclusive);
        process.kill(process.pid, 'SIGKILL');
      }
      REAL_APPLY_FS.write(abs, bytes, exclusive);
    } };
    applyChange(openDb(${JSON.stringify(dbFile)}), ${JSON.stringify(repoRoot)}, ${JSON.stringify(changeId)}, ${JSON.stringify(digest)}, io);
    process.stdout.write('applied without crashing\\n');`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  expect(r.signal, `${r.stdout}${r.stderr}`).toBe('SIGKILL');
}
