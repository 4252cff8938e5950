// `needle enable` / `disable` / `status`: Needle's entries in a client's own
// settings files. Every edit is a merge: Needle's hook groups and its MCP
// server entry are added or removed, everything else in the file is kept.
// A file that does not parse is refused and never rewritten; the first write
// of an existing file keeps its original bytes next to it
// (`<file>.needle-backup`), and `disable` restores those bytes exactly when
// what remains equals them, or removes a file enable created once it is empty.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { HOOKS } from '../core/limits.js';
import { stableStringify } from '../core/schema.js';
import { CLIENT_EVENT_NAMES, type HookEvent } from './payload.js';

export class SettingsError extends Error {}

type Json = Record<string, unknown>;

/** A hook command Needle wrote: `… hook <event> --client <client> …`. */
const OURS = /(^|\s)hook (session-start|user-prompt-submit|stop) --client (claude-code|codex)(\s|$)/;
export const isNeedleHookCommand = (command: string): boolean => OURS.test(command);
const BACKUP = '.needle-backup';

export interface HookEntry {
  readonly event: HookEvent;
  readonly command: string;
  readonly timeoutSec: number;
  /** Shown by the client while the hook runs (Claude Code's spinner). */
  readonly statusMessage?: string;
}

export interface McpEntry {
  readonly command: string;
  readonly args: readonly string[];
}

export type Change = 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';

function readJson(path: string): { doc: Json; existed: boolean; bytes: string | null } {
  if (!existsSync(path)) return { doc: {}, existed: false, bytes: null };
  const bytes = readFileSync(path, 'utf8');
  let doc: unknown;
  try {
    doc = bytes.trim() === '' ? {} : JSON.parse(bytes);
  } catch (e) {
    throw new SettingsError(`cannot parse ${path} (${(e as Error).message.split('\n', 1)[0]}); fix or move it first — nothing was written`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new SettingsError(`${path} is not a JSON object; nothing was written`);
  return { doc: doc as Json, existed: true, bytes };
}

function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.needle-tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Writes `next` unless it equals what is there; keeps the original bytes once.
 * `refresh`: the file already holds Needle's entries, so its bytes are not the
 * user's original (a backup of them would bring Needle's entries back on disable).
 */
function commit(path: string, before: { existed: boolean; bytes: string | null; doc: Json }, next: Json, adding: boolean, refresh = false): boolean {
  if (stableStringify(next) === stableStringify(before.doc)) return false;
  const backup = `${path}${BACKUP}`;
  if (adding) {
    mkdirSync(dirname(path), { recursive: true });
    // A file enable creates needs no backup: disable removes it when nothing else is left in it.
    if (before.existed && !refresh && !existsSync(backup)) writeFileSync(backup, before.bytes!);
    writeAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
    return true;
  }
  // Removing: give back the original bytes when nothing else changed since.
  if (existsSync(backup)) {
    const original = readFileSync(backup, 'utf8');
    let same = false;
    try {
      same = stableStringify(original.trim() === '' ? {} : JSON.parse(original)) === stableStringify(next);
    } catch {
      same = false;
    }
    if (same) {
      writeAtomic(path, original);
      rmSync(backup, { force: true });
      return true;
    }
  } else if (Object.keys(next).length === 0) {
    rmSync(path, { force: true });
    return true;
  }
  writeAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  return true;
}

const isOurGroup = (g: unknown): boolean => {
  const hooks = (g as Json | null)?.hooks;
  return Array.isArray(hooks) && hooks.length > 0 && hooks.every((h) => typeof (h as Json)?.command === 'string' && OURS.test((h as Json).command as string));
};

function withoutOurHooks(doc: Json): Json {
  const hooks = doc.hooks;
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return doc;
  const kept: Json = {};
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const rest = groups.filter((g) => !isOurGroup(g));
    if (rest.length > 0) kept[event] = rest;
  }
  const out = { ...doc };
  if (Object.keys(kept).length > 0) out.hooks = kept;
  else delete out.hooks;
  return out;
}

/** Adds (or refreshes) Needle's hook groups in a Claude Code settings.json or a Codex hooks.json. */
export function enableHooks(path: string, entries: readonly HookEntry[]): Change {
  const before = readJson(path);
  if (before.doc.hooks !== undefined && (typeof before.doc.hooks !== 'object' || before.doc.hooks === null || Array.isArray(before.doc.hooks)))
    throw new SettingsError(`${path}: "hooks" is not an object; nothing was written`);
  const had = stableStringify(withoutOurHooks(before.doc)) !== stableStringify(before.doc);
  const next = withoutOurHooks(before.doc);
  const hooks = { ...((next.hooks as Json | undefined) ?? {}) };
  for (const e of entries) {
    const name = CLIENT_EVENT_NAMES[e.event];
    const groups = Array.isArray(hooks[name]) ? [...(hooks[name] as unknown[])] : [];
    groups.push({ hooks: [{ type: 'command', command: e.command, timeout: e.timeoutSec, ...(e.statusMessage ? { statusMessage: e.statusMessage } : {}) }] });
    hooks[name] = groups;
  }
  const changed = commit(path, before, { ...next, hooks }, true, had);
  return !changed ? 'unchanged' : had ? 'updated' : 'added';
}

export function disableHooks(path: string): Change {
  if (!existsSync(path)) return 'absent';
  const before = readJson(path);
  return commit(path, before, withoutOurHooks(before.doc), false) ? 'removed' : 'absent';
}

export function hooksEnabled(path: string): HookEvent[] {
  if (!existsSync(path)) return [];
  const { doc } = readJson(path);
  const hooks = (doc.hooks ?? {}) as Json;
  return (Object.entries(CLIENT_EVENT_NAMES) as [HookEvent, string][])
    .filter(([, name]) => Array.isArray(hooks[name]) && (hooks[name] as unknown[]).some(isOurGroup))
    .map(([event]) => event);
}

const isOurServer = (s: unknown): boolean => Array.isArray((s as Json | null)?.args) && ((s as Json).args as unknown[]).join(' ').includes('mcp serve');

/** `mcpServers.needle` in a Claude Code `.mcp.json` or `~/.claude.json`. */
export function enableMcpJson(path: string, entry: McpEntry): Change {
  const before = readJson(path);
  const servers = (before.doc.mcpServers ?? {}) as Json;
  if (typeof servers !== 'object' || Array.isArray(servers)) throw new SettingsError(`${path}: "mcpServers" is not an object; nothing was written`);
  if (servers.needle !== undefined && !isOurServer(servers.needle))
    throw new SettingsError(`${path} already has an MCP server named needle that Needle did not write; remove it first`);
  const had = servers.needle !== undefined;
  const next = { ...before.doc, mcpServers: { ...servers, needle: { type: 'stdio', command: entry.command, args: [...entry.args], env: {} } } };
  const changed = commit(path, before, next, true, had);
  return !changed ? 'unchanged' : had ? 'updated' : 'added';
}

export function disableMcpJson(path: string): Change {
  if (!existsSync(path)) return 'absent';
  const before = readJson(path);
  const servers = before.doc.mcpServers as Json | undefined;
  if (!servers || typeof servers !== 'object' || !isOurServer(servers.needle)) return 'absent';
  const rest = { ...servers };
  delete rest.needle;
  const next = { ...before.doc };
  if (Object.keys(rest).length > 0) next.mcpServers = rest;
  else delete next.mcpServers;
  return commit(path, before, next, false) ? 'removed' : 'absent';
}

export function mcpJsonEnabled(path: string): boolean {
  if (!existsSync(path)) return false;
  return isOurServer(((readJson(path).doc.mcpServers ?? {}) as Json).needle);
}

const TOML_BEGIN = '# BEGIN needle (written by `needle enable`; `needle disable` removes this block)';
const TOML_END = '# END needle';
const tomlString = (s: string): string => JSON.stringify(s);

function tomlBlock(entry: McpEntry): string {
  return [
    TOML_BEGIN,
    '[mcp_servers.needle]',
    `command = ${tomlString(entry.command)}`,
    `args = [${entry.args.map(tomlString).join(', ')}]`,
    // Codex's defaults (10 s to start, 60 s per call) are short for a cold resolution on a loaded machine.
    `startup_timeout_sec = ${HOOKS.mcpStartupTimeoutSec}`,
    `tool_timeout_sec = ${HOOKS.stopTimeoutSec}`,
    TOML_END,
  ].join('\n');
}

function splitToml(text: string): { before: string; block: string | null; after: string } {
  const start = text.indexOf(TOML_BEGIN);
  if (start === -1) return { before: text, block: null, after: '' };
  const end = text.indexOf(TOML_END, start);
  if (end === -1) throw new SettingsError('the needle block in config.toml has no end marker; fix it by hand');
  return { before: text.slice(0, start), block: text.slice(start, end + TOML_END.length), after: text.slice(end + TOML_END.length) };
}

/** `[mcp_servers.needle]` in Codex's config.toml, as a marked block appended at the end. */
export function enableCodexMcp(path: string, entry: McpEntry): Change {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const parts = splitToml(text);
  const outside = parts.before + parts.after;
  if (/^\s*\[\s*mcp_servers\s*\.\s*"?needle"?\s*\]/m.test(outside))
    throw new SettingsError(`${path} already has [mcp_servers.needle] that Needle did not write; remove it first`);
  const block = tomlBlock(entry);
  if (parts.block === block) return 'unchanged';
  const next = parts.block !== null ? parts.before + block + parts.after : `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}\n${block}\n`;
  writeAtomic(path, next);
  return parts.block !== null ? 'updated' : 'added';
}

export function disableCodexMcp(path: string): Change {
  if (!existsSync(path)) return 'absent';
  const text = readFileSync(path, 'utf8');
  const parts = splitToml(text);
  if (parts.block === null) return 'absent';
  // Undo exactly what enable appended: the blank line before the block and the newline after it.
  const before = parts.before.endsWith('\n\n') ? parts.before.slice(0, -1) : parts.before;
  const after = parts.after.startsWith('\n') ? parts.after.slice(1) : parts.after;
  const next = before === '\n' && after === '' ? '' : before + after;
  if (next === '') rmSync(path, { force: true });
  else writeAtomic(path, next);
  return 'removed';
}

export function codexMcpEnabled(path: string): boolean {
  return existsSync(path) && splitToml(readFileSync(path, 'utf8')).block !== null;
}
