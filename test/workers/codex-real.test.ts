/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
// The real `codex` binary from @openai/codex, driven by the worker against a
// loopback mock of the Responses API. The mock scripts one shell command (to
// look for leaked secrets) and then the final evidence message.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCodexWorker, bundledCodexPath, type CodexWorkerConfig } from '../../src/workers/codex/worker.js';
import { outputContract } from '../../src/workers/codex/output-contract.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { openDb } from '../../src/store/db.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import { IMPLEMENTATION, fingerprint, makeRepo, needFor } from './fixtures.js';

const CODEX = bundledCodexPath();
const STRACE = ['/usr/bin/strace', '/bin/strace'].find((p) => existsSync(p)) ?? null;
let PROBE = '';
const probeFor = (userRepo: string) =>
  `echo "ENV-BEGIN"; env; echo "ENV-END"; echo "BASHRC=\${BASHRC_SECRET:-unset}"; cat src/flags.ts; echo "USER-REPO:"; ls ${userRepo}/src 2>&1`;

interface Recorded {
  path: string;
  auth: string | undefined;
  body: Record<string, any>;
}

function sse(res: import('node:http').ServerResponse, events: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type as string}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

const usage = (input: number, cached: number, output: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

/**
 * Scripted model: a sandboxed probe for leaked secrets, an escalated read-only
 * command (the approval broker accepts it), an escalated destructive command
 * (declined), then the answer.
 */
const SCRIPT: (() => Record<string, unknown>)[] = [
  () => ({ cmd: PROBE }),
  () => ({ cmd: 'cat src/flags.ts', sandbox_permissions: 'require_escalated', justification: 'read the options file' }),
  () => ({ cmd: 'rm -rf src', sandbox_permissions: 'require_escalated', justification: 'clean up' }),
];
function mockResponses(recorded: Recorded[]): Server {
  return createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, any> = {};
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as empty
      }
      recorded.push({ path: `${req.method} ${req.url}`, auth: req.headers.authorization, body });
      if (req.method !== 'POST' || req.url !== '/v1/responses') {
        res.writeHead(404).end();
        return;
      }
      const n = recorded.filter((r) => r.path === 'POST /v1/responses').length;
      const id = `resp_${n}`;
      const step = SCRIPT[n - 1];
      if (step) {
        sse(res, [
          { type: 'response.created', response: { id } },
          { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: `fc_${n}`, name: 'exec_command', call_id: `call_${n}`, arguments: JSON.stringify(step()) } },
          { type: 'response.completed', response: { id, usage: usage(400, 0, 20) } },
        ]);
        return;
      }
      const answer = JSON.stringify({ implementation_location: IMPLEMENTATION });
      sse(res, [
        { type: 'response.created', response: { id } },
        { type: 'response.output_item.added', output_index: 0, item: { type: 'message', role: 'assistant', id: 'msg_1', content: [] } },
        { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta: answer },
        { type: 'response.output_item.done', output_index: 0, item: { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: answer }] } },
        { type: 'response.completed', response: { id, usage: usage(1500, 1000, 60) } },
      ]);
    });
  });
}

/** The text the model's shell command produced, as sent back to the model. */
function commandOutput(recorded: Recorded[], callId = 'call_1'): string {
  const last = recorded.filter((r) => r.path === 'POST /v1/responses').at(-1);
  const item = (last?.body.input as any[] | undefined)?.find((i) => i.type === 'function_call_output' && i.call_id === callId);
  const out = item?.output;
  return typeof out === 'string' ? out : JSON.stringify(out ?? '');
}

describe.skipIf(!CODEX)('codex worker with the real codex binary (offline, mock Responses API)', () => {
  let server: Server;
  let port: number;
  let recorded: Recorded[];
  let root: string;
  let base: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    ({ root, base } = makeRepo());
    PROBE = probeFor(root);
    recorded = [];
    server = mockResponses(recorded);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    // Secrets a careless worker would leak: parent env and a ~/.bashrc export.
    const parentHome = join(base, 'parent-home');
    mkdirSync(parentHome);
    writeFileSync(join(parentHome, '.bashrc'), 'export BASHRC_SECRET=bashrc-parent-secret\n');
    process.env.HOME = parentHome;
    process.env.OPENAI_API_KEY = 'sk-parent-openai-secret';
    process.env.GITHUB_TOKEN = 'ghp_parentgithubsecret';
  });
  afterAll(async () => {
    process.env = saved;
    await new Promise((r) => server.close(r));
    rmSync(base, { recursive: true, force: true });
  });

  function config(exe: string, over: Partial<CodexWorkerConfig> = {}): CodexWorkerConfig {
    return {
      explorer: {
        adapter: 'codex',
        model: 'gpt-mock-mini',
        reasoning_effort: 'low',
        codex_path: exe,
        timeout_ms: 90_000,
        provider: { name: 'mock', base_url: `http://127.0.0.1:${port}/v1`, env_key: 'OPENAI_API_KEY' },
      },
      runsRoot: join(base, 'runs'),
      sandbox: { bwrap: null, active: false, reason: 'off' },
      pricing: [{ model: 'gpt-mock-mini', input_usd_per_mtok: 0.25, cached_input_usd_per_mtok: 0.025, output_usd_per_mtok: 2 }],
      ...over,
    };
  }

  async function runOnce(cfg: CodexWorkerConfig) {
    recorded.length = 0;
    const need = needFor(root);
    const before = fingerprint(root);
    const out = await createCodexWorker(cfg).run({ need, missing: need.required, root, covered: [], deadline: Date.now() + 100_000, signal: new AbortController().signal });
    expect(fingerprint(root)).toEqual(before);
    expect(readdirSync(cfg.runsRoot)).toEqual([]);
    return out;
  }

  it.skipIf(!STRACE)('produces a proposal that parses with the contract, leaks no secret and connects only to the mock', async () => {
    const traceLog = join(base, 'connect.trace');
    const wrapper = join(base, 'codex-traced');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${STRACE} -f -qq -e trace=connect,sendto,sendmsg,sendmmsg -o ${traceLog} ${CODEX} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const runs = new RunsStore(openDb(join(base, 'data', 'needle.sqlite3')));
    const out = await runOnce(config(wrapper, { runs }));

    expect(out.outcome).toEqual({ kind: 'proposed' });
    expect(out.proposals).toEqual([{ predicate: 'implementation_location', payload: IMPLEMENTATION }]);
    expect(outputContract(['implementation_location']).schema.parse({ implementation_location: out.proposals[0]!.payload })).toBeTruthy();
    expect(out.usage).toEqual({ model: 'gpt-mock-mini', inputTokens: 2700, cachedInputTokens: 1000, outputTokens: 120, recordedRunId: 1 });

    // The model API saw our strict contract and the key meant for it.
    const calls = recorded.filter((r) => r.path === 'POST /v1/responses');
    expect(recorded.map((r) => r.path).every((p) => p === 'POST /v1/responses')).toBe(true);
    expect(calls.length).toBe(SCRIPT.length + 1);
    expect(calls[0]!.auth).toBe('Bearer sk-parent-openai-secret');
    expect(calls[0]!.body.text.format).toMatchObject({ type: 'json_schema', strict: true });
    expect(Object.keys(calls[0]!.body.text.format.schema.properties)).toEqual(['implementation_location']);

    // The model's command ran in the checkout with nothing secret in its environment.
    const output = commandOutput(recorded);
    expect(output).toContain('dryRun: boolean');
    expect(output).toContain('ENV-BEGIN');
    expect(output).toContain('BASHRC=unset');
    for (const secret of ['sk-parent-openai-secret', 'ghp_parentgithubsecret', 'bashrc-parent-secret']) expect(output).not.toContain(secret);

    // Every network syscall of the whole process tree went to the mock.
    const inet = readFileSync(traceLog, 'utf8').split('\n').filter((l) => /sa_family=AF_INET6?\b/.test(l));
    const elsewhere = inet.filter((l) => !l.includes(`sin_port=htons(${port})`) || !l.includes('inet_addr("127.0.0.1")'));
    expect(elsewhere).toEqual([]);
    expect(inet.length).toBeGreaterThan(0);

    // Escalations reach the approval broker: the read passes, the deletion is declined.
    expect(commandOutput(recorded, 'call_2')).toContain('dryRun: boolean');
    expect(commandOutput(recorded, 'call_3')).toMatch(/reject|declin/i);
    const attempts = runs.recent(1)[0]!.attempts;
    expect(attempts).toEqual([{ kind: 'initial', status: 'completed', outputValid: true, error: null, approvalsAccepted: 1, approvalsDeclined: 1 }]);

    const total = runs.totals()[0]!;
    expect(total).toMatchObject({ worker: 'codex', model: 'gpt-mock-mini', runs: 1, inputTokens: 2700, unpricedRuns: 0 });
    // 1700 × 0.25 + 1000 × 0.025 + 120 × 2 micro-USD
    expect(total.priceMicroUsd).toBe(690);
  }, 120_000);

  const sandbox = detectSandbox();
  it.skipIf(!sandbox.active)('works inside the bubblewrap sandbox', async () => {
    const out = await runOnce(config(CODEX!, { sandbox }));
    expect(out.outcome).toEqual({ kind: 'proposed' });
    const output = commandOutput(recorded);
    expect(output).toContain('dryRun: boolean');
    // The user's repository is not mounted in the sandbox: only the checkout is.
    expect(output).toMatch(/USER-REPO:\s*ls: cannot access '[^']*': No such file or directory/);
    for (const secret of ['sk-parent-openai-secret', 'ghp_parentgithubsecret', 'bashrc-parent-secret']) expect(output).not.toContain(secret);
  }, 120_000);
});
