// The serialized answer of a remembered hit, made once. A repeat is served
// the same engine result object (resolve/hit-memo.ts), so its tools/call
// result differs from the last one only in the step (ordinal, relation) and
// the elapsed time: the JSON text around those two is kept, and a repeat
// costs two short serializations and a concatenation instead of serializing
// the whole answer (the context twice, ~4 KB) — measured on the hit path as
// 25–80 µs of a 0.2–0.5 ms server turn.
import { RawJson } from './jsonrpc.js';

export interface AnswerStep {
  readonly ordinal: number;
  readonly relation: string;
}

export interface AnswerTemplate {
  render(step: AnswerStep, elapsedMs: number): RawJson;
}

// Placeholders no answer contains: JSON.stringify escapes the control
// characters, and a text that happens to hold the same escaped sequence makes
// the placeholder appear twice, in which case no template is made.
const STEP_MARK = '\u0001needle-answer-step\u0001';
const ELAPSED_MARK = '\u0001needle-answer-elapsed\u0001';

/** Where `part` is in `text`: its index when it occurs once, null when absent, -1 when more than once. */
function onlyAt(text: string, part: string): number | null {
  const at = text.indexOf(part);
  if (at === -1) return null;
  return text.indexOf(part, at + 1) === -1 ? at : -1;
}

/**
 * The template of the result `build` makes, given placeholders for the step
 * and the elapsed time. The step may be absent (an older protocol carries no
 * structured content); null when the elapsed time is, or when either appears
 * more than once or out of order (the caller then serializes each answer
 * whole).
 */
export function answerTemplate(build: (step: unknown, elapsedMs: unknown) => object): AnswerTemplate | null {
  const text = JSON.stringify(build(STEP_MARK, ELAPSED_MARK));
  const stepJson = JSON.stringify(STEP_MARK);
  const elapsedJson = JSON.stringify(ELAPSED_MARK);
  const stepAt = onlyAt(text, stepJson);
  const elapsedAt = onlyAt(text, elapsedJson);
  if (stepAt === -1 || elapsedAt === null || elapsedAt === -1 || (stepAt !== null && stepAt > elapsedAt)) return null;
  const tail = text.slice(elapsedAt + elapsedJson.length);
  if (stepAt === null) {
    const head = text.slice(0, elapsedAt);
    return { render: (_step, elapsedMs) => new RawJson(`${head}${JSON.stringify(elapsedMs)}${tail}`) };
  }
  const head = text.slice(0, stepAt);
  const middle = text.slice(stepAt + stepJson.length, elapsedAt);
  return {
    render: (step, elapsedMs) =>
      new RawJson(`${head}${JSON.stringify({ ordinal: step.ordinal, relation: step.relation })}${middle}${JSON.stringify(elapsedMs)}${tail}`),
  };
}
