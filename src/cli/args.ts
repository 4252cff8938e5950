// Argument parsing shared by every command: node:util parseArgs in strict
// mode, with its errors rewritten as one short line that never echoes a
// credential-looking value back.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PROFILE } from '../core/limits.js';
import { looksLikeCredential } from '../core/profile.js';
import { UsageError } from './command.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** A value from the command line, safe to print: credential-looking text is never shown. */
export function safeEcho(value: string): string {
  const bare = value.replace(/^-+/, '').replace(/=.*$/, '');
  if (looksLikeCredential(bare) || looksLikeCredential(value)) return '<value hidden: it looks like a credential>';
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}

export interface Parsed {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

export function parseCommandArgs(argv: readonly string[], options: OptionSpec, maxPositionals = 0): Parsed {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: maxPositionals > 0 });
  } catch (e) {
    throw new UsageError(describeParseError(e as Error & { code?: string }, argv, options));
  }
  if (parsed.positionals.length > maxPositionals)
    throw new UsageError(`unexpected argument \`${safeEcho(parsed.positionals[maxPositionals]!)}\``);
  for (const [name, value] of Object.entries(parsed.values))
    if (value === '') throw new UsageError(`--${name} requires a non-empty value`);
  return { values: parsed.values as Parsed['values'], positionals: parsed.positionals };
}

function describeParseError(e: Error & { code?: string }, argv: readonly string[], options: OptionSpec): string {
  const named = /'(-[^' ]+)/.exec(e.message)?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option \`${safeEcho(named ?? '?')}\``;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = named?.replace(/^-+/, '') ?? '';
      return options[name]?.type === 'boolean' ? `--${name} does not take a value` : `--${name} requires a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const first = argv.find((a) => !a.startsWith('-'));
      return `unexpected argument \`${safeEcho(first ?? '?')}\``;
    }
    default:
      return 'invalid arguments';
  }
}

/** Role-profile ids: PROFILE.idPattern, no path-like or credential-like values (never echoed). */
export function checkProfileId(value: string, flag = '--role-profile'): string {
  if (looksLikeCredential(value)) throw new UsageError(`${flag} looks like a credential; refusing it (the value is not shown)`);
  if (!PROFILE.idPattern.test(value) || value.includes('..'))
    throw new UsageError(`${flag} must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit`);
  return value;
}

export function checkModel(value: string, flag = '--main-model'): string {
  if (looksLikeCredential(value)) throw new UsageError(`${flag} looks like a credential; refusing it (the value is not shown)`);
  if (!PROFILE.modelPattern.test(value)) throw new UsageError(`${flag} must be 1-64 characters of A-Z, a-z, 0-9, '.', '_' or '-'`);
  return value;
}

/** Data dir precedence (SPEC §3): flag, NEEDLE_DATA_DIR, $XDG_DATA_HOME/needle, ~/.local/share/needle. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  const chosen =
    flag ??
    (env.NEEDLE_DATA_DIR || undefined) ??
    (env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'needle') : undefined) ??
    join(env.HOME || homedir(), '.local', 'share', 'needle');
  return isAbsolute(chosen) ? chosen : resolve(cwd, chosen);
}

export function stringOption(values: Parsed['values'], name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

/** `--limit N`: an integer 1..max, `fallback` when absent; anything else is a usage error. */
export function limitOption(values: Parsed['values'], fallback: number, max: number): number {
  const text = stringOption(values, 'limit');
  const limit = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new UsageError(`--limit must be an integer 1..${max}`);
  return limit;
}
