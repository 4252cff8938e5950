// A tiny schema language whose every node yields both the published JSON
// Schema and the parser that enforces it. Tool input/output schemas and worker
// output contracts are defined once with it, so what we publish and what we
// accept cannot diverge (SPEC §4, "one source of truth").
//
// Byte bounds are published as maxLength: for ASCII the two agree, and for
// multibyte text the parser is the stricter one (it also counts bytes), which
// is the safe direction for a bound.

export type JsonSchema = { [key: string]: unknown };

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
    this.name = 'SchemaError';
  }
}

export interface Schema<T> {
  readonly json: JsonSchema;
  parse(value: unknown, path?: string): T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

function describe(json: JsonSchema, description?: string): JsonSchema {
  return description ? { ...json, description } : json;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

export interface StringOptions {
  minBytes?: number;
  maxBytes?: number;
  /** Rejects empty and whitespace-only text (published as pattern "\\S"). */
  nonBlank?: boolean;
  pattern?: RegExp;
  /** Rejects control characters (C0, DEL, C1: NUL, newlines, escapes); with nonBlank only. */
  noControl?: boolean;
  description?: string;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** The published form of nonBlank + noControl. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NON_BLANK_NO_CONTROL = /^[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*$/;

export function string(opts: StringOptions = {}): Schema<string> {
  if (opts.nonBlank && opts.pattern) throw new Error('string(): nonBlank and pattern are exclusive');
  if (opts.noControl && !opts.nonBlank) throw new Error('string(): noControl needs nonBlank');
  const pattern = opts.pattern ?? (opts.noControl ? NON_BLANK_NO_CONTROL : opts.nonBlank ? /\S/ : undefined);
  const json: JsonSchema = { type: 'string' };
  const min = opts.minBytes ?? (opts.nonBlank ? 1 : undefined);
  if (min !== undefined) json.minLength = min;
  if (opts.maxBytes !== undefined) json.maxLength = opts.maxBytes;
  if (pattern) json.pattern = pattern.source;
  return {
    json: describe(json, opts.description),
    parse(value, path = '') {
      if (typeof value !== 'string') throw new SchemaError(path, `must be a string, got ${typeName(value)}`);
      const n = byteLength(value);
      if (min !== undefined && value.length < min) throw new SchemaError(path, `must not be empty`);
      if (opts.maxBytes !== undefined && n > opts.maxBytes)
        throw new SchemaError(path, `must be at most ${opts.maxBytes} bytes, got ${n}`);
      if (opts.nonBlank && !/\S/.test(value)) throw new SchemaError(path, 'must not be blank');
      if (opts.noControl && CONTROL.test(value)) throw new SchemaError(path, 'must not contain control characters');
      if (opts.pattern && !opts.pattern.test(value))
        throw new SchemaError(path, `must match ${opts.pattern.source}`);
      return value;
    },
  };
}

export function enumOf<const V extends string>(values: readonly V[], description?: string): Schema<V> {
  const allowed = new Set<string>(values);
  return {
    json: describe({ type: 'string', enum: [...values] }, description),
    parse(value, path = '') {
      if (typeof value !== 'string' || !allowed.has(value))
        throw new SchemaError(path, `must be one of ${values.join(', ')}, got ${preview(value)}`);
      return value as V;
    },
  };
}

export function literal<const V extends string>(value: V, description?: string): Schema<V> {
  return {
    json: describe({ type: 'string', const: value }, description),
    parse(v, path = '') {
      if (v !== value) throw new SchemaError(path, `must be ${JSON.stringify(value)}, got ${preview(v)}`);
      return value;
    },
  };
}

export function integer(opts: { min?: number; max?: number; description?: string } = {}): Schema<number> {
  const json: JsonSchema = { type: 'integer' };
  if (opts.min !== undefined) json.minimum = opts.min;
  if (opts.max !== undefined) json.maximum = opts.max;
  return {
    json: describe(json, opts.description),
    parse(value, path = '') {
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw new SchemaError(path, `must be an integer, got ${preview(value)}`);
      if (opts.min !== undefined && value < opts.min) throw new SchemaError(path, `must be >= ${opts.min}`);
      if (opts.max !== undefined && value > opts.max) throw new SchemaError(path, `must be <= ${opts.max}`);
      return value;
    },
  };
}

export function number(opts: { min?: number; description?: string } = {}): Schema<number> {
  const json: JsonSchema = { type: 'number' };
  if (opts.min !== undefined) json.minimum = opts.min;
  return {
    json: describe(json, opts.description),
    parse(value, path = '') {
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new SchemaError(path, `must be a number, got ${preview(value)}`);
      if (opts.min !== undefined && value < opts.min) throw new SchemaError(path, `must be >= ${opts.min}`);
      return value;
    },
  };
}

export function boolean(description?: string): Schema<boolean> {
  return {
    json: describe({ type: 'boolean' }, description),
    parse(value, path = '') {
      if (typeof value !== 'boolean') throw new SchemaError(path, `must be a boolean, got ${typeName(value)}`);
      return value;
    },
  };
}

export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  return {
    json: { anyOf: [inner.json, { type: 'null' }] },
    parse(value, path = '') {
      return value === null ? null : inner.parse(value, path);
    },
  };
}

export interface ArrayOptions {
  min?: number;
  max?: number;
  /** Items must be pairwise distinct (deep equality, published as uniqueItems). */
  unique?: boolean;
  description?: string;
}

export function array<T>(item: Schema<T>, opts: ArrayOptions = {}): Schema<T[]> {
  const json: JsonSchema = { type: 'array', items: item.json };
  if (opts.min !== undefined) json.minItems = opts.min;
  if (opts.max !== undefined) json.maxItems = opts.max;
  if (opts.unique) json.uniqueItems = true;
  return {
    json: describe(json, opts.description),
    parse(value, path = '') {
      if (!Array.isArray(value)) throw new SchemaError(path, `must be an array, got ${typeName(value)}`);
      if (opts.min !== undefined && value.length < opts.min)
        throw new SchemaError(path, `must have at least ${opts.min} item(s)`);
      if (opts.max !== undefined && value.length > opts.max)
        throw new SchemaError(path, `must have at most ${opts.max} item(s), got ${value.length}`);
      const out = value.map((v, i) => item.parse(v, child(path, i)));
      if (opts.unique) {
        const seen = new Set<string>();
        out.forEach((v, i) => {
          const key = stableStringify(v);
          if (seen.has(key)) throw new SchemaError(child(path, i), 'duplicates an earlier item');
          seen.add(key);
        });
      }
      return out;
    },
  };
}

const OPTIONAL = Symbol('optional');
export interface OptionalSchema<T> extends Schema<T> {
  readonly [OPTIONAL]: true;
}

/** Marks an object property as optional (absent is fine; null is not). */
export function optional<T>(inner: Schema<T>): OptionalSchema<T> {
  return { ...inner, [OPTIONAL]: true };
}

type Props = Record<string, Schema<unknown>>;
type RequiredKeys<P extends Props> = { [K in keyof P]: P[K] extends OptionalSchema<unknown> ? never : K }[keyof P];
type OptionalKeys<P extends Props> = { [K in keyof P]: P[K] extends OptionalSchema<unknown> ? K : never }[keyof P];
export type ObjectOf<P extends Props> = { [K in RequiredKeys<P>]: Infer<P[K]> } & {
  [K in OptionalKeys<P>]?: Infer<P[K]>;
};

export interface ObjectSchema<P extends Props> extends Schema<ObjectOf<P>> {
  readonly props: P;
}

/** A closed object: unknown keys are an error at every level. */
export function object<P extends Props>(props: P, description?: string): ObjectSchema<P> {
  return objectOf(props, description, true);
}

/**
 * An open object: unknown keys are ignored and dropped from the parsed value.
 * Only for input whose producer adds fields over time (a client's hook
 * payloads); never for anything Needle publishes as a contract.
 */
export function openObject<P extends Props>(props: P, description?: string): ObjectSchema<P> {
  return objectOf(props, description, false);
}

function objectOf<P extends Props>(props: P, description: string | undefined, closed: boolean): ObjectSchema<P> {
  const keys = Object.keys(props);
  const required = keys.filter((k) => !(OPTIONAL in props[k]!));
  const json: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(keys.map((k) => [k, props[k]!.json])),
    ...(closed ? { additionalProperties: false } : {}),
  };
  if (required.length) json.required = required;
  return {
    props,
    json: describe(json, description),
    parse(value, path = '') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new SchemaError(path, `must be an object, got ${typeName(value)}`);
      const record = value as Record<string, unknown>;
      if (closed)
        for (const key of Object.keys(record))
          if (!Object.prototype.hasOwnProperty.call(props, key)) throw new SchemaError(child(path, key.slice(0, 64)), 'unknown field');
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        const schema = props[key]!;
        if (!Object.prototype.hasOwnProperty.call(record, key)) {
          if (OPTIONAL in schema) continue;
          throw new SchemaError(child(path, key), 'is required');
        }
        out[key] = schema.parse(record[key], child(path, key));
      }
      return out as ObjectOf<P>;
    },
  };
}

/** A union of closed objects told apart by the string constant at `tag`. */
export function tagged<const Tag extends string, V extends Record<string, ObjectSchema<Props>>>(
  tag: Tag,
  variants: V,
  description?: string,
): Schema<Infer<V[keyof V]>> {
  const names = Object.keys(variants);
  return {
    json: describe({ oneOf: names.map((n) => variants[n]!.json) }, description),
    parse(value, path = '') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new SchemaError(path, `must be an object, got ${typeName(value)}`);
      const t = (value as Record<string, unknown>)[tag];
      if (typeof t !== 'string' || !Object.prototype.hasOwnProperty.call(variants, t))
        throw new SchemaError(child(path, tag), `must be one of ${names.join(', ')}, got ${preview(t)}`);
      return variants[t]!.parse(value, path) as Infer<V[keyof V]>;
    },
  };
}

function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? typeName(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** JSON with object keys sorted, for equality and content addressing. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
