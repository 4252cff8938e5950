// A server's warm-up (src/cli/warm-up.ts): once its analyzer thread has
// indexed the repository, the server asks a few needs about the repository's
// own code of a throwaway engine, so that a session's first need of each
// route does not pay for compiling the code that answers it. The user's data
// directory records none of it, and a client's first need after it is
// answered as it would be without it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo } from '../evidence/fixtures/repos.js';
import { callNeed, cleanupAll, queryRows, requireBuild, ServerProcess, SHIP, tempDir, until } from './fixtures.js';

afterAll(cleanupAll);

const TRACE = { route: 'trace.state-flow', subject: { kind: 'cli_option', name: '--dry-run' }, task: 'Trace how --dry-run stops the upload.' };
const WARMED = /warmed up on (\d+) of (\d+) needs about the repository's own code in \d+ ms/;

/** Rows of every table a need writes to in the user's data directory. */
function recorded(dbFile: string): Record<string, unknown> {
  const count = (table: string) => (queryRows(dbFile, `SELECT COUNT(*) AS n FROM ${table}`) as { n: number }[])[0]!.n;
  return Object.fromEntries(
    ['evidence_certifications', 'evidence_negative_certifications', 'evidence_artifacts', 'evidence_resolutions', 'need_steps', 'worker_runs'].map((t) => [t, count(t)]),
  );
}

let ship: string;
beforeAll(() => {
  requireBuild();
  ship = createRepo(SHIP);
});

describe('a server that has indexed its repository', () => {
  it('warms up on needs about the repository’s own code without recording any of them, then answers as a server that did not', async () => {
    const dataDir = tempDir('needle-data-');
    const s = new ServerProcess({ repo: ship, dataDir });
    await s.initialize();
    await until(() => WARMED.test(s.stderr), 'the server says it warmed up', 60_000);
    const [, answered, asked] = WARMED.exec(s.stderr)!;
    // A function, the option and a configuration key of the fixture: three routes for the first, a trace each for the others.
    expect(Number(asked)).toBeGreaterThanOrEqual(4);
    expect(answered).toBe(asked);
    const dbFile = join(dataDir, 'needle.sqlite3');
    expect(Object.values(recorded(dbFile))).toEqual(Object.values(recorded(dbFile)).map(() => 0));

    const warmed = await s.request(callNeed('full', TRACE));
    expect(await s.close()).toBe(0);
    // The same need of a server asked before its analyzer thread started (in process, no warm-up).
    const cold = new ServerProcess({ repo: ship, dataDir: tempDir('needle-data-') });
    await cold.initialize();
    const plain = await cold.request(callNeed('full', TRACE));
    expect(await cold.close()).toBe(0);
    expect(warmed.result.structuredContent).toMatchObject({ status: 'generated', worker_spawned: true, satisfied: ['implementation_location', 'runtime_flow', 'focused_tests'] });
    expect(warmed.result.structuredContent.context).toBe(plain.result.structuredContent.context);
    // Only the client's need is in the user's store.
    expect(recorded(dbFile)).toMatchObject({ need_steps: 1, evidence_resolutions: 1 });
  }, 90_000);
});
