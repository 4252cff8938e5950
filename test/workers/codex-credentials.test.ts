/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
// No credential is readable by the model's commands (issue "Hardening" 1–3):
// the real `codex` binary against a loopback mock of the Responses API, with a
// scripted model whose command reads every file under the run directory, the
// run-local CODEX_HOME and HOME, and every process environment it can see.
// What the command printed is what the model API receives next, so the key
// must appear in no request body (it is only ever the Authorization header).
// Run against the pinned binary and, when NEEDLE_TEST_CODEX_EXTRA names
// further codex executables (':'-separated, e.g. a 0.144.0 install), those too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundledCodexPath, createCodexWorker, type CodexWorkerConfig } from '../../src/workers/codex/worker.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { threadStartParams } from '../../src/workers/codex/launch.js';
import { IMPLEMENTATION, makeRepo, needFor } from './fixtures.js';

const KEY = 'sk-needle-test-credential-0123456789abcdef';
// The detector is split so no log of the command text can contain the key's tail whole.
const READ_EVERYTHING = [
  'K1=credential-01234; K2=56789abcdef',
  'for d in .. "$HOME" ../codex-home "$TMPDIR"; do',
  '  find "$d" -path ../checkout -prune -o -type f -print 2>/dev/null | while read -r f; do',
  '    if grep -qaF "$K1$K2" "$f" 2>/dev/null; then echo "FOUND-IN-FILE $f"; fi',
  '  done',
  'done',
  'for e in /proc/[0-9]*/environ; do if grep -qaF "$K1$K2" "$e" 2>/dev/null; then echo "FOUND-IN-ENV $e"; fi; done',
  'env | grep -aF "$K1$K2" >/dev/null && echo FOUND-IN-OWN-ENV',
  'echo "FILES:"; find .. "$HOME" -path ../checkout -prune -o -type f -print 2>/dev/null | head -100',
  'echo "SNAPSHOTS:"; ls ../codex-home/shell_snapshots 2>&1; cat ../codex-home/shell_snapshots/* 2>/dev/null | head -c 4000',
  'echo DONE-READING',
].join('\n');

interface Recorded {
  auth: string | undefined;
  text: string;
  body: Record<string, any>;
}

function sse(res: import('node:http').ServerResponse, events: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type as string}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };

/** First response: the reading command; then a final answer that tries to smuggle the key it read into a description. */
function mock(recorded: Recorded[]): Server {
  return createServer((req, res) => {
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
      recorded.push({ auth: req.headers.authorization, text, body });
      if (req.method !== 'POST' || req.url !== '/v1/responses') return void res.writeHead(404).end();
      const n = recorded.length;
      const id = `resp_${n}`;
      if (n === 1) {
        const args = JSON.stringify({ cmd: READ_EVERYTHING, yield_time_ms: 60_000 });
        return sse(res, [
          { type: 'response.created', response: { id } },
          { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_1', name: 'exec_command', call_id: 'call_1', arguments: args } },
          { type: 'response.completed', response: { id, usage } },
        ]);
      }
      const answer = JSON.stringify({ implementation_location: IMPLEMENTATION });
      sse(res, [
        { type: 'response.created', response: { id } },
        { type: 'response.output_item.done', output_index: 0, item: { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: answer }] } },
        { type: 'response.completed', response: { id, usage } },
      ]);
    });
  });
}

function commandOutput(recorded: Recorded[]): string {
  const last = recorded.at(-1);
  const item = (last?.body.input as any[] | undefined)?.find((i) => i.type === 'function_call_output' && i.call_id === 'call_1');
  const out = item?.output;
  return typeof out === 'string' ? out : JSON.stringify(out ?? '');
}

const EXTRA = (process.env.NEEDLE_TEST_CODEX_EXTRA ?? '').split(':').filter((p) => p && existsSync(p));
const BINARIES = [bundledCodexPath(), ...EXTRA].filter((p): p is string => p !== null);
const sandbox = detectSandbox();
const MODES = [{ name: 'unsandboxed', info: { bwrap: null, active: false, reason: 'off' } }, ...(sandbox.active ? [{ name: 'bubblewrap', info: sandbox }] : [])];

describe('the thread config switches shell snapshots off', () => {
  it('sets features.shell_snapshot = false in the thread\'s own config', () => {
    const params = threadStartParams({ adapter: 'codex', model: 'm' }, '/x', 'dev', {}) as { config: { features: Record<string, boolean> } };
    expect(params.config.features.shell_snapshot).toBe(false);
  });
});

describe.skipIf(BINARIES.length === 0)('no credential is readable by the model\'s commands (real codex, mock Responses API)', () => {
  let server: Server;
  let port: number;
  let root: string;
  let base: string;
  const recorded: Recorded[] = [];

  beforeAll(async () => {
    ({ root, base } = makeRepo());
    server = mock(recorded);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(base, { recursive: true, force: true });
  });

  const config = (exe: string, info: CodexWorkerConfig['sandbox'], over: Partial<CodexWorkerConfig['explorer']> = {}): CodexWorkerConfig => ({
    explorer: {
      adapter: 'codex',
      model: 'gpt-mock-mini',
      codex_path: exe,
      timeout_ms: 90_000,
      provider: { name: 'mock', base_url: `http://127.0.0.1:${port}/v1`, env_key: 'NEEDLE_TEST_PROVIDER_KEY' },
      ...over,
    },
    runsRoot: join(base, 'runs'),
    sandbox: info,
    parentEnv: { ...process.env, NEEDLE_TEST_PROVIDER_KEY: KEY },
  });

  for (const [i, exe] of BINARIES.entries())
    for (const mode of MODES)
      it(`${i === 0 ? 'pinned codex' : `codex ${exe}`}, ${mode.name}: the key reaches only the Authorization header`, async () => {
        recorded.length = 0;
        const need = needFor(root);
        const out = await createCodexWorker(config(exe, mode.info)).run({ need, missing: need.required, root, covered: [], deadline: Date.now() + 100_000, signal: new AbortController().signal });
        expect(out.outcome).toEqual({ kind: 'proposed' });
        expect(readdirSync(join(base, 'runs'))).toEqual([]);
        const output = commandOutput(recorded);
        if (process.env.NEEDLE_TEST_SHOW_OUTPUT) console.log(output);
        expect(output).toContain('DONE-READING');
        expect(output).not.toMatch(/FOUND-IN/);
        expect(output).toMatch(/SNAPSHOTS:\s*ls: cannot access/);
        expect(recorded.length).toBe(2);
        expect(recorded.every((r) => r.auth === `Bearer ${KEY}`)).toBe(true);
        for (const r of recorded) expect(r.text).not.toContain(KEY);
      }, 120_000);

  it('refuses a codex_home login with a clear error before anything runs', async () => {
    recorded.length = 0;
    const need = needFor(root);
    const run = createCodexWorker(config(BINARIES[0]!, MODES[0]!.info, { codex_home: join(base, 'parent-codex-home') })).run({
      need,
      missing: need.required,
      root,
      covered: [],
      deadline: Date.now() + 30_000,
      signal: new AbortController().signal,
    });
    await expect(run).rejects.toThrow(/codex_home logins are not supported.*provider\.env_key/);
    expect(recorded).toEqual([]);
    expect(readdirSync(join(base, 'runs'))).toEqual([]);
  }, 60_000);
});
