// Property tests: random and mutated need_context arguments never crash the
// server, are either refused with -32602 (and write nothing) or answered with
// a schema-valid result (and write exactly one step), and the validator never
// accepts what the published input schema rejects.
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callNeed, cleanupAll, countRows, inProcess, initialized, LOCATE_ARGS, makeRepo, ServerProcess, tempDir, type InProcess, type Message } from './fixtures.js';

afterAll(cleanupAll);
const ajv = new Ajv({ strict: false });

const facetValue = fc.oneof(
  fc.constantFrom('positive', 'primary', 'exact_location', 'default', 'contract_complete', 'stepwise', 'representative', 'open_world', 'negative'),
  fc.constant(null),
  fc.anything(),
);
const capability = fc.record(
  {
    kind: fc.oneof(fc.constantFrom('implementation_location', 'runtime_flow', 'focused_tests'), fc.string()),
    polarity: facetValue,
    selection: facetValue,
    granularity: facetValue,
    scenario: facetValue,
    completeness: facetValue,
  },
  { requiredKeys: ['kind'] },
);
const text = fc.oneof(fc.string(), fc.constantFrom('', '   ', 'Find --dry-run', 'see src/a.rs and a::b'), fc.string({ unit: 'binary', maxLength: 600 }));
const world = fc.record(
  {
    source: text,
    platform: text,
    features: text,
    configuration_digest: fc.oneof(fc.constant(`b3:${'0'.repeat(64)}`), fc.string()),
    toolchain_digest: fc.oneof(fc.constant(`b3:${'f'.repeat(64)}`), fc.string()),
  },
  { requiredKeys: [] },
);
const structured = fc.record(
  {
    route: fc.oneof(fc.constantFrom('locate.implementation', 'trace.state-flow', 'tests.relevant'), fc.string()),
    subject: fc.oneof(
      fc.record({ kind: fc.oneof(fc.constantFrom('symbol', 'cli_option', 'file', 'behavior'), fc.string()), name: text }),
      fc.anything(),
    ),
    required: fc.oneof(fc.array(capability, { maxLength: 4 }), fc.anything()),
    preferred: fc.oneof(fc.array(capability, { maxLength: 4 }), fc.anything()),
    world: fc.oneof(world, fc.anything()),
    task: text,
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
/** The valid example with one field replaced by anything, or one extra key. */
const mutated = fc.oneof(
  fc.tuple(fc.constantFrom('route', 'subject', 'task', 'required', 'preferred', 'world'), fc.anything()).map(([k, v]) => ({ ...LOCATE_ARGS, [k]: v })),
  fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.anything()).map(([k, v]) => ({ ...LOCATE_ARGS, [k]: v })),
);
const argumentsArb = fc.oneof(structured, mutated, fc.anything());

/** What the server actually receives: the JSON text of the value (undefined members vanish). */
const onTheWire = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

function checkReply(reply: Message, outputSchema: object, inputSchema: object, sent: unknown): boolean {
  const args = onTheWire(sent);
  if (reply.error) {
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).not.toMatch(/\n/);
    return false;
  }
  expect(reply.result.isError).toBe(false);
  expect(ajv.validate(inputSchema, args)).toBe(true);
  expect(ajv.validate(outputSchema, reply.result.structuredContent)).toBe(true);
  expect(reply.result.content[0].text).toBe(reply.result.structuredContent.context);
  return true;
}

describe('need_context arguments under fuzzing', () => {
  let p: InProcess;
  let schemas: { input: object; output: object };
  beforeAll(async () => {
    p = inProcess();
    await initialized(p);
    const tool = (await p.request({ jsonrpc: '2.0', id: 'list', method: 'tools/list' })).result.tools[0];
    schemas = { input: tool.inputSchema, output: tool.outputSchema };
  });
  afterAll(() => p.close());

  it('in process: -32602 and no row, or a valid result and exactly one row', async () => {
    let n = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(argumentsArb, async (args) => {
        const before = countRows(p.dbFile, 'need_steps');
        const reply = await p.request(callNeed(`f${n++}`, args));
        const ok = checkReply(reply, schemas.output, schemas.input, args);
        if (ok) accepted++;
        expect(countRows(p.dbFile, 'need_steps')).toBe(before + (ok ? 1 : 0));
        if (!ajv.validate(schemas.input, onTheWire(args))) expect(ok).toBe(false);
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('over stdio: the server survives a random batch and stores exactly the accepted calls', async () => {
    const dataDir = tempDir('needle-data-');
    const s = new ServerProcess({ repo: makeRepo(), dataDir, args: ['--cache-only'] });
    await s.initialize();
    const samples = fc.sample(argumentsArb, { numRuns: 60, seed: 20_240_101 });
    let accepted = 0;
    for (const [i, args] of samples.entries()) {
      const reply = await s.request(callNeed(`s${i}`, args));
      if (checkReply(reply, schemas.output, schemas.input, args)) accepted++;
    }
    expect((await s.request({ jsonrpc: '2.0', id: 'alive', method: 'ping' })).result).toEqual({});
    expect(await s.close()).toBe(0);
    expect(countRows(join(dataDir, 'needle.sqlite3'), 'need_steps')).toBe(accepted);
  });
});
