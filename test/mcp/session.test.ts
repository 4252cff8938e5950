// The in-process session with injected engines: ledger ordinals, relations
// and limits, the worker budget, cancellation, runtime failures, progress,
// result mapping and change-tool routing. Real SQLite and a real git repo.
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import type { CompiledNeed } from '../../src/core/need.js';
import type { Engine, EngineResult, ResolveOptions } from '../../src/core/resolution.js';
import type { ChangeTools } from '../../src/mcp/tools/change.js';
import { callNeed, cleanupAll, inProcess, servedAll, initialized, LOCATE_ARGS, queryRows, type InProcess, type Message } from './fixtures.js';

afterAll(cleanupAll);
const ajv = new Ajv({ strict: false });

const TESTS_ARGS = { ...LOCATE_ARGS, route: 'tests.relevant', task: 'Which test covers --dry-run?' };

async function call(p: InProcess, id: string, args: unknown, meta?: object) {
  return (await p.request(callNeed(id, args, meta))).result;
}

function steps(p: InProcess) {
  return queryRows<{ ordinal: number; relation: string; status: string; resolution_kind: string | null }>(
    p.dbFile,
    'SELECT ordinal, relation, status, resolution_kind FROM need_steps ORDER BY ordinal',
  );
}

/** An engine that serves what it is told, recording the options it received. */
class ScriptedEngine implements Engine {
  readonly seen: ResolveOptions[] = [];
  constructor(private readonly answer: (need: CompiledNeed, opts: ResolveOptions) => Promise<EngineResult> | EngineResult) {}
  async resolve(need: CompiledNeed, opts: ResolveOptions): Promise<EngineResult> {
    this.seen.push(opts);
    return this.answer(need, opts);
  }
}


describe('ledger', () => {
  it('locate, tests, locate, tests: ordinals 1-2, a repeat, then a normal limit bypass; 4 steps stored', async () => {
    const p = inProcess();
    await initialized(p);
    const r1 = await call(p, 'c1', LOCATE_ARGS);
    const r2 = await call(p, 'c2', TESTS_ARGS);
    const r3 = await call(p, 'c3', { ...LOCATE_ARGS, task: 'Reworded: where is --dry-run declared?' });
    const r4 = await call(p, 'c4', TESTS_ARGS);
    expect([r1, r2, r3, r4].map((r) => r.structuredContent.step)).toEqual([
      { ordinal: 1, relation: 'independent' },
      { ordinal: 2, relation: 'independent' },
      { ordinal: 3, relation: 'repeat' },
      { ordinal: 4, relation: 'repeat' },
    ]);
    expect(r3.structuredContent.need_id).toBe(r1.structuredContent.need_id);
    expect(r4.isError).toBe(false);
    expect(r4.structuredContent.status).toBe('bypass');
    expect(r4.structuredContent.resolution).toEqual({ kind: 'bypass', reason: 'multi-need limit reached; continue natively' });
    expect(r4.content[0].text).toBe('Needle bypassed this request: multi-need limit reached; continue natively.');
    expect(r4.structuredContent.result_digest).toBe(blake3(r4.content[0].text));
    expect(steps(p).map((s) => s.status)).toEqual(['bypass', 'bypass', 'bypass', 'bypass']);
    const events = queryRows<{ kind: string }>(p.dbFile, 'SELECT kind FROM need_events WHERE step_id = (SELECT id FROM need_steps WHERE ordinal = 4) ORDER BY id');
    expect(events.map((e) => e.kind)).toEqual(['requested', 'resolving', 'native_fallback', 'delivered']);
    p.close();
  });

  it('classifies residual, extension and incompatible steps', async () => {
    const p = inProcess({ profile: { explorer: [{ adapter: 'static' }], implementer: null, verifier: null, test_execution: 'untrusted', require_sandbox: false, limits: { max_needs: 8 } } });
    await initialized(p);
    const impl = { kind: 'implementation_location' };
    const tests = { kind: 'focused_tests' };
    await call(p, 'a', { ...LOCATE_ARGS, required: [impl, tests] });
    expect((await call(p, 'b', TESTS_ARGS)).structuredContent.step.relation).toBe('residual');
    const other = { ...LOCATE_ARGS, subject: { kind: 'symbol', name: 'Other' } };
    await call(p, 'c', { ...other, required: [impl] });
    expect((await call(p, 'd', { ...other, required: [impl, tests] })).structuredContent.step.relation).toBe('extension');
    const world = { source: 'current', platform: 'linux-x64', features: 'default' };
    expect((await call(p, 'e', { ...LOCATE_ARGS, subject: { kind: 'symbol', name: 'Third' }, world })).structuredContent.step.relation).toBe('incompatible');
    p.close();
  });

  it('takes the need limit from the role profile', async () => {
    const p = inProcess({ profile: { explorer: [{ adapter: 'static' }], implementer: null, verifier: null, test_execution: 'untrusted', require_sandbox: false, limits: { max_needs: 1 } } });
    await initialized(p);
    expect((await call(p, 'a', LOCATE_ARGS)).structuredContent.resolution.reason).not.toMatch(/limit/);
    expect((await call(p, 'b', TESTS_ARGS)).structuredContent.resolution.reason).toMatch(/multi-need limit reached/);
    p.close();
  });

  it('passes the remaining model-worker budget to the engine', async () => {
    const engine = new ScriptedEngine((need) => servedAll(need, { workerSpawned: true, cacheHit: false, modelWorkersStarted: 2 }));
    const p = inProcess({ engine, cacheOnly: false });
    await initialized(p);
    const first = await call(p, 'a', LOCATE_ARGS);
    await call(p, 'b', TESTS_ARGS);
    expect(engine.seen.map((o) => o.modelWorkersLeft)).toEqual([3, 1]);
    expect(engine.seen.every((o) => o.cacheOnly === false)).toBe(true);
    expect(first.structuredContent.status).toBe('generated');
    p.close();
  });
});

describe('cancellation and failures', () => {
  it('a cancelled active call is stored as cancelled and the next call takes the next ordinal', async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const engine = new ScriptedEngine(
      (_need, opts) =>
        new Promise((_, reject) => {
          opts.signal.addEventListener('abort', () => reject(new Error('worker turn interrupted')));
          started();
        }),
    );
    const p = inProcess({ engine });
    await initialized(p);
    p.line(callNeed('slow', LOCATE_ARGS));
    await running;
    p.line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
    const reply = (await p.out.reply('slow')).result;
    expect(reply).toEqual({ content: [{ type: 'text', text: 'request cancelled; nothing was delivered for this need' }], isError: true });
    p.settle();
    expect(steps(p)).toEqual([{ ordinal: 1, relation: 'independent', status: 'cancelled', resolution_kind: null }]);
    p.close();
  });

  it('a runtime failure is a one-line tool error without a stack, and the step is stored as failed', async () => {
    let calls = 0;
    const engine = new ScriptedEngine((need) => {
      if (calls++ > 0) return servedAll(need);
      throw new Error('worker crashed: exit 137\n    at secret (/home/me/.codex/auth.json:1:1)');
    });
    const p = inProcess({ engine });
    await initialized(p);
    const reply = await call(p, 'boom', LOCATE_ARGS);
    expect(reply.isError).toBe(true);
    expect(reply.content).toEqual([{ type: 'text', text: 'need_context failed: worker crashed: exit 137' }]);
    expect(reply.structuredContent).toBeUndefined();
    expect(steps(p)[0]!.status).toBe('failed');
    expect((await call(p, 'after', TESTS_ARGS)).structuredContent.step.ordinal).toBe(2);
    p.close();
  });

  it('an engine result that violates the published output schema is a runtime failure, not a malformed answer', async () => {
    const tooMany = Array.from({ length: 9 }, (_, i) => blake3(`a${i}`));
    const engine = new ScriptedEngine((need) => servedAll(need, { resolution: { kind: 'exact_hit', artifact_ids: tooMany, certificate_id: null, plan_id: null } }));
    const p = inProcess({ engine });
    await initialized(p);
    const reply = await call(p, 'bad', LOCATE_ARGS);
    expect(reply.isError).toBe(true);
    expect(reply.content[0].text).toMatch(/result\.resolution\.artifact_ids: must have at most 8/);
    p.close();
  });
});

describe('results', () => {
  it('maps a certified hit: status hit, text equals context, schema-valid', async () => {
    const p = inProcess({ engine: new ScriptedEngine((need) => servedAll(need)) });
    await initialized(p);
    const list = await p.request({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    const reply = await call(p, 'hit', { ...LOCATE_ARGS, route: 'trace.state-flow' });
    expect(ajv.validate(list.result.tools[0].outputSchema, reply.structuredContent)).toBe(true);
    expect(reply.structuredContent).toMatchObject({
      status: 'hit',
      satisfied: ['implementation_location', 'runtime_flow'],
      missing: [],
      reuse_unit: 'artifact',
      cache_hit: true,
      worker_spawned: false,
    });
    expect(reply.content[0].text).toBe(reply.structuredContent.context);
    expect(steps(p)[0]).toMatchObject({ status: 'hit', resolution_kind: 'composite_hit' });
    p.close();
  });

  it('never shows context for an unsafe resolution', async () => {
    const engine = new ScriptedEngine((need) =>
      servedAll(need, { resolution: { kind: 'ambiguous', reason: 'candidates: a::run, b::run; ask again with a qualified name' } }),
    );
    const p = inProcess({ engine });
    await initialized(p);
    const reply = await call(p, 'amb', LOCATE_ARGS);
    expect(reply.structuredContent).toMatchObject({ status: 'bypass', context: '', satisfied: [], missing: ['implementation_location'] });
    expect(reply.content[0].text).toBe('');
    p.close();
  });

  it('forwards engine progress only when the client sent a progressToken, rate-bounded', async () => {
    const engine = new ScriptedEngine((need, opts) => {
      for (let i = 1; i <= 5; i++) opts.onProgress?.({ progress: i, total: 5, message: `step ${i}` });
      return servedAll(need);
    });
    const p = inProcess({ engine });
    await initialized(p);
    await call(p, 'quiet', LOCATE_ARGS);
    expect(p.out.messages.some((m) => m.method === 'notifications/progress')).toBe(false);
    await call(p, 'loud', TESTS_ARGS, { progressToken: 'tok-1' });
    const progress = p.out.messages.filter((m) => m.method === 'notifications/progress');
    expect(progress).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 1, total: 5, message: 'step 1' } }]);
    const at = (pred: (m: Message) => boolean) => p.out.messages.findIndex(pred);
    expect(at((m) => m.method === 'notifications/progress')).toBeLessThan(at((m) => m.id === 'loud'));
    p.close();
  });
});

describe('change tools', () => {
  const withChanges = {
    explorer: [{ adapter: 'static' as const }],
    implementer: { adapter: 'command' as const, argv: ['my-agent'], prompt: 'stdin' as const },
    verifier: { adapter: 'command' as const, argv: ['my-verifier'], prompt: 'stdin' as const },
    test_execution: 'untrusted' as const,
    require_sandbox: false,
  };
  const prepareArgs = {
    task: 'Add a --verbose flag',
    acceptance_criteria: ['--verbose prints more'],
    allowed_paths: [{ path: 'src\\cli//./options.ts', scope: 'exact' }],
  };

  function handlers(received: unknown[]): ChangeTools {
    return {
      async prepare(args) {
        received.push(args);
        return {
          status: 'prepared',
          change_id: 'chg_0123456789abcdef01234567',
          patch_id: blake3('patch'),
          summary: 'adds --verbose',
          changed_files: [{ path: 'src/cli/options.ts', operation: 'update' }],
          acceptance_coverage: [{ criterion: '--verbose prints more', status: 'addressed', evidence: 'options.ts' }],
          residual_risks: [],
          verification_status: 'not_requested',
        };
      },
      async verify() {
        throw new Error('not used');
      },
    };
  }

  it('lists prepare_change and verify_change with their annotations when the profile and handlers allow it', async () => {
    const p = inProcess({ profile: withChanges, cacheOnly: false, changeTools: handlers([]) });
    await initialized(p);
    const tools = (await p.request({ jsonrpc: '2.0', id: 'l', method: 'tools/list' })).result.tools;
    expect(tools.map((t: Message) => [t.name, t.annotations.readOnlyHint, t.annotations.destructiveHint])).toEqual([
      ['need_context', true, false],
      ['prepare_change', false, false],
      ['verify_change', true, false],
    ]);
    p.close();
  });

  it('hides them under cache-only even when the profile has both roles', async () => {
    const p = inProcess({ profile: withChanges, cacheOnly: true, changeTools: handlers([]) });
    await initialized(p);
    const tools = (await p.request({ jsonrpc: '2.0', id: 'l', method: 'tools/list' })).result.tools;
    expect(tools.map((t: Message) => t.name)).toEqual(['need_context']);
    p.close();
  });

  it('refuses unsafe and protected paths with -32602 before the handler runs, and normalizes the rest', async () => {
    const received: unknown[] = [];
    const p = inProcess({ profile: withChanges, cacheOnly: false, changeTools: handlers(received) });
    await initialized(p);
    const prepare = (id: string, args: unknown) => p.request({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'prepare_change', arguments: args } });
    for (const [id, path, why] of [
      ['up', '../outside', /allowed_paths\[0\]\.path: must be a relative path/],
      ['abs', '/etc/passwd', /allowed_paths\[0\]\.path/],
      ['git', 'src/.git/config', /protected path is not writable/],
      ['nm', 'Node_Modules/x.js', /protected path is not writable/],
    ] as const) {
      const reply = await prepare(id, { ...prepareArgs, allowed_paths: [{ path, scope: 'exact' }] });
      expect(reply.error.code).toBe(-32602);
      expect(reply.error.message).toMatch(why);
    }
    const dup = await prepare('dup', { ...prepareArgs, allowed_paths: [{ path: 'a/b', scope: 'exact' }, { path: 'a//b/', scope: 'subtree' }] });
    expect(dup.error.message).toMatch(/allowed_paths\[1\]\.path: duplicates allowed_paths\[0\]/);
    const badId = await p.request({ jsonrpc: '2.0', id: 'v', method: 'tools/call', params: { name: 'verify_change', arguments: { change_id: 'chg_XYZ' } } });
    expect(badId.error.message).toMatch(/arguments\.change_id: must match/);
    expect(received).toEqual([]);
    const ok = await prepare('ok', prepareArgs);
    expect(ok.result.isError).toBe(false);
    expect(ok.result.structuredContent.change_id).toBe('chg_0123456789abcdef01234567');
    expect(received).toEqual([{ ...prepareArgs, allowed_paths: [{ path: 'src/cli/options.ts', scope: 'exact' }] }]);
    p.close();
  });
});
