// `needle enable`, `needle disable`, `needle status`: one-command setup of
// the hook transport (and optionally the MCP server) in Claude Code or Codex,
// merged into the client's own files (src/hooks/settings.ts).
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOOKS } from '../../core/limits.js';
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { CLIENTS, type Client, type HookEvent } from '../../hooks/payload.js';
import {
  codexMcpEnabled,
  disableCodexMcp,
  disableHooks,
  disableMcpJson,
  enableCodexMcp,
  enableHooks,
  enableMcpJson,
  hooksEnabled,
  mcpJsonEnabled,
  SettingsError,
  type Change,
} from '../../hooks/settings.js';
import { findRepositoryRoot } from '../../repo/snapshot.js';
import { checkProfileId, parseCommandArgs, resolveDataDir, stringOption, type OptionSpec } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';

const SCOPES = ['project', 'user'] as const;
type Scope = (typeof SCOPES)[number];

interface Target {
  readonly client: Client;
  readonly scope: Scope;
  readonly hooksFile: string;
  readonly mcpFile: string;
  readonly repository: string | null;
}

const MAIN_JS = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'main.js');
const quote = (s: string): string => (/^[A-Za-z0-9_./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function target(client: Client, scope: Scope, io: CliIO): Target {
  const home = io.env.HOME || homedir();
  if (client === 'codex') {
    if (scope === 'project') throw new UsageError('Codex reads hooks.json and config.toml from $CODEX_HOME only; use --scope user');
    const codexHome = io.env.CODEX_HOME || join(home, '.codex');
    return { client, scope, hooksFile: join(codexHome, 'hooks.json'), mcpFile: join(codexHome, 'config.toml'), repository: null };
  }
  if (scope === 'project') {
    let root: string;
    try {
      root = findRepositoryRoot(io.cwd);
    } catch {
      throw new UsageError('--scope project needs a git work tree; run it in your repository or use --scope user');
    }
    return { client, scope, hooksFile: join(root, '.claude', 'settings.json'), mcpFile: join(root, '.mcp.json'), repository: root };
  }
  const configDir = io.env.CLAUDE_CONFIG_DIR || join(home, '.claude');
  const mcpFile = io.env.CLAUDE_CONFIG_DIR ? join(configDir, '.claude.json') : join(home, '.claude.json');
  return { client, scope, hooksFile: join(configDir, 'settings.json'), mcpFile, repository: null };
}

const OPTIONS: OptionSpec = {
  client: { type: 'string' },
  scope: { type: 'string' },
  mcp: { type: 'boolean' },
  hooks: { type: 'boolean' },
  'data-dir': { type: 'string' },
  'role-profile': { type: 'string' },
};

function parseTarget(argv: readonly string[], io: CliIO): { t: Target; values: Record<string, string | boolean | undefined> } {
  const { values } = parseCommandArgs(argv, OPTIONS);
  const client = stringOption(values, 'client');
  if (!client || !(CLIENTS as readonly string[]).includes(client)) throw new UsageError(`--client must be one of ${CLIENTS.join(', ')}`);
  const scopeText = stringOption(values, 'scope') ?? (client === 'codex' ? 'user' : 'project');
  if (!(SCOPES as readonly string[]).includes(scopeText)) throw new UsageError('--scope must be project or user');
  return { t: target(client as Client, scopeText as Scope, io), values };
}

function report(io: CliIO, what: string, file: string, change: Change): void {
  io.stdout.write(`${what.padEnd(5)} ${change.padEnd(9)} ${file}\n`);
}

function settingsErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SettingsError) throw new UsageError(e.message);
    throw e;
  }
}

export const enableCommand: CliCommand = {
  path: ['enable'],
  summary: 'set up Needle in Claude Code or Codex (hooks, and the MCP server with --mcp)',
  help: `Usage: needle enable --client claude-code|codex [--scope project|user] [--hooks] [--mcp]
                     [--data-dir D] [--role-profile ID]

Merges Needle's entries into the client's own files and changes nothing else
in them; running it again changes nothing. The first write keeps the original
file as <file>.needle-backup; a file that does not parse is refused, never
rewritten. Restart the client afterwards.

  claude-code  project: .claude/settings.json (hooks), .mcp.json (MCP)
               user:    ~/.claude/settings.json, ~/.claude.json ($CLAUDE_CONFIG_DIR if set)
  codex        user:    $CODEX_HOME/hooks.json, $CODEX_HOME/config.toml [mcp_servers.needle]
               (Codex asks you once to trust new hooks)

Options:
  --client C         claude-code or codex
  --scope S          project (default for claude-code) or user (codex: user only)
  --hooks            the hook transport: SessionStart note + Stop resolving @@need blocks (default)
  --mcp              also register the MCP server (need_context)
  --data-dir D       data directory the hooks and the server use
  --role-profile ID  role profile (default ${BUILTIN_PROFILE_ID})
`,
  async run(argv, io) {
    const { t, values } = parseTarget(argv, io);
    const mcp = values.mcp === true;
    const hooks = values.hooks === true || !mcp;
    const profile = checkProfileId(stringOption(values, 'role-profile') ?? BUILTIN_PROFILE_ID);
    const dataFlag = stringOption(values, 'data-dir');
    const dataDir = dataFlag ? resolveDataDir(dataFlag, io.env, io.cwd) : undefined;
    const common = [...(dataDir ? ['--data-dir', dataDir] : []), ...(profile !== BUILTIN_PROFILE_ID ? ['--role-profile', profile] : [])];
    const hookCommand = (event: HookEvent): string =>
      [process.execPath, MAIN_JS, 'hook', event, '--client', t.client, ...(mcp ? ['--mcp'] : []), ...common].map(quote).join(' ');
    settingsErrors(() => {
      if (hooks)
        report(io, 'hooks', t.hooksFile, enableHooks(t.hooksFile, [
          { event: 'session-start', command: hookCommand('session-start'), timeoutSec: HOOKS.sessionStartTimeoutSec },
          { event: 'stop', command: hookCommand('stop'), timeoutSec: HOOKS.stopTimeoutSec, statusMessage: 'Needle: resolving @@need blocks' },
        ]));
      if (mcp) {
        const args = [MAIN_JS, 'mcp', 'serve', '--role-profile', profile, ...(t.repository ? ['--repository', t.repository] : []), ...(dataDir ? ['--data-dir', dataDir] : [])];
        const entry = { command: process.execPath, args };
        report(io, 'mcp', t.mcpFile, t.client === 'codex' ? enableCodexMcp(t.mcpFile, entry) : enableMcpJson(t.mcpFile, entry));
      }
    });
    io.stdout.write(`restart ${t.client === 'codex' ? 'Codex' : 'Claude Code'} to pick it up${t.client === 'codex' && hooks ? ' (it asks once to trust the new hooks)' : ''}\n`);
    return 0;
  },
};

export const disableCommand: CliCommand = {
  path: ['disable'],
  summary: 'remove exactly what needle enable added to Claude Code or Codex',
  help: `Usage: needle disable --client claude-code|codex [--scope project|user]

Removes Needle's hook entries and its MCP server entry from the client's files,
nothing else. When nothing else changed since enable, the file gets its
original bytes back (or is removed if enable created it).
`,
  async run(argv, io) {
    const { t } = parseTarget(argv, io);
    settingsErrors(() => {
      report(io, 'hooks', t.hooksFile, disableHooks(t.hooksFile));
      report(io, 'mcp', t.mcpFile, t.client === 'codex' ? disableCodexMcp(t.mcpFile) : disableMcpJson(t.mcpFile));
    });
    return 0;
  },
};

export const statusCommand: CliCommand = {
  path: ['status'],
  summary: 'where Needle is enabled in Claude Code and Codex',
  help: `Usage: needle status

For Claude Code (this repository and the user) and Codex: which hooks and
whether the MCP server are enabled, and where.
`,
  async run(argv, io) {
    parseCommandArgs(argv, {});
    const targets: Target[] = [];
    try {
      targets.push(target('claude-code', 'project', io));
    } catch {
      // not in a repository: no project scope to report
    }
    targets.push(target('claude-code', 'user', io), target('codex', 'user', io));
    for (const t of targets) {
      const events = settingsErrors(() => hooksEnabled(t.hooksFile));
      const mcp = settingsErrors(() => (t.client === 'codex' ? codexMcpEnabled(t.mcpFile) : mcpJsonEnabled(t.mcpFile)));
      const trust = t.client === 'codex' && events.length > 0 ? ' (Codex runs them once you trust them; codex exec needs them trusted)' : '';
      io.stdout.write(`${t.client} ${t.scope}: hooks ${events.length ? events.join(', ') : 'off'} (${t.hooksFile})${trust}; mcp ${mcp ? 'on' : 'off'} (${t.mcpFile})\n`);
    }
    return 0;
  },
};
