// need_context end to end: the built server with the real static worker on a
// generated repository, driven by the official SDK client. Progress while the
// worker runs, a zero-worker hit from a new connection, recomputation after a
// one-byte edit of a dependency, and two connections sharing one worker run.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo } from '../evidence/fixtures/repos.js';
import { CLI, cleanupAll, countRows, requireBuild, SHIP, tempDir } from './fixtures.js';


let repo: string;
beforeAll(() => {
  requireBuild();
  repo = createRepo(SHIP);
});
afterAll(cleanupAll);

async function connect(dataDir: string): Promise<Client> {
  const client = new Client({ name: 'needle-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', 'serve', '--role-profile', 'local', '--data-dir', dataDir, '--repository', repo],
      stderr: 'pipe',
    }),
  );
  return client;
}

const TRACE = {
  route: 'trace.state-flow',
  subject: { kind: 'cli_option', name: '--dry-run' },
  task: 'Trace how --dry-run stops the upload.',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- results are asserted field by field
type Structured = Record<string, any>;

async function need(client: Client, args: object, onprogress?: (p: unknown) => void): Promise<{ structured: Structured; text: string }> {
  const result = await client.callTool({ name: 'need_context', arguments: args as Record<string, unknown> }, CallToolResultSchema, onprogress ? { onprogress } : {});
  expect(result.isError).toBe(false);
  const structured = result.structuredContent as Structured;
  const text = (result.content as { text: string }[])[0]!.text;
  expect(text).toBe(structured.context);
  return { structured, text };
}

describe('need_context over MCP with the static worker', () => {
  it('reports progress, certifies, serves a new connection with zero workers, and recomputes after a one-byte edit', async () => {
    const data = tempDir('needle-data-');
    const first = await connect(data);
    const progress: unknown[] = [];
    const cold = await need(first, TRACE, (p) => progress.push(p));
    await first.close();
    expect(progress.length).toBeGreaterThan(0);
    expect(cold.structured.worker_spawned).toBe(true);
    expect(cold.structured.satisfied).toEqual(['implementation_location', 'runtime_flow', 'focused_tests']);
    expect(cold.text).toContain('primary: src/deploy.ts:6');
    expect(cold.text).toContain('supporting: src/cli.ts:5');
    expect(cold.text).toContain('6 consumer       src/deploy.ts:6');
    expect(cold.text).toContain("focused test: npx vitest run test/deploy.test.ts -t 'deploy skips the upload in dry run'");

    const second = await connect(data);
    const warm = await need(second, TRACE);
    expect(warm.structured).toMatchObject({ status: 'hit', cache_hit: true, worker_spawned: false });
    expect(['exact_hit', 'composite_hit']).toContain(warm.structured.resolution.kind);
    expect(warm.text).toBe(cold.text.replace('resolution=miss', `resolution=${warm.structured.resolution.kind}`));

    // An unrelated edit keeps the hit; a whitespace byte in a dependency does not.
    appendFileSync(join(repo, 'README.md'), 'unrelated\n');
    const unrelated = await need(second, TRACE);
    expect(unrelated.structured.cache_hit).toBe(true);
    const deploy = join(repo, 'src/deploy.ts');
    const before = readFileSync(deploy, 'utf8');
    writeFileSync(deploy, `${before} `);
    const third = await connect(data);
    const after = await need(third, TRACE);
    // The flow rests on deploy.ts, so it is recomputed; the primary location
    // (cli.ts, untouched) may be reused as a claim.
    expect(after.structured.worker_spawned).toBe(true);
    expect(['partial_hit', 'miss']).toContain(after.structured.resolution.kind);
    expect(after.structured.satisfied).toEqual(['implementation_location', 'runtime_flow', 'focused_tests']);
    await second.close();
    await third.close();
    writeFileSync(deploy, before);
  });

  it('two connections asking the same need at once share one worker run', async () => {
    const data = tempDir('needle-data-');
    const [a, b] = await Promise.all([connect(data), connect(data)]);
    const LOCATE = { route: 'locate.implementation', subject: { kind: 'symbol', name: 'loadConfig' }, task: 'Where is the config loaded?' };
    const [ra, rb] = await Promise.all([need(a, LOCATE), need(b, LOCATE)]);
    await Promise.all([a.close(), b.close()]);
    expect(ra.structured.context).toContain('primary: src/config.ts:1-3 loadConfig');
    expect(rb.structured.context).toContain('primary: src/config.ts:1-3 loadConfig');
    expect([ra.structured.worker_spawned, rb.structured.worker_spawned].filter(Boolean)).toHaveLength(1);
    expect(countRows(join(data, 'needle.sqlite3'), 'worker_runs')).toBe(1);
  });
});
