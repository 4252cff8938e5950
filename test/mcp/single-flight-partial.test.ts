// Single flight for a need that stays incomplete (issue "Hardening" 7): four
// `needle mcp serve` processes on one data directory and repository ask the
// same need at once. The static worker can only partly answer it (parseLevel
// is found, no test exercises it), so its run certifies the location and a
// negative outcome for focused_tests. Exactly one static run may happen; the
// three other servers wait on the SQLite lease and answer from what the first
// run certified: a zero-worker partial_hit.
//
// The line-up is deterministic: a test hook (src/cli/stage-hook.ts, stage `lead`)
// holds whichever server takes the lease until the three others have
// committed their unfinished need step, which they do just before trying the
// lease. Should another server take the lease later (single flight broken),
// it passes the open gate and is counted.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo } from '../evidence/fixtures/repos.js';
import { LEVELS } from '../resolve/negative-fixture.js';
import { CLI, cleanupAll, queryRows, requireBuild, tempDir, until } from './fixtures.js';

let repo: string;
beforeAll(() => {
  requireBuild();
  repo = createRepo(LEVELS);
});
afterAll(cleanupAll);

const LEVEL_NEED = {
  route: 'locate.implementation',
  subject: { kind: 'symbol', name: 'parseLevel' },
  task: 'Where is parseLevel, and which test covers it?',
  required: [{ kind: 'focused_tests' }],
};

/** A server whose every lease-taking announcement (the test hook's stderr line) calls `onLead`. */
async function connect(dataDir: string, gate: string, onLead: () => void): Promise<Client> {
  const client = new Client({ name: 'needle-single-flight', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', 'serve', '--role-profile', 'local', '--data-dir', dataDir, '--repository', repo],
    env: { ...process.env, NEEDLE_TEST_HOOK_STAGE: 'lead', NEEDLE_TEST_HOOK_STAGE_GATE: gate } as Record<string, string>,
    stderr: 'pipe',
  });
  let buffered = '';
  transport.stderr!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      if (buffered.slice(0, nl).startsWith('needle-test-hook: stage lead')) onLead();
      buffered = buffered.slice(nl + 1);
    }
  });
  await client.connect(transport);
  return client;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are asserted field by field
type Structured = Record<string, any>;

describe('four servers asking the same incomplete need at once', () => {
  it('run the static worker once; the other three answer a zero-worker partial_hit', async () => {
    const data = tempDir('needle-data-');
    const dbFile = join(data, 'needle.sqlite3');
    const gate = join(tempDir('needle-gate-'), 'open');
    let leads = 0;
    const clients = await Promise.all([0, 1, 2, 3].map(() => connect(data, gate, () => void leads++)));
    try {
      const asked = Promise.all(
        clients.map(async (c) => {
          const r = await c.callTool({ name: 'need_context', arguments: LEVEL_NEED }, CallToolResultSchema);
          expect(r.isError).toBe(false);
          return r.structuredContent as Structured;
        }),
      );
      // One server holds the lease; the three others are past their cache
      // check and their unfinished step is committed, so they wait on it.
      await until(() => leads >= 1, 'a server takes the lease');
      await until(() => queryRows(dbFile, "SELECT 1 FROM need_steps WHERE status = 'resolving'").length === 4, 'all four steps are resolving');
      expect(queryRows(dbFile, 'SELECT COUNT(*) AS n FROM evidence_flights')).toEqual([{ n: 1 }]);
      writeFileSync(gate, '');
      const answers = await asked;
      const runs = queryRows<{ worker: string }>(dbFile, 'SELECT worker FROM worker_runs');
      expect(runs).toEqual([{ worker: 'static' }]);
      // The waiters did not take the lease again after it was released either.
      expect(leads).toBe(1);
      for (const r of answers) expect(r).toMatchObject({ satisfied: ['implementation_location'], missing: ['focused_tests'] });
      expect(answers.filter((r) => r.worker_spawned)).toHaveLength(1);
      const waiters = answers.filter((r) => !r.worker_spawned);
      expect(waiters).toHaveLength(3);
      for (const r of waiters) expect(r).toMatchObject({ status: 'hit', cache_hit: true, resolution: { kind: 'partial_hit' } });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 60_000);
});
