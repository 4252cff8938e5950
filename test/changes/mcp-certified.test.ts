// Certified evidence as the input of a verified change, end to end over MCP
// stdio: need_context certifies a node --test focused test with the static
// worker, prepare_change takes its artifact id, verify_change runs that exact
// test in the patched checkout (under bubblewrap when present), and after a
// one-byte edit of the test the same id is refused as invalid input.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadChange } from '../../src/changes/store.js';
import { openDb } from '../../src/store/db.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { countRows } from '../mcp/fixtures.js';
import { git } from '../support/git.js';
import { commandProfile, implementerScript, installProfile, makeWorld, PREPARE_ARGS, readText, serve, verifierScript, writeText, type Served, type World } from './mcp-harness.js';

let world: World | null = null;
let served: Served | null = null;
afterEach(async () => {
  await served?.close();
  served = null;
  world?.cleanup();
  world = null;
});

const TEST_NAME = 'multiply multiplies two numbers';

/**
 * A module the change leaves alone and its node:test test. Under bubblewrap
 * the test also proves where it runs: the user's repository must be invisible.
 */
function addMultiply(w: World, sandboxed: boolean): void {
  writeText(w, 'package.json', `${JSON.stringify({ name: 'calc', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`);
  writeText(w, 'src/mul.mjs', 'export function multiply(a, b) {\n  return a * b;\n}\n');
  writeText(
    w,
    'test/mul.test.mjs',
    [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { existsSync } from 'node:fs';",
      "import { multiply } from '../src/mul.mjs';",
      '',
      `test('${TEST_NAME}', () => {`,
      '  assert.equal(multiply(6, 7), 42);',
      sandboxed ? `  assert.equal(existsSync(${JSON.stringify(w.repo)}), false, 'the user repository is visible to the test');` : '',
      '});',
      '',
    ].join('\n'),
  );
  git(w.repo, 'add', '-A');
  git(w.repo, 'commit', '-q', '-m', 'multiply');
}

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- result JSON

async function call(s: Served, name: string, args: unknown): Promise<Structured> {
  const r = await s.client.callTool({ name, arguments: args as Record<string, unknown> });
  expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
  return r.structuredContent as Structured;
}

async function refusal(s: Served, name: string, args: unknown): Promise<McpError> {
  const e = await s.client.callTool({ name, arguments: args as Record<string, unknown> }).then(
    (r) => new Error(`expected a JSON-RPC error, got ${JSON.stringify(r).slice(0, 400)}`),
    (x: unknown) => x,
  );
  if (!(e instanceof McpError)) throw e;
  return e;
}

const NEED = { route: 'tests.relevant', subject: { kind: 'symbol', name: 'multiply' }, task: 'Which test proves multiply() works?' };

describe('certified evidence as input to verified changes over MCP', () => {
  it('runs the certified focused test of an artifact id at verification, and refuses the id once the test file changed', async () => {
    const sandbox = detectSandbox();
    const w = (world = makeWorld());
    addMultiply(w, sandbox.active);
    installProfile(w, { ...commandProfile(implementerScript(w), verifierScript(w)), require_sandbox: sandbox.active });
    const s = (served = await serve(w));

    const cold = await call(s, 'need_context', NEED);
    expect(cold.worker_spawned).toBe(true);
    expect(cold.satisfied).toEqual(['focused_tests']);
    const hit = await call(s, 'need_context', NEED);
    expect(hit).toMatchObject({ cache_hit: true, worker_spawned: false, resolution: { kind: 'exact_hit' } });
    const [artifactId] = hit.resolution.artifact_ids as string[];
    expect(hit.context).toContain(`node --test --test-name-pattern '${TEST_NAME}' test/mul.test.mjs`);

    const prepared = await call(s, 'prepare_change', { ...PREPARE_ARGS, artifact_ids: [artifactId] });
    const db = openDb(join(w.dataDir, 'needle.sqlite3'));
    try {
      const stored = loadChange(db, prepared.change_id)!.context;
      expect(stored.items.map((i) => [i.id, i.label])).toEqual([[artifactId, 'focused_tests symbol:multiply test/mul.test.mjs:6-9']]);
      expect(stored.testPlans.map((p) => p.dependencies.map((d) => d.path))).toEqual([expect.arrayContaining(['package.json', 'test/mul.test.mjs'])]);
    } finally {
      db.close();
    }

    const verified = await call(s, 'verify_change', { change_id: prepared.change_id });
    expect(verified.status).toBe('verified');
    expect(verified.test_plan_results).toEqual([
      expect.objectContaining({
        argv: ['node', '--test', '--test-name-pattern', TEST_NAME, 'test/mul.test.mjs'],
        test_identifier: TEST_NAME,
        available: true,
        executed: true,
        passed: true,
        failure_reason: null,
      }),
    ]);
    expect(verified.test_evidence_ids).toEqual([verified.test_plan_results[0].evidence_id]);

    writeText(w, 'test/mul.test.mjs', `${readText(w, 'test/mul.test.mjs')}\n`);
    const requestsBefore = countRows(join(w.dataDir, 'needle.sqlite3'), 'change_requests');
    const refused = await refusal(s, 'prepare_change', { ...PREPARE_ARGS, artifact_ids: [artifactId] });
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain(`artifact ${artifactId} is stale: test/mul.test.mjs changed since it was certified`);
    expect(countRows(join(w.dataDir, 'needle.sqlite3'), 'change_requests')).toBe(requestsBefore);
  });
});
