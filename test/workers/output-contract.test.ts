/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
import { describe, it, expect } from 'vitest';
import { Ajv } from 'ajv';
import { outputContract, parseOutput, strictJsonSchema } from '../../src/workers/codex/output-contract.js';
import { IMPLEMENTATION } from './fixtures.js';

type Json = Record<string, any>;
function objects(s: Json, out: Json[] = []): Json[] {
  if (s.type === 'object') out.push(s);
  for (const v of Object.values(s)) {
    if (Array.isArray(v)) v.forEach((x) => x && typeof x === 'object' && objects(x, out));
    else if (v && typeof v === 'object') objects(v, out);
  }
  return out;
}

describe('Codex output contract', () => {
  it('covers only the missing predicates and is acceptable to strict structured outputs', () => {
    const c = outputContract(['runtime_flow', 'implementation_location']);
    expect(Object.keys(c.json.properties as object)).toEqual(['implementation_location', 'runtime_flow']);
    for (const o of objects(c.json)) {
      expect(o.additionalProperties).toBe(false);
      expect([...(o.required ?? [])].sort()).toEqual(Object.keys(o.properties).sort());
    }
    const text = JSON.stringify(c.json);
    for (const k of ['minLength', 'maxLength', 'uniqueItems', 'oneOf']) expect(text).not.toContain(`"${k}"`);
    // Valid JSON Schema that accepts exactly what the parser accepts for these samples.
    const validate = new Ajv({ strict: false }).compile(c.json);
    const good = { implementation_location: IMPLEMENTATION, runtime_flow: null };
    expect(validate(good)).toBe(true);
    expect(parseOutput(c, JSON.stringify(good))).toEqual({ ok: true, proposals: [{ predicate: 'implementation_location', payload: IMPLEMENTATION }] });
    expect(validate({ implementation_location: IMPLEMENTATION })).toBe(false);
  });

  it('explains why output is rejected in one line', () => {
    const c = outputContract(['implementation_location']);
    expect(parseOutput(c, null)).toEqual({ ok: false, error: 'the final message was empty' });
    expect(parseOutput(c, 'sure! here it is')).toEqual({ ok: false, error: 'the final message is not JSON' });
    expect(parseOutput(c, '{"implementation_location":null,"extra":1}')).toEqual({ ok: false, error: '$.extra: unknown field' });
    const fenced = '```json\n' + JSON.stringify({ implementation_location: IMPLEMENTATION }) + '\n```';
    expect(parseOutput(c, fenced).ok).toBe(true);
  });

  it('refuses schemas strict mode would reject', () => {
    expect(() => strictJsonSchema({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false })).toThrow(/every property required/);
  });
});
