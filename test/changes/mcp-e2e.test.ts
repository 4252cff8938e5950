// Verified changes end to end, from the outside: the built `needle mcp serve`
// driven by the official MCP SDK client, scripted implementer and verifier
// processes (and the Codex App Server simulator) configured in a role
// profile, and the built `needle change …` CLI for review and apply.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import type { RoleProfile } from '../../src/core/profile.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { countRows, queryRows } from '../mcp/fixtures.js';
import {
  changeDigest,
  codexSimulator,
  commandProfile,
  CRITERIA,
  eventually,
  fingerprint,
  hangingImplementerScript,
  implementerScript,
  installProfile,
  makeWorld,
  needle,
  ORIGINAL_ADD,
  PATCHED,
  PREPARE_ARGS,
  processesMentioning,
  PROFILE_ID,
  readText,
  serve,
  verifierScript,
  writeText,
  type Served,
  type World,
} from './mcp-harness.js';
import { git } from '../support/git.js';
import { crashMidApply } from './crash-apply.js';

const CHANGE_TABLES = ['change_requests', 'change_events', 'patch_artifacts', 'patch_files', 'change_attempts', 'change_verifications', 'change_applies'];

const open: Served[] = [];
let world: World | null = null;
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  world?.cleanup();
  world = null;
});

function newWorld(profile?: (w: World) => RoleProfile): World {
  world = makeWorld();
  const w = world;
  installProfile(w, profile ? profile(w) : commandProfile(implementerScript(w), verifierScript(w)));
  return w;
}

async function connect(w: World, profileId = PROFILE_ID, extra: readonly string[] = []): Promise<Served> {
  const s = await serve(w, profileId, extra);
  open.push(s);
  return s;
}

const dbFile = (w: World) => join(w.dataDir, 'needle.sqlite3');
const changeRows = (w: World) => Object.fromEntries(CHANGE_TABLES.map((t) => [t, countRows(dbFile(w), t)]));
/** Run directories left under `<data>/change-runs` (which exists once any worker ran). */
const runDirs = (w: World) => readdirSync(join(w.dataDir, 'change-runs'));
const noRunYet = (w: World) => !existsSync(join(w.dataDir, 'change-runs'));
/** What the user sees of their repository: every byte (`.git` included) and git's own account. */
const worktree = (w: World) => ({ files: fingerprint(w.repo), status: git(w.repo, 'status', '--porcelain', '--untracked-files=all') });

type Structured = Record<string, unknown> & { change_id: string };

async function call(s: Served, name: string, args: unknown): Promise<{ structured: Structured; text: string; isError: boolean }> {
  const r = await s.client.callTool({ name, arguments: args as Record<string, unknown> });
  const text = (r.content as { type: string; text: string }[])[0]!.text;
  return { structured: r.structuredContent as Structured, text, isError: r.isError === true };
}

/** The JSON-RPC error a call was refused with. */
async function refusal(s: Served, name: string, args: unknown): Promise<McpError> {
  const e = await s.client.callTool({ name, arguments: args as Record<string, unknown> }).then(
    (r) => new Error(`expected a JSON-RPC error, got ${JSON.stringify(r).slice(0, 400)}`),
    (x: unknown) => x,
  );
  if (!(e instanceof McpError)) throw e;
  return e;
}

/** prepare_change then verify_change over MCP; returns the verified change id. */
async function prepareAndVerify(s: Served): Promise<string> {
  const prepared = await call(s, 'prepare_change', PREPARE_ARGS);
  expect(prepared.isError).toBe(false);
  const verified = await call(s, 'verify_change', { change_id: prepared.structured.change_id });
  expect(verified.structured.status).toBe('verified');
  return prepared.structured.change_id;
}

function expectPatched(w: World): void {
  for (const [path, text] of Object.entries(PATCHED)) expect(readText(w, path)).toBe(text);
  expect(git(w.repo, 'diff', '--cached', '--name-only')).toBe('');
  expect(git(w.repo, 'status', '--porcelain', '--untracked-files=all')).toBe(' M src/add.mjs\n?? src/lib/sum.mjs\n');
}

describe('change tools over MCP stdio', () => {
  it('are listed only for a profile with an implementer and a verifier, never under --cache-only; hidden calls are -32602', async () => {
    const w = newWorld();
    const [full, cacheOnly, local] = await Promise.all([connect(w), connect(w, PROFILE_ID, ['--cache-only']), connect(w, 'local')]);

    const { tools } = await full.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['need_context', 'prepare_change', 'verify_change']);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.prepare_change!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.verify_change!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.prepare_change!.inputSchema).toMatchObject({ additionalProperties: false });
    expect(byName.verify_change!.inputSchema).toMatchObject({ additionalProperties: false, required: ['change_id'] });

    for (const hidden of [cacheOnly, local]) {
      expect((await hidden.client.listTools()).tools.map((t) => t.name)).toEqual(['need_context']);
      const p = await refusal(hidden, 'prepare_change', PREPARE_ARGS);
      expect(p.code).toBe(-32602);
      expect(p.message).toMatch(/prepare_change is disabled/);
      const v = await refusal(hidden, 'verify_change', { change_id: `chg_${'0'.repeat(24)}` });
      expect(v.code).toBe(-32602);
    }
    expect(changeRows(w).change_requests).toBe(0);
    expect(noRunYet(w)).toBe(true);
  });

  it('prepare leaves the worktree untouched; apply needs verify, a drift-free worktree and happens once', async () => {
    const w = newWorld();
    const s = await connect(w);
    const { tools } = await s.client.listTools();
    const outputSchema = (name: string) => tools.find((t) => t.name === name)!.outputSchema!;
    const ajv = new Ajv({ strict: false });
    const before = worktree(w);

    const prepared = await call(s, 'prepare_change', PREPARE_ARGS);
    expect(prepared.isError).toBe(false);
    expect(ajv.validate(outputSchema('prepare_change'), prepared.structured)).toBe(true);
    const id = prepared.structured.change_id;
    expect(id).toMatch(/^chg_[0-9a-f]{24}$/);
    expect(prepared.structured).toMatchObject({
      status: 'prepared',
      verification_status: 'not_requested',
      patch_id: expect.stringMatching(/^b3:[0-9a-f]{64}$/),
      changed_files: [
        { path: 'src/add.mjs', operation: 'update' },
        { path: 'src/lib/sum.mjs', operation: 'create' },
      ],
      acceptance_coverage: CRITERIA.map((criterion) => expect.objectContaining({ criterion, status: 'addressed' })),
    });
    expect(prepared.text).toContain(id);
    expect(worktree(w)).toEqual(before);
    expect(runDirs(w)).toEqual([]);

    // The diff the user reviews is the one derived from the filesystem.
    const diff = await needle(w, 'change', 'diff', id);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('-  return a - b;');
    expect(diff.stdout).toContain('+export const sum = (xs) => xs.reduce(add, 0);');

    const early = await changeDigest(w, id);
    expect(early.state).toBe('prepared');
    const refusedEarly = await needle(w, 'change', 'apply', id, '--if-match', early.digest);
    expect(refusedEarly.code).not.toBe(0);
    expect(refusedEarly.stderr.trim().split('\n')).toEqual([expect.stringMatching(/not verified.*verify_change/)]);
    expect(worktree(w)).toEqual(before);

    const verified = await call(s, 'verify_change', { change_id: id });
    expect(verified.isError).toBe(false);
    expect(ajv.validate(outputSchema('verify_change'), verified.structured)).toBe(true);
    expect(verified.structured).toMatchObject({ status: 'verified', change_id: id, patch_id: prepared.structured.patch_id, verifier_started: true, findings: [] });
    expect(verified.text).toMatch(/completed with status verified/);
    expect(worktree(w)).toEqual(before);
    expect(runDirs(w)).toEqual([]);
    // A verified verdict is cached: asking again starts no verifier.
    expect((await call(s, 'verify_change', { change_id: id })).structured).toMatchObject({ status: 'verified', verifier_started: false });

    const { digest, state } = await changeDigest(w, id);
    expect(state).toBe('verified');
    expect(digest).not.toBe(early.digest);
    const stale = await needle(w, 'change', 'apply', id, '--if-match', early.digest);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toMatch(/--if-match does not equal/);

    // An edit anywhere in the worktree is drift: nothing is written.
    writeText(w, 'README.md', '# calc\n\nlocal notes\n');
    const drift = await needle(w, 'change', 'apply', id, '--if-match', digest);
    expect(drift.code).not.toBe(0);
    expect(drift.stderr.trim().split('\n')).toEqual([expect.stringMatching(/worktree changed since change .* was prepared/)]);
    expect(readText(w, 'src/add.mjs')).toBe(ORIGINAL_ADD);
    expect(existsSync(join(w.repo, 'src/lib'))).toBe(false);

    writeText(w, 'README.md', '# calc\n');
    const applied = await needle(w, 'change', 'apply', id, '--if-match', digest, '--json');
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ status: 'applied', change_id: id, revision: 1, patch_id: prepared.structured.patch_id });
    expectPatched(w);
    expect(git(w.repo, 'rev-list', '--count', 'HEAD')).toBe('1\n');

    const second = await needle(w, 'change', 'apply', id, '--if-match', digest);
    expect(second.code).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toEqual([expect.stringMatching(/already applied/)]);
    expectPatched(w);
    expect((await needle(w, 'change', 'list')).stdout).toMatch(new RegExp(`${id}\\s+applied`));
  });

  it('rolls back an interrupted apply when the next mcp serve starts, and the change can then be applied', async () => {
    const w = newWorld();
    const first = await connect(w);
    const id = await prepareAndVerify(first);
    await first.close();
    const before = worktree(w);

    // A real apply killed mid-write: add.mjs rewritten, the new directory created and sum.mjs
    // half-written; its journal rows are the ones applyChange committed before its first write.
    crashMidApply(join(w.dataDir, 'needle.sqlite3'), w.repo, id, (await changeDigest(w, id)).digest, 1);
    expect(readText(w, 'src/add.mjs')).toBe(PATCHED['src/add.mjs']);
    expect(readText(w, 'src/lib/sum.mjs')).toBe(PATCHED['src/lib/sum.mjs'].slice(0, Math.floor(Buffer.byteLength(PATCHED['src/lib/sum.mjs']) / 2)));
    expect(worktree(w)).not.toEqual(before);
    expect((await changeDigest(w, id)).state).toBe('applying');

    const next = await connect(w);
    expect(await next.stderrMatching(new RegExp(`rolled back interrupted apply of ${id}`))).not.toMatch(/could not roll back/);
    expect(worktree(w)).toEqual(before);
    const { digest, state } = await changeDigest(w, id);
    expect(state).toBe('verified');
    // The session still serves the change tools after recovering.
    expect((await call(next, 'verify_change', { change_id: id })).structured).toMatchObject({ status: 'verified', verifier_started: false });

    const applied = await needle(w, 'change', 'apply', id, '--if-match', digest);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/Nothing was staged or committed/);
    expectPatched(w);
  });

  it('cancelling prepare_change kills the implementer process tree, removes its run directory and fails the change', async () => {
    let implementer = '';
    const w = newWorld((w) => {
      implementer = hangingImplementerScript(w);
      return commandProfile(implementer, verifierScript(w));
    });
    const s = await connect(w);
    const before = worktree(w);
    const ac = new AbortController();
    const pending = s.client.callTool({ name: 'prepare_change', arguments: PREPARE_ARGS }, undefined, { signal: ac.signal, timeout: 60_000 });
    await eventually('the implementer started its child', () => processesMentioning('hanging-implementer-child').length > 0);
    ac.abort();
    await expect(pending).rejects.toThrow();

    // Calls are served one at a time, so this answer comes after the cancelled one settled.
    const id = queryRows<{ change_id: string }>(dbFile(w), 'SELECT change_id FROM change_requests')[0]!.change_id;
    const after = await call(s, 'verify_change', { change_id: id });
    expect(after.isError).toBe(true);
    expect(after.text).toMatch(/failed \(cancelled\) and cannot be verified/);
    expect(queryRows(dbFile(w), 'SELECT state, failure_rule FROM change_requests')).toEqual([{ state: 'failed', failure_rule: 'cancelled' }]);
    await eventually('no implementer process is left', () => processesMentioning('hanging-implementer').length === 0, 5_000);
    expect(runDirs(w)).toEqual([]);
    expect(worktree(w)).toEqual(before);
  });

  it('refuses invalid prepare_change arguments with -32602 before anything is stored or run', async () => {
    const w = newWorld();
    const s = await connect(w);
    const before = worktree(w);
    const invalid: [unknown, RegExp][] = [
      [{ ...PREPARE_ARGS, allowed_paths: [{ path: '../outside', scope: 'subtree' }] }, /allowed_paths\[0\]\.path/],
      [{ ...PREPARE_ARGS, allowed_paths: [{ path: '.git/config', scope: 'exact' }] }, /allowed_paths\[0\]\.path.*protected/],
      [{ ...PREPARE_ARGS, allowed_paths: [{ path: '/etc', scope: 'subtree' }] }, /allowed_paths\[0\]\.path/],
      [{ ...PREPARE_ARGS, acceptance_criteria: Array.from({ length: 9 }, (_, i) => `criterion ${i + 1}`) }, /acceptance_criteria/],
      [{ ...PREPARE_ARGS, acceptance_criteria: [] }, /acceptance_criteria/],
      [{ ...PREPARE_ARGS, task: '   ' }, /task/],
      [{ ...PREPARE_ARGS, allowed_paths: [{ path: 'src', scope: 'everything' }] }, /allowed_paths\[0\]\.scope/],
      [{ ...PREPARE_ARGS, base_branch: 'main' }, /base_branch/],
      [{ ...PREPARE_ARGS, artifact_ids: ['not-a-digest'] }, /artifact_ids\[0\]/],
    ];
    for (const [args, field] of invalid) {
      const e = await refusal(s, 'prepare_change', args);
      expect(e.code, JSON.stringify(args)).toBe(-32602);
      expect(e.message).toMatch(field);
      expect(e.message.split('\n')).toHaveLength(1);
    }
    for (const args of [{ change_id: 'chg_123' }, { change_id: `chg_${'a'.repeat(24)}`, force: true }, {}]) {
      expect((await refusal(s, 'verify_change', args)).code).toBe(-32602);
    }
    expect(Object.values(changeRows(w)).every((n) => n === 0)).toBe(true);
    expect(countRows(dbFile(w), 'worker_runs')).toBe(0);
    expect(noRunYet(w)).toBe(true);
    expect(worktree(w)).toEqual(before);
  });
});

describe('codex implementer and verifier over MCP (App Server simulator)', () => {
  const report = {
    summary: 'add() adds; sum() reduces with add()',
    changed_files: Object.keys(PATCHED).map((path) => ({ path, operation: path.endsWith('sum.mjs') ? 'create' : 'update' })),
    acceptance_coverage: CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: 'src/add.mjs' })),
    residual_risks: ['sum() of an empty list is 0'],
  };
  const verdict = { verdict: 'verified', acceptance_coverage: CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: 'read both files' })), findings: [] };

  it('prepares from the filesystem, verifies, and applies through the same CLI path', async () => {
    const w = newWorld((w) => ({
      explorer: [{ adapter: 'static' }],
      implementer: codexSimulator(w, 'implementer', {
        turns: [
          {
            steps: [
              { usage: { input: 1200, cached: 0, output: 300 } },
              ...Object.entries(PATCHED).map(([path, content]) => ({ write: { path, content } })),
              // Declined: the thread may only write its checkout.
              { fileChange: { path: join(w.repo, 'README.md'), content: 'written by the model\n' } },
              { message: report },
            ],
          },
        ],
      }),
      verifier: codexSimulator(w, 'verifier', { turns: [{ steps: [{ usage: { input: 800, cached: 100, output: 80 } }, { message: verdict }] }] }),
      test_execution: 'trusted',
      require_sandbox: false,
      pricing: [{ model: 'gpt-sim-mini', input_usd_per_mtok: 1, cached_input_usd_per_mtok: 0.1, output_usd_per_mtok: 4 }],
    }));
    const s = await connect(w);
    expect((await s.client.listTools()).tools.map((t) => t.name)).toEqual(['need_context', 'prepare_change', 'verify_change']);
    const before = worktree(w);

    const prepared = await call(s, 'prepare_change', PREPARE_ARGS);
    expect(prepared.isError, prepared.text).toBe(false);
    expect(prepared.structured).toMatchObject({
      verification_status: 'not_requested',
      changed_files: report.changed_files,
      residual_risks: report.residual_risks,
    });
    const id = prepared.structured.change_id;
    expect(worktree(w)).toEqual(before);
    expect(runDirs(w)).toEqual([]);

    const verified = await call(s, 'verify_change', { change_id: id });
    expect(verified.structured).toMatchObject({ status: 'verified', verifier_started: true });
    expect(worktree(w)).toEqual(before);
    expect(runDirs(w)).toEqual([]);

    // Both turns are accounted for, with tokens, price and whether bubblewrap confined them.
    const runs = queryRows(
      dbFile(w),
      `SELECT r.route, r.outcome, r.input_tokens, r.price_microusd, r.sandboxed, a.approvals_declined
       FROM worker_runs r JOIN worker_attempts a USING (run_id) ORDER BY r.started_unix_ms`,
    );
    const sandboxed = detectSandbox().active ? 1 : 0;
    expect(runs).toEqual([
      { route: 'prepare.change', outcome: 'proposed', input_tokens: 1200, price_microusd: 2400, sandboxed, approvals_declined: 1 },
      { route: 'verify.change', outcome: 'proposed', input_tokens: 800, price_microusd: 1030, sandboxed, approvals_declined: 0 },
    ]);

    const { digest } = await changeDigest(w, id);
    const applied = await needle(w, 'change', 'apply', id, '--if-match', digest);
    expect(applied.code, applied.stderr).toBe(0);
    expectPatched(w);
    expect(readText(w, 'README.md')).toBe('# calc\n');
  });
});
