// The JSON a client hands a hook on stdin (Claude Code and Codex share the
// shape), parsed once into typed values. Clients add fields over time, so the
// objects are open: unknown fields are dropped, known ones are checked.
import { HOOKS } from '../core/limits.js';
import { boolean, enumOf, nullable, openObject, optional, SchemaError, string, type Infer } from '../core/schema.js';

export const CLIENTS = ['claude-code', 'codex'] as const;
export type Client = (typeof CLIENTS)[number];

export const HOOK_EVENTS = ['session-start', 'user-prompt-submit', 'stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The client's own name of each event (`hook_event_name`, and the key in its settings). */
export const CLIENT_EVENT_NAMES: Record<HookEvent, string> = {
  'session-start': 'SessionStart',
  'user-prompt-submit': 'UserPromptSubmit',
  stop: 'Stop',
};

const common = {
  session_id: string({ minBytes: 1, maxBytes: 256, nonBlank: true }),
  cwd: string({ minBytes: 1, maxBytes: 4096 }),
  hook_event_name: string({ maxBytes: 64 }),
  transcript_path: optional(nullable(string({ maxBytes: 4096 }))),
};

export const sessionStartPayload = openObject({ ...common, source: optional(nullable(string({ maxBytes: 64 }))) });
export const userPromptPayload = openObject({ ...common, prompt: optional(nullable(string({ maxBytes: HOOKS.maxPayloadBytes }))) });
export const stopPayload = openObject({
  ...common,
  stop_hook_active: optional(nullable(boolean())),
  last_assistant_message: optional(nullable(string({ maxBytes: HOOKS.maxPayloadBytes }))),
  turn_id: optional(nullable(string({ maxBytes: 256 }))),
});
export type StopPayload = Infer<typeof stopPayload>;
export type SessionStartPayload = Infer<typeof sessionStartPayload>;

export const clientSchema = enumOf(CLIENTS);

export class PayloadError extends Error {}

/** Parses the stdin text of one hook call; any problem is a PayloadError naming the field. */
export function parsePayload<T>(text: string, schema: { parse(v: unknown, path?: string): T }): T {
  if (Buffer.byteLength(text) > HOOKS.maxPayloadBytes) throw new PayloadError(`hook input exceeds ${HOOKS.maxPayloadBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PayloadError('hook input is not JSON');
  }
  try {
    return schema.parse(value, 'input');
  } catch (e) {
    if (e instanceof SchemaError) throw new PayloadError(`hook input ${e.message}`);
    throw e;
  }
}
