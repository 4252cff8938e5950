// A cancel that arrives while the static worker is busy (issue "Hardening" 9):
// the worker blocks the event loop, so the cancel line is only read once it
// returns. The resolver yields to pending input and checks the signal before
// certifying, so the client gets a cancellation, not the full answer.
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { callNeed, cleanupAll, LOCATE_ARGS, makeRepo, queryRows, ServerProcess, tempDir } from './fixtures.js';

afterAll(cleanupAll);

describe('a cancel sent while the static worker runs', () => {
  it('wins: the call is answered as cancelled and nothing is certified', async () => {
    const dataDir = tempDir('needle-data-');
    const s = new ServerProcess({ repo: makeRepo(), dataDir });
    await s.initialize();
    s.send(callNeed('busy', LOCATE_ARGS, { progressToken: 'p' }));
    // Progress is written (synchronously, to a pipe) just before the worker starts.
    await s.out.waitFor((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'p');
    s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'busy', reason: 'user' } });
    const reply = await s.out.reply('busy');
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toMatch(/cancelled/);
    expect(await s.close()).toBe(0);
    const dbFile = join(dataDir, 'needle.sqlite3');
    expect(queryRows(dbFile, 'SELECT status FROM need_steps')).toEqual([{ status: 'cancelled' }]);
    expect(queryRows(dbFile, 'SELECT COUNT(*) AS n FROM evidence_certifications')).toEqual([{ n: 0 }]);
  }, 60_000);
});
