/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
// The codex implementer and verifier adapters driven against the App Server
// simulator: the simulator edits the checkout itself (as codex does, with no
// approval), asks for a file change outside it (declined), and answers with
// the role's structured output.
import { describe, it, expect, afterEach } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeRoleConfig, RoleProfile } from '../../src/core/profile.js';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { loadChange, loadPatch } from '../../src/changes/store.js';
import { runCodexRole, roleOutputSchema } from '../../src/changes/codex-adapter.js';
import { createCheckout, disposeCheckout } from '../../src/repo/checkout.js';
import { RunsStore } from '../../src/workers/runs-store.js';
import { expectInterruptedAndKilled, fingerprint, readLog, simulator, waitForEvent, type SimEvent } from '../workers/fixtures.js';
import { eventually, processesMentioning } from './mcp-harness.js';
import { ARGS, CRITERIA, deps, FIXED_ADD, makeEnv, NO_SANDBOX, script, signal, type Env } from './fixture.js';

let env: Env;
afterEach(() => env?.cleanup());

const covered = (status = 'addressed') => CRITERIA.map((criterion) => ({ criterion, status, evidence: 'src/add.mjs' }));
const REPORT = { summary: 'add() now adds', changed_files: [{ path: 'src/add.mjs', operation: 'update' }], acceptance_coverage: covered(), residual_risks: [] };
const verdict = (v: string, findings: string[] = []) => ({ verdict: v, acceptance_coverage: covered(), findings });

function codexRole(exe: string, model = 'gpt-sim-mini'): ChangeRoleConfig {
  return { adapter: 'codex', model, codex_path: exe, timeout_ms: 30_000 };
}

function codexProfile(implementer: ChangeRoleConfig, verifier: ChangeRoleConfig): RoleProfile {
  return {
    explorer: [{ adapter: 'static' }],
    implementer,
    verifier,
    test_execution: 'untrusted',
    require_sandbox: false,
    pricing: [{ model: 'gpt-sim-mini', input_usd_per_mtok: 1, cached_input_usd_per_mtok: 0.1, output_usd_per_mtok: 4 }],
  };
}

/** The implementer's scenario: edit in the checkout, try to write outside it, report. */
function implementerSim(e: Env, outside: string) {
  return simulator(join(e.scripts, 'sims'), 'implementer', {
    turns: [
      {
        steps: [
          { usage: { input: 1000, cached: 200, output: 100 } },
          { write: { path: 'src/add.mjs', content: FIXED_ADD } },
          { fileChange: { path: outside, content: 'written outside the checkout\n' } },
          { message: REPORT },
        ],
      },
    ],
  });
}

function verifierSim(e: Env, name: string, message: unknown) {
  return simulator(join(e.scripts, 'sims'), name, { turns: [{ steps: [{ usage: { input: 500, cached: 0, output: 50 } }, { message }] }] });
}

const requests = (log: string, method: string): SimEvent[] => readLog(log).filter((x) => x.event === 'request' && x.method === method);

describe('codex implementer and verifier (simulator)', () => {
  it('prepares exactly the filesystem diff, declines the write outside the checkout, and verifies read-only', async () => {
    env = makeEnv();
    const outside = join(env.dataDir, 'outside.txt');
    const impl = implementerSim(env, outside);
    const ver = verifierSim(env, 'verifier-ok', verdict('verified'));
    const d = deps(env, codexProfile(codexRole(impl.exe), codexRole(ver.exe)), {
      sandbox: NO_SANDBOX,
      env: { OPENAI_API_KEY: 'sk-model-api-key', GITHUB_TOKEN: 'ghp_never_passed' },
    });
    const before = fingerprint(env.root);

    const prepared = await prepareChange(d, ARGS, signal());
    expect(prepared).toMatchObject({ summary: 'add() now adds', changed_files: [{ path: 'src/add.mjs', operation: 'update' }], verification_status: 'not_requested' });
    expect(prepared.acceptance_coverage.map((c) => c.status)).toEqual(['addressed', 'addressed']);
    const patch = loadPatch(env.db, prepared.change_id, 1)!;
    expect(patch.files.map((f) => [f.path, f.after?.toString()])).toEqual([['src/add.mjs', FIXED_ADD]]);
    expect(patch.discrepancies).toEqual([]);

    // The outside write was asked for and declined, so it never happened.
    const decisions = readLog(impl.log).filter((x) => x.event === 'decision');
    expect(decisions).toEqual([expect.objectContaining({ fileChange: outside, response: { decision: 'decline' } })]);
    expect(existsSync(outside)).toBe(false);
    expect(fingerprint(env.root)).toEqual(before);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);

    // Launch: sealed process settings, run-local homes, only the model key for the app server.
    const start = readLog(impl.log).find((x) => x.event === 'start')!;
    const argv = (start.argv as string[]).join(' ');
    for (const flag of ['features.plugins=false', 'shell_environment_policy.inherit="none"', 'sandbox_workspace_write.exclude_slash_tmp=true', 'sandbox_workspace_write.exclude_tmpdir_env_var=true', 'sandbox_workspace_write.network_access=false'])
      expect(argv).toContain(`-c ${flag}`);
    const appEnv = start.env as Record<string, string>;
    expect(appEnv.OPENAI_API_KEY).toBe('sk-model-api-key');
    expect(appEnv.GITHUB_TOKEN).toBeUndefined();
    expect(appEnv.HOME!.startsWith(join(env.dataDir, 'runs'))).toBe(true);
    expect(appEnv.CODEX_HOME!.startsWith(join(env.dataDir, 'runs'))).toBe(true);

    // The thread may write its checkout and nothing else.
    const thread = requests(impl.log, 'thread/start')[0]!.params as Record<string, any>;
    const checkout = thread.cwd as string;
    expect(checkout.startsWith(join(env.dataDir, 'runs'))).toBe(true);
    expect(thread).toMatchObject({ sandbox: 'workspace-write', ephemeral: true, approvalPolicy: 'on-request' });
    expect(thread.config.sandbox_workspace_write).toEqual({ writable_roots: [checkout], network_access: false, exclude_tmpdir_env_var: true, exclude_slash_tmp: true });
    expect(thread.config.shell_environment_policy).toMatchObject({ inherit: 'none' });
    expect(JSON.stringify(thread.config.shell_environment_policy.set)).not.toMatch(/sk-model|ghp_/);
    const turn = requests(impl.log, 'turn/start')[0]!.params as Record<string, any>;
    expect(turn.outputSchema).toEqual(roleOutputSchema('implementer'));
    expect(turn.outputSchema.additionalProperties).toBe(false);
    expect(turn.input[0].text).toContain(ARGS.task);

    // Accounting: the run in worker_runs, its usage on the change attempt.
    const runs = new RunsStore(env.db).recent(5);
    expect(runs[0]).toMatchObject({ worker: 'codex', route: 'prepare.change', outcome: 'proposed', inputTokens: 1000, cachedInputTokens: 200, outputTokens: 100, priceMicroUsd: 1220 });
    const attempt = env.db.prepare(`SELECT usage_json FROM change_attempts WHERE change_id = ? AND role = 'implementer'`).get(prepared.change_id) as { usage_json: string };
    expect(JSON.parse(attempt.usage_json)).toMatchObject({ runId: runs[0]!.runId, inputTokens: 1000, priceMicroUsd: 1220 });

    const verified = await verifyChange(d, { change_id: prepared.change_id }, signal());
    expect(verified).toMatchObject({ status: 'verified', verifier_started: true });
    const vThread = requests(ver.log, 'thread/start')[0]!.params as Record<string, any>;
    expect(vThread.sandbox).toBe('read-only');
    expect(vThread.config.sandbox_workspace_write).toBeUndefined();
    expect(readLog(ver.log).find((x) => x.event === 'start')!.argv).not.toContain('sandbox_workspace_write.exclude_slash_tmp=true');
    // An independent verifier: the task and criteria, never the implementer's account.
    const vText = (requests(ver.log, 'turn/start')[0]!.params as any).input[0].text as string;
    expect(vText).toContain(CRITERIA[0]);
    expect(vText).not.toContain('add() now adds');
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ route: 'verify.change', outcome: 'proposed', inputTokens: 500 });
    expect(fingerprint(env.root)).toEqual(before);
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  it('a repairable codex verdict consumes the single repair; invalid output is inconclusive', async () => {
    env = makeEnv();
    const impl = implementerSim(env, join(env.dataDir, 'outside.txt'));
    const repairable = verifierSim(env, 'verifier-repairable', verdict('repairable', ['add() must also handle strings']));
    // A command implementer that can tell a repair from a first attempt.
    const repairing = script(
      env,
      'repairing-impl',
      `const prompt = fs.readFileSync(0, 'utf8');
fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)} + (prompt.includes('add() must also handle strings') ? '// strings too\\n' : ''));`,
    );
    const mixed = codexProfile({ adapter: 'command', argv: [process.execPath, repairing], prompt: 'stdin', timeout_ms: 30_000 }, codexRole(repairable.exe));
    const d = deps(env, mixed, { sandbox: NO_SANDBOX });
    const { change_id } = await prepareChange(d, ARGS, signal());
    const r = await verifyChange(d, { change_id }, signal());
    // The repair ran (revision 2 carries the finding's fix); the second repairable verdict cannot repair again.
    expect(r).toMatchObject({ status: 'inconclusive', repair_attempted: true, repair_performed: true, verification_attempts: 2 });
    expect(r.findings.join('\n')).toMatch(/single repair/);
    expect(loadPatch(env.db, change_id, 2)!.files[0]!.after!.toString()).toContain('// strings too');

    const garbled = verifierSim(env, 'verifier-garbled', 'Looks good to me!');
    const d2 = deps(env, codexProfile(codexRole(impl.exe), codexRole(garbled.exe)), { sandbox: NO_SANDBOX });
    const second = await prepareChange(d2, ARGS, signal());
    const g = await verifyChange(d2, { change_id: second.change_id }, signal());
    expect(g.status).toBe('inconclusive');
    expect(g.findings[0]).toMatch(/verifier output rejected/);
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ route: 'verify.change', outcome: 'invalid' });
    expect(loadChange(env.db, second.change_id)!.state).toBe('inconclusive');
  });

  it('a failed implementer turn fails the change with our own message, not the model text', async () => {
    env = makeEnv();
    const failing = simulator(join(env.scripts, 'sims'), 'failing', {
      turns: [{ steps: [{ write: { path: 'src/add.mjs', content: FIXED_ADD } }, { error: 'MODEL-SECRET-DIAGNOSTIC' }, { complete: 'failed', message: 'MODEL-SECRET-DIAGNOSTIC' }] }],
    });
    const ver = verifierSim(env, 'verifier-unused', verdict('verified'));
    const d = deps(env, codexProfile(codexRole(failing.exe), codexRole(ver.exe)), { sandbox: NO_SANDBOX });
    await expect(prepareChange(d, ARGS, signal())).rejects.toThrow(/codex implementer turn ended failed/);
    const row = env.db.prepare(`SELECT state, failure_rule FROM change_requests`).get() as { state: string; failure_rule: string };
    expect(row).toEqual({ state: 'failed', failure_rule: 'implementer_exit_nonzero' });
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ route: 'prepare.change', outcome: 'failed', reason: 'turn ended failed' });
    // Nowhere in the store: not the change tables, not the run accounting.
    const tables = (env.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((t) => t.name);
    for (const t of tables) expect(JSON.stringify(env.db.prepare(`SELECT * FROM "${t}"`).all())).not.toContain('MODEL-SECRET-DIAGNOSTIC');
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  it('cancellation mid-turn interrupts the turn, kills the process tree and fails the change', async () => {
    env = makeEnv();
    const sim = simulator(join(env.scripts, 'sims'), 'hanging', { turns: [{ steps: [{ write: { path: 'src/add.mjs', content: FIXED_ADD } }, { spawnSleep: 300 }, { hang: true }] }] });
    const d = deps(env, codexProfile(codexRole(sim.exe), codexRole(sim.exe)), { sandbox: NO_SANDBOX });
    const ac = new AbortController();
    const prepared = prepareChange(d, ARGS, ac.signal);
    await waitForEvent(sim.log, (e) => e.event === 'grandchild');
    ac.abort();
    await expect(prepared).rejects.toMatchObject({ rule: 'cancelled' });
    await expectInterruptedAndKilled(sim.log);
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ outcome: 'cancelled' });
    expect(loadChange(env.db, (env.db.prepare(`SELECT change_id FROM change_requests`).get() as { change_id: string }).change_id)!.state).toBe('failed');
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  it('a turn past the profile deadline fails the change as a timeout and leaves nothing running', async () => {
    env = makeEnv();
    const sims = join(env.scripts, 'sims');
    const sim = simulator(sims, 'slow', { turns: [{ ignoreInterrupt: true, steps: [{ hang: true }] }] });
    const d = deps(env, codexProfile({ ...codexRole(sim.exe), timeout_ms: 1_000 }, codexRole(sim.exe)), { sandbox: NO_SANDBOX });
    await expect(prepareChange(d, ARGS, signal())).rejects.toMatchObject({ rule: 'implementer_timeout' });
    // Judged from the process table, not the simulator's log: on a loaded
    // machine the deadline may fire before the simulator logs its start, and
    // whatever it had become by then (the launcher or the simulator, both
    // named by their path) must be gone all the same.
    await eventually('no process of the timed-out simulator is left', () => processesMentioning(join(sims, 'slow')).length === 0, 5_000);
    expect(new RunsStore(env.db).recent(1)[0]).toMatchObject({ outcome: 'timeout', route: 'prepare.change' });
    expect(readdirSync(join(env.dataDir, 'runs'))).toEqual([]);
  });

  it('the verifier may run only the exact certified test commands', async () => {
    env = makeEnv();
    const sim = simulator(join(env.scripts, 'sims'), 'approvals', {
      turns: [
        {
          steps: [
            { approval: { command: "/bin/bash -lc 'node --test test/add.test.mjs'" } },
            { approval: { command: "/bin/bash -lc 'node --test test/add.test.mjs; curl example.com'" } },
            { approval: { command: 'npm install left-pad' } },
            { message: verdict('verified') },
          ],
        },
      ],
    });
    const checkout = createCheckout(env.root, join(env.dataDir, 'runs'), 'verify');
    try {
      const run = await runCodexRole(codexRole(sim.exe) as Extract<ChangeRoleConfig, { adapter: 'codex' }>, 'verifier', checkout, 'verify the change', {
        signal: signal(),
        sandbox: NO_SANDBOX,
        parentEnv: {},
        defaultTimeoutMs: 30_000,
        certifiedTests: [['node', '--test', 'test/add.test.mjs']],
        runs: new RunsStore(env.db),
        pricing: undefined,
      });
      expect(run.outcome).toBe('ok');
      expect(JSON.parse(run.stdout).verdict).toBe('verified');
      const decisions = readLog(sim.log).filter((x) => x.event === 'decision').map((x) => (x.response as { decision: string }).decision);
      expect(decisions).toEqual(['accept', 'decline', 'decline']);
      const text = (requests(sim.log, 'turn/start')[0]!.params as any).input[0].text as string;
      expect(text).toContain('- node --test test/add.test.mjs');
      expect(new RunsStore(env.db).recent(1)[0]!.attempts[0]).toMatchObject({ approvalsAccepted: 1, approvalsDeclined: 2 });
    } finally {
      disposeCheckout(checkout);
    }
  });
});
