// Role profiles (SPEC §13): which worker plays which role, with its settings.
// Stored as immutable digest-addressed revisions; the document below is the
// whole revision. It never contains credentials: adapters read those from the
// environment at run time.
import { LEDGER, PROFILE } from './limits.js';
import {
  array,
  boolean,
  enumOf,
  integer,
  literal,
  nullable,
  number,
  object,
  optional,
  string,
  tagged,
  type Infer,
} from './schema.js';

const model = string({ pattern: PROFILE.modelPattern, description: 'model name, e.g. gpt-5.1-codex-mini' });
const timeoutMs = integer({ min: 1_000, max: 3_600_000, description: 'deadline for one run in milliseconds' });
const absolutePath = string({ pattern: /^\/[^\0]*$/, maxBytes: 4096 });

const codexAdapter = object({
  adapter: literal('codex'),
  model,
  reasoning_effort: optional(enumOf(['minimal', 'low', 'medium', 'high'])),
  timeout_ms: optional(timeoutMs),
  max_output_tokens: optional(integer({ min: 1, max: 1_000_000 })),
  codex_path: optional(absolutePath),
  codex_home: optional(absolutePath),
  provider: optional(
    object({
      name: string({ pattern: /^[A-Za-z0-9._-]{1,64}$/ }),
      base_url: string({ pattern: /^https?:\/\/[^\s]+$/, maxBytes: 2048 }),
      env_key: optional(string({ pattern: /^[A-Z_][A-Z0-9_]{0,63}$/, description: 'name of the env var holding the API key' })),
    }),
  ),
});

const commandAdapter = object({
  adapter: literal('command'),
  argv: array(string({ nonBlank: true, maxBytes: 4096 }), { min: 1, max: 64 }),
  prompt: enumOf(['stdin', 'file']),
  timeout_ms: optional(timeoutMs),
  env_allowlist: optional(array(string({ pattern: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/ }), { max: 32, unique: true })),
  // An agent CLI that calls its model API needs the network; the sandbox
  // still confines its filesystem to the run directory.
  network: optional(boolean('allow network access inside the sandbox (default false)')),
});

export const explorerSchema = tagged('adapter', { static: object({ adapter: literal('static') }), codex: codexAdapter });
export const changeRoleSchema = tagged('adapter', { codex: codexAdapter, command: commandAdapter });

const price = object({
  model,
  input_usd_per_mtok: nullable(number({ min: 0 })),
  cached_input_usd_per_mtok: nullable(number({ min: 0 })),
  output_usd_per_mtok: nullable(number({ min: 0 })),
});

const authority = enumOf(['authoritative', 'advisory', 'shadow']);

export const roleProfileSchema = object({
  explorer: array(explorerSchema, { min: 1, max: 4 }),
  implementer: nullable(changeRoleSchema),
  verifier: nullable(changeRoleSchema),
  test_execution: enumOf(['trusted', 'untrusted']),
  require_sandbox: boolean(),
  authority: optional(
    object({
      implementation_location: optional(authority),
      runtime_flow: optional(authority),
      focused_tests: optional(authority),
    }),
  ),
  limits: optional(
    object({
      max_needs: optional(integer({ min: LEDGER.minLimit, max: LEDGER.maxLimit })),
      max_workers: optional(integer({ min: LEDGER.minLimit, max: LEDGER.maxLimit })),
    }),
  ),
  pricing: optional(array(price, { max: 32 })),
  // The team cache (issue 12): whether certificates resting on a model worker's
  // run are published (default true: they cost the most to produce again).
  team_cache: optional(
    object({
      publish_model_results: optional(boolean('publish certificates produced by model workers to the team cache (default true)')),
    }),
  ),
});

export type RoleProfile = Infer<typeof roleProfileSchema>;
export type ExplorerConfig = Infer<typeof explorerSchema>;
export type ChangeRoleConfig = Infer<typeof changeRoleSchema>;

export const BUILTIN_PROFILE_ID = 'local';
export const BUILTIN_LOCAL_PROFILE: RoleProfile = {
  explorer: [{ adapter: 'static' }],
  implementer: null,
  verifier: null,
  test_execution: 'untrusted',
  require_sandbox: false,
};

/** Refuses ids and names that look like credentials; the value is never echoed back. */
export function looksLikeCredential(value: string): boolean {
  const v = value.toLowerCase();
  return PROFILE.credentialPrefixes.some((p) => v.startsWith(p)) || /^[A-Za-z0-9_-]{40,}$/.test(value);
}

/**
 * Throws when any string in a profile document looks like a credential
 * (an API key pasted into argv or a URL). The message names the field, never
 * the value, so the secret is not echoed into logs or terminals.
 */
export function assertNoCredentials(doc: unknown, path = 'profile'): void {
  if (typeof doc === 'string') {
    const parts = doc.split(/[\s=:/?&@]+/);
    if (parts.some((part) => part.length >= 8 && looksLikeCredential(part)))
      throw new Error(`${path} looks like it contains a credential; profiles never store secrets (use provider.env_key)`);
  } else if (Array.isArray(doc)) {
    doc.forEach((item, i) => assertNoCredentials(item, `${path}[${i}]`));
  } else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) assertNoCredentials(v, `${path}.${k}`);
  }
}

/** Why a `codex_home` login is refused, for every codex role (profile creation and run start alike). */
export const CODEX_HOME_REFUSED =
  'codex_home logins are not supported: the login file would sit in the run directory, where the model\'s own commands can read it; use provider.env_key (the key reaches only the codex process)';

/** Throws for a codex adapter entry that names a `codex_home` login, naming the field. */
export function assertSupportedLogins(doc: RoleProfile): void {
  const entries: [string, ExplorerConfig | ChangeRoleConfig | null][] = [
    ...doc.explorer.map((e, i): [string, ExplorerConfig] => [`profile.explorer[${i}]`, e]),
    ['profile.implementer', doc.implementer],
    ['profile.verifier', doc.verifier],
  ];
  for (const [path, entry] of entries)
    if (entry?.adapter === 'codex' && entry.codex_home !== undefined) throw new Error(`${path}.codex_home: ${CODEX_HOME_REFUSED}`);
}
