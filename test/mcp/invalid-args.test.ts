// Every -32602 case of SPEC §4 against the built server: the error names the
// offending field and nothing is persisted (the SQLite file is opened after
// each call and must hold no need step or event).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataDir } from '../../src/store/datadir.js';
import { setRouteEnabled } from '../../src/store/settings.js';
import { cleanupAll, countRows, LOCATE_ARGS, makeRepo, ServerProcess, tempDir } from './fixtures.js';

let server: ServerProcess;
let dbFile: string;
let nextId = 0;

beforeAll(async () => {
  const dataDir = tempDir('needle-data-');
  const { db } = openDataDir(dataDir);
  setRouteEnabled(db, 'tests.relevant', false);
  db.close();
  dbFile = join(dataDir, 'needle.sqlite3');
  server = new ServerProcess({ repo: makeRepo(), dataDir, args: ['--cache-only'] });
  await server.initialize();
});
afterAll(async () => {
  await server.close();
  cleanupAll();
});

const digest = `b3:${'a'.repeat(64)}`;
const impl = { kind: 'implementation_location' };
const tests = { kind: 'focused_tests' };
const trace = { ...LOCATE_ARGS, route: 'trace.state-flow' };

async function expectInvalid(params: object, field: RegExp): Promise<void> {
  const id = `bad-${nextId++}`;
  const reply = await server.request({ jsonrpc: '2.0', id, method: 'tools/call', params });
  expect(reply.error?.code, JSON.stringify(reply)).toBe(-32602);
  expect(reply.error.message).toMatch(field);
  expect(countRows(dbFile, 'need_steps')).toBe(0);
  expect(countRows(dbFile, 'need_events')).toBe(0);
}

const need = (args: unknown) => ({ name: 'need_context', arguments: args });

describe('need_context arguments refused with -32602 before any row is written', () => {
  const cases: [string, unknown, RegExp][] = [
    ['unknown top-level field', { ...LOCATE_ARGS, need: '@@need' }, /arguments\.need: unknown field/],
    ['unknown subject field', { ...LOCATE_ARGS, subject: { ...LOCATE_ARGS.subject, scope: 'x' } }, /arguments\.subject\.scope: unknown field/],
    ['unknown capability field', { ...LOCATE_ARGS, required: [{ ...impl, depth: 2 }] }, /arguments\.required\[0\]\.depth: unknown field/],
    ['unknown world field', { ...LOCATE_ARGS, world: { source: 'current', platform: 'current', features: 'default', os: 'linux' } }, /arguments\.world\.os: unknown field/],
    ['duplicate kind within required', { ...LOCATE_ARGS, required: [impl, impl] }, /arguments\.required\[1\]\.kind: .*duplicates arguments\.required\[0\]\.kind/],
    ['duplicate kind across required and preferred', { ...LOCATE_ARGS, required: [impl], preferred: [impl] }, /arguments\.preferred\[0\]\.kind: .*duplicates arguments\.required\[0\]\.kind/],
    ['disabled route', { ...LOCATE_ARGS, route: 'tests.relevant' }, /arguments\.route: must be one of locate\.implementation, trace\.state-flow/],
    ['unknown route', { ...LOCATE_ARGS, route: 'explain.everything' }, /arguments\.route: must be one of/],
    ['malformed configuration digest', { ...LOCATE_ARGS, world: { source: 'current', platform: 'current', features: 'default', configuration_digest: 'b3:XYZ' } }, /arguments\.world\.configuration_digest: must match/],
    ['digest with uppercase hex', { ...LOCATE_ARGS, world: { source: 'current', platform: 'current', features: 'default', toolchain_digest: digest.toUpperCase() } }, /arguments\.world\.toolchain_digest/],
    ['empty subject name', { ...LOCATE_ARGS, subject: { kind: 'symbol', name: '' } }, /arguments\.subject\.name: must not be empty/],
    ['blank subject name', { ...LOCATE_ARGS, subject: { kind: 'symbol', name: ' \t ' } }, /arguments\.subject\.name: must not be blank/],
    ['subject name over 512 bytes', { ...LOCATE_ARGS, subject: { kind: 'symbol', name: 'é'.repeat(257) } }, /arguments\.subject\.name: must be at most 512 bytes/],
    ['unknown subject kind', { ...LOCATE_ARGS, subject: { kind: 'function', name: 'x' } }, /arguments\.subject\.kind: must be one of/],
    ['empty task', { ...LOCATE_ARGS, task: '' }, /arguments\.task: must not be empty/],
    ['blank task', { ...LOCATE_ARGS, task: '\n  \n' }, /arguments\.task: must not be blank/],
    ['missing task', { route: LOCATE_ARGS.route, subject: LOCATE_ARGS.subject }, /arguments\.task: is required/],
    ['task over 8192 bytes', { ...LOCATE_ARGS, task: 'x'.repeat(8_193) }, /arguments\.task: must be at most 8192 bytes/],
    ['arguments over 16 384 bytes', { ...LOCATE_ARGS, task: 'x'.repeat(16_400) }, /arguments: exceed 16384 bytes/],
    ['more than 3 required', { ...trace, required: [impl, tests, { kind: 'runtime_flow' }, impl] }, /arguments\.required: must have at most 3/],
    ['more than 3 preferred', { ...trace, preferred: [impl, tests, { kind: 'runtime_flow' }, tests] }, /arguments\.preferred: must have at most 3/],
    ['facet outside its enum', { ...LOCATE_ARGS, required: [{ ...impl, polarity: 'negative' }] }, /arguments\.required\[0\]\.polarity: must be one of positive/],
    ['null facet', { ...LOCATE_ARGS, required: [{ ...impl, selection: null }] }, /arguments\.required\[0\]\.selection: must be one of primary, got null/],
    ['facet of another predicate', { ...LOCATE_ARGS, required: [{ ...impl, scenario: 'default' }] }, /arguments\.required\[0\]\.scenario: unknown field/],
    ['unknown capability kind', { ...LOCATE_ARGS, required: [{ kind: 'call_graph' }] }, /arguments\.required\[0\]\.kind: must be one of/],
    ['predicate the route does not allow', { ...LOCATE_ARGS, required: [{ kind: 'runtime_flow' }] }, /required\[0\]\.kind: runtime_flow is not allowed by route locate\.implementation/],
    ['blank world source', { ...LOCATE_ARGS, world: { source: ' ', platform: 'current', features: 'default' } }, /arguments\.world\.source: must not be blank/],
    ['incomplete world', { ...LOCATE_ARGS, world: { source: 'current' } }, /arguments\.world\.platform: is required/],
    ['arguments not an object', [LOCATE_ARGS], /arguments: must be an object/],
    ['NUL in a cli_option name', { ...LOCATE_ARGS, subject: { kind: 'cli_option', name: '--dry\u0000run' } }, /arguments\.subject\.name: must not contain control characters/],
    ['NUL in a configuration_key name', { ...LOCATE_ARGS, subject: { kind: 'configuration_key', name: 'dry_run\u0000' } }, /arguments\.subject\.name: must not contain control characters/],
    ['newline in a symbol name', { ...LOCATE_ARGS, subject: { kind: 'symbol', name: 'parse\nConfig' } }, /arguments\.subject\.name: must not contain control characters/],
    ['escape in a behavior name', { ...LOCATE_ARGS, subject: { kind: 'behavior', name: 'skips \u001b[31m upload' } }, /arguments\.subject\.name: must not contain control characters/],
    ['C1 control in a cli_option name', { ...LOCATE_ARGS, subject: { kind: 'cli_option', name: '--dry\u0085run' } }, /arguments\.subject\.name: must not contain control characters/],
  ];
  for (const [name, args, field] of cases) it(name, () => expectInvalid(need(args), field));
});

describe('deeply nested arguments are -32602 without recursion', () => {
  // 4 113 levels in about 8 KB: the size check used to overflow the stack (-32603).
  const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
  it('4 113 levels of arrays in arguments', async () => {
    const line = `{"jsonrpc":"2.0","id":"deep-1","method":"tools/call","params":{"name":"need_context","arguments":{"route":"locate.implementation","task":"t","subject":${deep(4113)}}}}\n`;
    expect(Buffer.byteLength(line)).toBeLessThan(65_536);
    server.write(line);
    const reply = await server.out.reply('deep-1');
    expect(reply.error?.code, JSON.stringify(reply)).toBe(-32602);
    expect(reply.error.message).toMatch(/arguments: nested deeper than 32 levels/);
    expect(countRows(dbFile, 'need_steps')).toBe(0);
  });
  it('30 000 levels of objects in _meta', async () => {
    const meta = '{"a":'.repeat(6000) + '1' + '}'.repeat(6000);
    server.write(`{"jsonrpc":"2.0","id":"deep-2","method":"tools/call","params":{"name":"need_context","arguments":{},"_meta":${meta}}}\n`);
    const reply = await server.out.reply('deep-2');
    expect(reply.error?.code, JSON.stringify(reply)).toBe(-32602);
    expect(reply.error.message).toMatch(/_meta: nested deeper than 32 levels/);
    expect(countRows(dbFile, 'need_events')).toBe(0);
  });
  it('the server still answers afterwards', async () => {
    const reply = await server.request({ jsonrpc: '2.0', id: 'ping-after-deep', method: 'ping' });
    expect(reply.result).toEqual({});
  });
});

describe('tools/call envelope refused with -32602', () => {
  it('unknown tools/call parameter', () => expectInvalid({ ...need(LOCATE_ARGS), trace: true }, /unknown tools\/call parameter `trace`/));
  it('_meta that is not an object', () => expectInvalid({ ...need(LOCATE_ARGS), _meta: 1 }, /_meta must be an object/));
  it('unknown tool', () => expectInvalid({ name: 'need_everything', arguments: {} }, /unknown tool "need_everything"/));
  it('missing arguments', () => expectInvalid({ name: 'need_context' }, /missing arguments/));
  it('prepare_change in a cache-only session', () =>
    expectInvalid({ name: 'prepare_change', arguments: { task: 't', acceptance_criteria: ['a'], allowed_paths: [{ path: 'src', scope: 'subtree' }] } }, /prepare_change is disabled in this session/));
  it('verify_change in a cache-only session', () =>
    expectInvalid({ name: 'verify_change', arguments: { change_id: `chg_${'0'.repeat(24)}` } }, /verify_change is disabled in this session/));
});

describe('a valid call after all of them', () => {
  it('is accepted with _meta.progressToken and is the first stored step', async () => {
    const reply = await server.request({ jsonrpc: '2.0', id: 'ok', method: 'tools/call', params: { ...need(LOCATE_ARGS), _meta: { progressToken: 1 } } });
    expect(reply.result.isError).toBe(false);
    expect(reply.result.structuredContent.step.ordinal).toBe(1);
    // The step's rows are bookkeeping, committed right after the reply (store/bookkeeping.ts): wait for them, bounded.
    for (let i = 0; i < 400 && countRows(dbFile, 'need_steps') === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(countRows(dbFile, 'need_steps')).toBe(1);
  });
});
