// A server's analyzer thread answers searches from the worktree's text held
// in memory, over git's listing of the files for the current source snapshot,
// reused while the snapshot stays the same (src/evidence/worktree-texts.ts).
// An edit between two needs makes another snapshot: the new and the edited
// bytes are searched, never the held ones.
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo } from '../evidence/fixtures/repos.js';
import { callNeed, cleanupAll, requireBuild, ServerProcess, SHIP, tempDir, until } from './fixtures.js';

afterAll(cleanupAll);

const locate = (name: string) => ({ route: 'locate.implementation', subject: { kind: 'symbol', name }, task: `Where is ${name} implemented?` });

let ship: string;
beforeAll(() => {
  requireBuild();
  ship = createRepo(SHIP);
});

describe('a server holding the worktree’s text', () => {
  it('finds a function in a file added after a need on it came back empty, and one added to a file it held', async () => {
    // git's settings files an hour old, none from the user's home: the server may keep its listing per snapshot.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const f of ['config', 'info/exclude']) utimesSync(join(ship, '.git', f), hourAgo, hourAgo);
    const home = tempDir('needle-home-');
    const s = new ServerProcess({ repo: ship, dataDir: tempDir('needle-data-'), env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') } });
    await s.initialize();
    await until(() => /holds the text of \d+ files/.test(s.stderr) && /warmed up on/.test(s.stderr), 'the server holds the text and warmed up', 60_000);

    const before = await s.request(callNeed(1, locate('rollback')));
    expect(before.result.structuredContent).toMatchObject({ missing: ['implementation_location'] });
    // An untracked file: only git's listing of the new snapshot has it.
    writeFileSync(join(ship, 'src/rollback.ts'), "import { deploy } from './deploy.js';\n\nexport function rollback(): string {\n  return deploy({ dryRun: true });\n}\n");
    const added = await s.request(callNeed(2, locate('rollback')));
    expect(added.result.structuredContent).toMatchObject({ satisfied: ['implementation_location'], worker_spawned: true });
    expect(added.result.structuredContent.context).toContain('src/rollback.ts');

    // A tracked file edited in place (held since the server started): its held text is not what is searched.
    writeFileSync(join(ship, 'src/config.ts'), 'export function loadConfig(path: string): string {\n  return path;\n}\n\nexport function retryUpload(): number {\n  return 3;\n}\n');
    const edited = await s.request(callNeed(3, locate('retryUpload')));
    expect(edited.result.structuredContent).toMatchObject({ satisfied: ['implementation_location'] });
    expect(edited.result.structuredContent.context).toContain('src/config.ts');
    expect(await s.close()).toBe(0);
  }, 90_000);
});
