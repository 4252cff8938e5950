// The closed output contract of one Codex turn: only the predicates still
// missing, each either the payload of its evidence contract or null ("could
// not establish"). The parser and the published schema come from the same
// definitions as every other worker's output (src/core/contracts.ts).
import { PAYLOAD_SCHEMAS, type Proposal } from '../../core/contracts.js';
import { nullable, object, type JsonSchema, type Schema } from '../../core/schema.js';
import type { Predicate } from '../../core/semantic.js';

// Keywords OpenAI strict structured outputs refuse. The bounds they express
// are still enforced by the parser, which is the one that decides.
const UNSUPPORTED = new Set(['minLength', 'maxLength', 'uniqueItems']);

/** Rewrites a schema for strict structured outputs; refuses objects that would not be strict. */
export function strictJsonSchema(json: JsonSchema, path = '$'): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(json)) {
    if (UNSUPPORTED.has(k)) continue;
    if (k === 'properties') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([p, s]) => [p, strictJsonSchema(s, `${path}.${p}`)]));
    } else if (k === 'items') out[k] = strictJsonSchema(v as JsonSchema, `${path}[]`);
    else if (k === 'anyOf' || k === 'oneOf') out.anyOf = (v as JsonSchema[]).map((s, i) => strictJsonSchema(s, `${path}|${i}`));
    else out[k] = v;
  }
  if (out.type === 'object') {
    const props = Object.keys((out.properties as object | undefined) ?? {});
    const required = new Set((out.required as string[] | undefined) ?? []);
    if (out.additionalProperties !== false || props.some((p) => !required.has(p)))
      throw new Error(`${path}: strict output schemas need additionalProperties false and every property required`);
  }
  return out;
}

export interface OutputContract {
  readonly predicates: readonly Predicate[];
  readonly schema: Schema<Record<string, unknown>>;
  /** What turn/start sends as outputSchema. */
  readonly json: JsonSchema;
}

export function outputContract(missing: readonly Predicate[]): OutputContract {
  const predicates = [...new Set(missing)].sort();
  if (predicates.length === 0) throw new Error('outputContract: nothing is missing');
  const schema = object(Object.fromEntries(predicates.map((p) => [p, nullable(PAYLOAD_SCHEMAS[p] as Schema<unknown>)]))) as unknown as Schema<Record<string, unknown>>;
  return { predicates, schema, json: strictJsonSchema(schema.json) };
}

export type ParsedOutput = { ok: true; proposals: Proposal[] } | { ok: false; error: string };

/** Parses the agent's final message; the error is one line fit for a repair prompt. */
export function parseOutput(contract: OutputContract, text: string | null): ParsedOutput {
  if (text === null || text.trim() === '') return { ok: false, error: 'the final message was empty' };
  let value: unknown;
  try {
    value = JSON.parse(stripFence(text));
  } catch {
    return { ok: false, error: 'the final message is not JSON' };
  }
  try {
    const parsed = contract.schema.parse(value, '$');
    const proposals = contract.predicates
      .filter((p) => parsed[p] !== null)
      .map((p) => ({ predicate: p, payload: parsed[p] }) as Proposal);
    return { ok: true, proposals };
  } catch (e) {
    return { ok: false, error: (e as Error).message.replace(/\s+/g, ' ').slice(0, 500) };
  }
}

// Models sometimes wrap JSON in a Markdown fence despite the schema.
function stripFence(text: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n```\s*$/.exec(text);
  return m ? m[1]! : text;
}
