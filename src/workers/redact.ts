// Redaction, the second wall behind the cleared environment (SPEC §7): the
// value of every variable a profile names for a worker (`provider.env_key`,
// `env_allowlist`) is cut out of what the worker hands back — proposals
// before validation, reports, verdicts, diagnostics — so a key the model
// managed to read never reaches a stored row, a log, CLI output or an answer.

/** Values shorter than this are not treated as secrets (they would blank out ordinary words). */
export const MIN_SECRET_CHARS = 8;

export interface Secret {
  readonly name: string;
  readonly value: string;
}

/** The current values of the named variables, longest first (so a value containing another is cut whole). */
export function secretsOf(env: NodeJS.ProcessEnv, names: readonly string[]): Secret[] {
  const out: Secret[] = [];
  for (const name of new Set(names)) {
    const value = env[name];
    if (value !== undefined && value.length >= MIN_SECRET_CHARS) out.push({ name, value });
  }
  return out.sort((a, b) => b.value.length - a.value.length);
}

export function redactText(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s.value)) out = out.split(s.value).join(`[redacted ${s.name}]`);
  return out;
}

/** Every string inside a JSON-like value, redacted (keys included); other values unchanged. */
export function redactDeep<T>(value: T, secrets: readonly Secret[]): T {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, secrets)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[redactText(k, secrets)] = redactDeep(v, secrets);
    return out as T;
  }
  return value;
}

/** Whether any secret occurs in these bytes (a patch that writes a key into a file is refused, not edited). */
export function containsSecret(bytes: Buffer, secrets: readonly Secret[]): Secret | null {
  return secrets.find((s) => bytes.includes(Buffer.from(s.value, 'utf8'))) ?? null;
}

/** The variable names whose values must never come back from a codex or command worker. */
export function secretNames(config: { adapter: string; provider?: { env_key?: string } | undefined; env_allowlist?: readonly string[] | undefined }): string[] {
  if (config.adapter === 'command') return [...(config.env_allowlist ?? [])];
  if (config.adapter === 'codex') return config.provider ? (config.provider.env_key ? [config.provider.env_key] : []) : ['OPENAI_API_KEY'];
  return [];
}
