// The serialized answer of a remembered hit (src/mcp/answer-template.ts): a
// repeat rendered from the template is exactly the answer serialized whole,
// with its own step and elapsed time; anything the template cannot stand for
// is serialized whole instead.
import { describe, expect, it } from 'vitest';
import { answerTemplate } from '../../src/mcp/answer-template.js';
import { RawJson, resultResponse, serializeMessage } from '../../src/mcp/jsonrpc.js';
import { toolResult } from '../../src/mcp/result.js';

const CONTEXT = '[NEEDLE_CONTEXT route=locate.implementation]\nprimary: src/a.ts:3 "quoted" \\ back\\slash, tab\t, é, 😀\n[/NEEDLE_CONTEXT]';
const META = { interface_digest: 'b3:i', session_digest: 'b3:s', request_digest: 'b3:r' };

function build(modern: boolean) {
  return (step: unknown, elapsedMs: unknown): object =>
    toolResult(CONTEXT, { status: 'hit', step, satisfied: ['implementation_location'], context: CONTEXT }, modern, { ...META, elapsed_ms: elapsedMs as number });
}

describe('answer templates', () => {
  it('render byte for byte what serializing the whole answer gives, for every step and elapsed time', () => {
    for (const modern of [true, false]) {
      const template = answerTemplate(build(modern));
      expect(template).not.toBeNull();
      for (const [step, elapsed] of [
        [{ ordinal: 2, relation: 'repeat' }, 0.042],
        [{ ordinal: 8, relation: 'refine' }, 12],
        [{ ordinal: 3, relation: 'new' }, 0],
      ] as const) {
        const raw = template!.render(step, elapsed);
        expect(raw.text).toBe(JSON.stringify(build(modern)(step, elapsed)));
        expect(serializeMessage(resultResponse(7, raw))).toBe(JSON.stringify(resultResponse(7, build(modern)(step, elapsed))));
      }
    }
  });

  it('are not made when a placeholder would be ambiguous or missing: the answer is then serialized whole', () => {
    expect(answerTemplate((step, ms) => ({ a: step, b: step, ms }))).toBeNull();
    expect(answerTemplate((step) => ({ a: step }))).toBeNull();
    expect(answerTemplate((step, ms) => ({ ms, a: step }))).toBeNull();
  });

  it('a RawJson is written only by the message serializer: serialized anywhere else it throws instead of sending its fields', () => {
    expect(() => JSON.stringify({ result: new RawJson('{}') })).toThrow(/serializeMessage/);
    expect(serializeMessage(resultResponse('x', new RawJson('{"ok":true}')))).toBe('{"jsonrpc":"2.0","id":"x","result":{"ok":true}}');
    expect(serializeMessage({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'm' } })).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}');
  });
});
