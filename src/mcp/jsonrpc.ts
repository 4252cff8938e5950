// JSON-RPC 2.0 envelope handling: one parse of each line into a typed message
// or the exact error the transport must answer with (SPEC §4).

export const ErrorCode = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  notInitialized: -32002,
  queueFull: -32000,
  cancelled: -32800,
} as const;

export type RequestId = string | number;

export type Incoming =
  | { readonly kind: 'request'; readonly id: RequestId; readonly key: string; readonly method: string; readonly params: unknown }
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown }
  | { readonly kind: 'response' }
  | { readonly kind: 'invalid'; readonly id: RequestId | null; readonly code: number; readonly message: string };

export interface ErrorResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId | null;
  readonly error: { readonly code: number; readonly message: string };
}

export function errorResponse(id: RequestId | null, code: number, message: string): ErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/**
 * A result already serialized as JSON text (mcp/answer-template.ts). Only
 * serializeMessage writes it; anywhere else, serializing it is a bug and
 * throws rather than send its fields.
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): never {
    throw new Error('RawJson is written by serializeMessage only');
  }
}

export interface ResultResponse {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly result: unknown;
}

export function resultResponse(id: RequestId, result: unknown): ResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/** One outgoing message as one line of JSON text (without the newline), a RawJson result written as is. */
export function serializeMessage(message: object): string {
  const result = (message as Partial<ResultResponse>).result;
  if (result instanceof RawJson) return `{"jsonrpc":"2.0","id":${JSON.stringify((message as ResultResponse).id)},"result":${result.text}}`;
  return JSON.stringify(message);
}

export function notification(method: string, params: unknown): object {
  return { jsonrpc: '2.0', method, params };
}

/** Request ids are compared by their JSON text, so 1 and "1" are different ids. */
export function idKey(id: RequestId): string {
  return JSON.stringify(id);
}

const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

function firstLine(message: string): string {
  return message.split('\n', 1)[0]!.slice(0, 200);
}

export function classify(line: string): Incoming {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { kind: 'invalid', id: null, code: ErrorCode.parse, message: `parse error: ${firstLine((e as Error).message)}` };
  }
  if (Array.isArray(msg))
    return { kind: 'invalid', id: null, code: ErrorCode.invalidRequest, message: 'invalid request: batches are not supported' };
  if (typeof msg !== 'object' || msg === null)
    return { kind: 'invalid', id: null, code: ErrorCode.invalidRequest, message: 'invalid request: a message must be a JSON object' };
  const m = msg as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(m, 'id');
  const id = hasId && isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0')
    return { kind: 'invalid', id, code: ErrorCode.invalidRequest, message: 'invalid request: jsonrpc must be "2.0"' };
  if (hasId && id === null)
    return { kind: 'invalid', id: null, code: ErrorCode.invalidRequest, message: 'invalid request: id must be a string or a number' };
  if (typeof m.method !== 'string') {
    // A client's response to a request the server never sent: nothing to answer.
    if (hasId && ('result' in m || 'error' in m)) return { kind: 'response' };
    return { kind: 'invalid', id, code: ErrorCode.invalidRequest, message: 'invalid request: method must be a string' };
  }
  if (id === null) return { kind: 'notification', method: m.method, params: m.params };
  return { kind: 'request', id, key: idKey(id), method: m.method, params: m.params };
}
