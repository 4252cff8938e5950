/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into the untyped Responses API body */
// The whole ladder with the real `codex` binary from @openai/codex: the
// static worker certifies what it can, the binary (inside bubblewrap when it
// is available) is driven against a loopback mock of the Responses API for
// the runtime flow static left with gaps; its answer is validated, certified,
// and the repeat is served with zero workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';
import { stats } from '../../src/store/evidence/accounting.js';
import { bundledCodexPath } from '../../src/workers/codex/worker.js';
import { runsRootOf } from '../../src/workers/explorers.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { makeRepo, need, options, RF_DRY_RUN, type Repo } from '../resolve/fixture.js';
import { fingerprint } from './fixtures.js';
import { readJsonBody } from '../../bench/clients.js';
import { certifiedPredicates, ladderEngine, ladderProfile } from './ladder-fixture.js';

interface Recorded {
  readonly path: string;
  readonly auth: string | undefined;
  readonly body: Record<string, any>;
}

function sse(res: ServerResponse, events: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type as string}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** A model that answers every request with the runtime flow, as one assistant message. */
function mockModel(recorded: Recorded[]): Server {
  return createServer((req, res) => {
    void readJsonBody(req).then((body) => {
      recorded.push({ path: `${req.method} ${req.url}`, auth: req.headers.authorization, body });
      if (req.method !== 'POST' || req.url !== '/v1/responses') {
        res.writeHead(404).end();
        return;
      }
      const answer = JSON.stringify({ runtime_flow: RF_DRY_RUN.payload });
      const message = { type: 'message', role: 'assistant', id: 'msg_1' };
      sse(res, [
        { type: 'response.created', response: { id: 'resp_1' } },
        { type: 'response.output_item.added', output_index: 0, item: { ...message, content: [] } },
        { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta: answer },
        { type: 'response.output_item.done', output_index: 0, item: { ...message, content: [{ type: 'output_text', text: answer }] } },
        {
          type: 'response.completed',
          response: { id: 'resp_1', usage: { input_tokens: 1500, input_tokens_details: { cached_tokens: 1000 }, output_tokens: 60, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1560 } },
        },
      ]);
    });
  });
}

describe.skipIf(!bundledCodexPath())('ladder [static, codex] with the real codex binary (offline, mock Responses API)', () => {
  let repo: Repo;
  let server: Server;
  let port: number;
  const recorded: Recorded[] = [];

  beforeAll(async () => {
    repo = makeRepo();
    server = mockModel(recorded);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    repo.cleanup();
  });

  it('certifies the flow the binary found and serves the repeat as a zero-worker hit, leaving the worktree and .git untouched', async () => {
    const before = fingerprint(repo.root);
    const profile = ladderProfile(
      { model: 'gpt-mock-mini', reasoning_effort: 'low', timeout_ms: 90_000, provider: { name: 'mock', base_url: `http://127.0.0.1:${port}/v1`, env_key: 'NEEDLE_MOCK_MODEL_KEY' } },
      { pricing: [{ model: 'gpt-mock-mini', input_usd_per_mtok: 0.25, cached_input_usd_per_mtok: 0.025, output_usd_per_mtok: 2 }] },
    );
    // The key comes from the environment handed to the explorers, at run time.
    const { db, engine } = ladderEngine(repo, profile, detectSandbox(), { NEEDLE_MOCK_MODEL_KEY: 'sk-mock-run-time' });
    const dry = need(repo, 'trace.state-flow', { kind: 'cli_option', name: '--dry-run' });

    const first = await engine.resolve(dry, options());
    expect(first.satisfied).toEqual(['implementation_location', 'runtime_flow', 'focused_tests']);
    expect(first.missing).toEqual([]);
    expect(first.modelWorkersStarted).toBe(1);
    expect(first.context).toContain('5 consumer');
    expect(certifiedPredicates(db, '--dry-run')).toEqual(['focused_tests', 'implementation_location', 'runtime_flow']);

    // The binary only talked to the mock, with the key, asking for runtime_flow alone with the static evidence as input.
    const calls = recorded.filter((r) => r.path === 'POST /v1/responses');
    expect(recorded.length).toBe(calls.length);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]!.auth).toBe('Bearer sk-mock-run-time');
    expect(Object.keys(calls[0]!.body.text.format.schema.properties)).toEqual(['runtime_flow']);
    const input = JSON.stringify(calls[0]!.body.input);
    expect(input).toContain('Do not repeat covered discovery');
    expect(input).toContain('- implementation_location: {');

    const requests = recorded.length;
    const again = await engine.resolve(dry, options());
    expect(again.resolution.kind).toBe('composite_hit');
    expect(again.workerSpawned).toBe(false);
    expect(again.cacheHit).toBe(true);
    expect(again.context).toContain('5 consumer');
    expect(recorded.length).toBe(requests);

    // 500 uncached × $0.25 + 1000 cached × $0.025 + 60 output × $2 per Mtok = 270 micro-USD, spent once and avoided once.
    expect(stats(db).find((r) => r.route === 'trace.state-flow' && r.model === 'gpt-mock-mini')).toMatchObject({
      workerRuns: 1,
      tokensSpent: 1560,
      costSpentUsd: 0.00027,
      workersAvoided: 1,
      tokensAvoided: 1560,
      costAvoidedUsd: 0.00027,
    });
    expect(fingerprint(repo.root)).toEqual(before);
    const runs = runsRootOf(repo.dataDir);
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  }, 120_000);
});
