/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped request JSON */
// The codex implementer with the real `codex` binary from @openai/codex against
// a loopback mock of the Responses API. The scripted model edits the checkout
// with apply_patch, tries to write outside it three ways (shell into the run
// directory, shell into /tmp, apply_patch to a path outside, shell into the
// checkout's .git), and reports. The prepared change must be exactly the
// in-checkout edit; a read-only codex verifier then verifies it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { RoleProfile } from '../../src/core/profile.js';
import { prepareChange } from '../../src/changes/prepare.js';
import { loadPatch } from '../../src/changes/store.js';
import { verifyChange } from '../../src/changes/verify.js';
import { bundledCodexPath } from '../../src/workers/codex/worker.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { fingerprint } from '../workers/fixtures.js';
import { ARGS, CRITERIA, deps, FIXED_ADD, makeEnv, NO_SANDBOX, signal, type Env } from './fixture.js';

const CODEX = bundledCodexPath();

const PATCH_IN = `apply_patch <<'PATCH'
*** Begin Patch
*** Update File: src/add.mjs
@@
 export function add(a, b) {
-  return a - b;
+  return a + b;
 }
*** End Patch
PATCH`;

const patchOutside = (abs: string) => `apply_patch <<'PATCH'
*** Begin Patch
*** Add File: ${abs}
+written outside the checkout
*** End Patch
PATCH`;

interface Call {
  body: Record<string, any>;
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

function sse(res: ServerResponse, events: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type as string}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
}

function mockModel(calls: Call[], script: () => { commands: string[]; answer: unknown }): Server {
  return createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/responses') return void res.writeHead(404).end();
      calls.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const n = calls.length;
      const id = `resp_${n}`;
      const { commands, answer } = script();
      const cmd = commands[n - 1];
      if (cmd !== undefined) {
        const args = JSON.stringify({ cmd, workdir: '.' });
        return sse(res, [
          { type: 'response.created', response: { id } },
          { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: `fc_${n}`, name: 'exec_command', call_id: `call_${n}`, arguments: args } },
          { type: 'response.completed', response: { id, usage: usage(300, 20) } },
        ]);
      }
      const text = JSON.stringify(answer);
      sse(res, [
        { type: 'response.created', response: { id } },
        { type: 'response.output_item.done', output_index: 0, item: { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text }] } },
        { type: 'response.completed', response: { id, usage: usage(900, 80) } },
      ]);
    });
  });
}

/** What the model was told a command produced (the tool output in the next request). */
function toolOutput(calls: Call[], callId: string): string {
  for (const c of calls) {
    const item = (c.body.input as any[]).find((i) => i.type === 'function_call_output' && i.call_id === callId);
    if (item) return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
  }
  return '(no output)';
}

describe.skipIf(!CODEX)('codex implementer with the real codex binary (offline, mock Responses API)', () => {
  let env: Env;
  let server: Server;
  let port: number;
  const calls: Call[] = [];
  let script: { commands: string[]; answer: unknown } = { commands: [], answer: null };
  const tmpProbe = `/tmp/needle-codex-probe-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    env = makeEnv();
    server = mockModel(calls, () => script);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    env.cleanup();
  });

  it('prepares exactly the apply_patch edit made in the checkout; nothing outside it is written; a read-only verifier verifies it', async () => {
    const outsidePatch = join(env.dataDir, 'outside-patch.txt');
    const coverage = CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: 'src/add.mjs' }));
    script = {
      commands: [PATCH_IN, 'echo pwned > ../outside-shell.txt', `echo pwned > ${tmpProbe}`, patchOutside(outsidePatch), 'echo pwned >> .git/config'],
      answer: { summary: 'add() now returns the sum', changed_files: [{ path: 'src/add.mjs', operation: 'update' }], acceptance_coverage: coverage, residual_risks: [] },
    };
    const codex = {
      adapter: 'codex' as const,
      model: 'gpt-mock-mini',
      reasoning_effort: 'low' as const,
      codex_path: CODEX!,
      timeout_ms: 90_000,
      provider: { name: 'mock', base_url: `http://127.0.0.1:${port}/v1` },
    };
    const profile: RoleProfile = {
      explorer: [{ adapter: 'static' }],
      implementer: codex,
      verifier: codex,
      test_execution: 'untrusted',
      require_sandbox: false,
      pricing: [{ model: 'gpt-mock-mini', input_usd_per_mtok: 1, cached_input_usd_per_mtok: 0.1, output_usd_per_mtok: 4 }],
    };
    const before = fingerprint(env.root);
    const d = deps(env, profile, { sandbox: NO_SANDBOX });
    const prepared = await prepareChange(d, ARGS, signal());

    // What the model was told: the in-checkout patch applied with no approval;
    // every write outside the checkout (and into its .git) failed or was declined.
    expect(toolOutput(calls, 'call_1')).toMatch(/Success. Updated the following files:\s+M src\/add.mjs/);
    expect(toolOutput(calls, 'call_2')).toMatch(/outside-shell.txt: Read-only file system/);
    expect(toolOutput(calls, 'call_3')).toMatch(/Read-only file system/);
    expect(toolOutput(calls, 'call_4')).toMatch(/patch rejected/);
    expect(toolOutput(calls, 'call_5')).toMatch(/\.git\/config: Read-only file system/);

    expect(prepared.changed_files).toEqual([{ path: 'src/add.mjs', operation: 'update' }]);
    expect(prepared.summary).toBe('add() now returns the sum');
    const patch = loadPatch(env.db, prepared.change_id, 1)!;
    expect(patch.files.map((f) => [f.path, f.operation, f.after?.toString()])).toEqual([['src/add.mjs', 'update', FIXED_ADD]]);
    expect(fingerprint(env.root)).toEqual(before);
    expect(existsSync(outsidePatch)).toBe(false);
    expect(existsSync(tmpProbe)).toBe(false);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
    const run = new RunsStore(env.db).recent(1)[0]!;
    expect(run).toMatchObject({ worker: 'codex', route: 'prepare.change', outcome: 'proposed', model: 'gpt-mock-mini' });
    expect(run.inputTokens).toBe(300 * script.commands.length + 900);
    expect(calls[0]!.body.text.format).toMatchObject({ type: 'json_schema', strict: true });

    // The verifier reads the patched file in a fresh checkout; its write attempt fails in the read-only sandbox.
    calls.length = 0;
    script = { commands: ['cat src/add.mjs', 'echo tampered > src/add.mjs'], answer: { verdict: 'verified', acceptance_coverage: coverage, findings: [] } };
    const verified = await verifyChange(d, { change_id: prepared.change_id }, signal());
    expect(toolOutput(calls, 'call_1')).toContain('return a + b;');
    expect(toolOutput(calls, 'call_2')).toMatch(/Read-only file system|Permission denied|Operation not permitted/);
    expect(verified).toMatchObject({ status: 'verified', verifier_started: true });
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ route: 'verify.change', outcome: 'proposed' });
    expect(fingerprint(env.root)).toEqual(before);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  }, 120_000);

  const sandbox = detectSandbox();
  it.skipIf(!sandbox.active)('makes the same change inside the bubblewrap sandbox, where the user repository is not even visible', async () => {
    calls.length = 0;
    const coverage = CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: 'src/add.mjs' }));
    script = {
      commands: [PATCH_IN, `ls ${env.root}`],
      answer: { summary: 'add() now returns the sum', changed_files: [{ path: 'src/add.mjs', operation: 'update' }], acceptance_coverage: coverage, residual_risks: [] },
    };
    const profile: RoleProfile = {
      explorer: [{ adapter: 'static' }],
      implementer: { adapter: 'codex', model: 'gpt-mock-mini', codex_path: CODEX!, timeout_ms: 90_000, provider: { name: 'mock', base_url: `http://127.0.0.1:${port}/v1` } },
      verifier: null,
      test_execution: 'untrusted',
      require_sandbox: true,
    };
    const before = fingerprint(env.root);
    const prepared = await prepareChange(deps(env, profile, { sandbox }), ARGS, signal());
    expect(toolOutput(calls, 'call_1')).toMatch(/Success. Updated the following files/);
    expect(toolOutput(calls, 'call_2')).toMatch(/No such file or directory/);
    expect(loadPatch(env.db, prepared.change_id, 1)!.files.map((f) => [f.path, f.after?.toString()])).toEqual([['src/add.mjs', FIXED_ADD]]);
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ sandboxed: true, outcome: 'proposed' });
    expect(fingerprint(env.root)).toEqual(before);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  }, 120_000);
});
