// `needle enable`, `needle disable`, `needle status`: one-command setup of
// the hook transport (and optionally the MCP server) in Claude Code or Codex,
// merged into the client's own files (src/hooks/settings.ts).
import { accessSync, constants, rmdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
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
  isNeedleHookCommand,
  mcpJsonEnabled,
  SettingsError,
  type Change,
} from '../../hooks/settings.js';
import { NEEDLE_BIN } from '../../mcp/version.js';
import { findRepositoryRoot } from '../../repo/snapshot.js';
import { codexHookTrust, type HookTrust } from '../../workers/codex/hook-trust.js';
import { bundledCodexPath } from '../../workers/codex/worker.js';
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

const quote = (s: string): string => (/^[A-Za-z0-9_./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function repositoryRoot(io: CliIO): string {
  try {
    return findRepositoryRoot(io.cwd);
  } catch {
    throw new UsageError('--scope project needs a git work tree; run it in your repository or use --scope user');
  }
}

function target(client: Client, scope: Scope, io: CliIO): Target {
  const home = io.env.HOME || homedir();
  if (client === 'codex') {
    if (scope === 'project') {
      // Codex reads <repo>/.codex/hooks.json and .codex/config.toml only in a trusted project (codex 0.171.0).
      const root = repositoryRoot(io);
      return { client, scope, hooksFile: join(root, '.codex', 'hooks.json'), mcpFile: join(root, '.codex', 'config.toml'), repository: root };
    }
    const codexHome = io.env.CODEX_HOME || join(home, '.codex');
    return { client, scope, hooksFile: join(codexHome, 'hooks.json'), mcpFile: join(codexHome, 'config.toml'), repository: null };
  }
  if (scope === 'project') {
    const root = repositoryRoot(io);
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
               project: .codex/hooks.json, .codex/config.toml (read only in a trusted project)
               (Codex runs new or changed hooks once you trust them in /hooks; needle status says)

Options:
  --client C         claude-code or codex
  --scope S          project (default for claude-code) or user (default for codex)
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
      [process.execPath, NEEDLE_BIN, 'hook', event, '--client', t.client, ...(mcp ? ['--mcp'] : []), ...common].map(quote).join(' ');
    settingsErrors(() => {
      if (hooks)
        report(io, 'hooks', t.hooksFile, enableHooks(t.hooksFile, [
          { event: 'session-start', command: hookCommand('session-start'), timeoutSec: HOOKS.sessionStartTimeoutSec },
          { event: 'stop', command: hookCommand('stop'), timeoutSec: HOOKS.stopTimeoutSec, statusMessage: 'Needle: resolving @@need blocks' },
        ]));
      if (mcp) {
        const args = [NEEDLE_BIN, 'mcp', 'serve', '--role-profile', profile, ...(t.repository ? ['--repository', t.repository] : []), ...(dataDir ? ['--data-dir', dataDir] : [])];
        const entry = { command: process.execPath, args };
        report(io, 'mcp', t.mcpFile, t.client === 'codex' ? enableCodexMcp(t.mcpFile, entry) : enableMcpJson(t.mcpFile, entry));
      }
    });
    io.stdout.write(`restart ${t.client === 'codex' ? 'Codex' : 'Claude Code'} to pick it up\n`);
    if (t.client === 'codex' && hooks) io.stdout.write(`${codexTrustHint(t)}\n`);
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
    // The .claude/ or .codex/ folder enable created goes too, once nothing else is in it.
    if (t.scope === 'project') {
      try {
        rmdirSync(dirname(t.hooksFile));
      } catch {
        // not empty (or not there): it stays
      }
    }
    return 0;
  },
};

/** What the user does so Codex runs the hooks (codex 0.171.0: trust per hook hash, project layers only in trusted projects). */
function codexTrustHint(t: Target): string {
  const hooks = 'Codex runs new or changed hooks only once you trust them: start codex and approve them in /hooks';
  if (t.scope === 'user') return hooks;
  return `Codex reads ${dirname(t.hooksFile)} only in a trusted project: trust the folder when codex asks (or run codex exec --trust there once); then ${hooks.charAt(0).toLowerCase()}${hooks.slice(1)}`;
}

/** `codex` on PATH, else the one installed next to Needle; null when neither exists. */
function codexExecutable(io: CliIO, flag: string | undefined): string | null {
  if (flag) return resolve(io.cwd, flag);
  for (const dir of (io.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'codex');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return bundledCodexPath();
}

async function trustText(t: Target, io: CliIO, codexFlag: string | undefined): Promise<string> {
  const codex = codexExecutable(io, codexFlag);
  const trust: HookTrust = codex
    ? await codexHookTrust({ codex, cwd: t.repository ?? io.cwd, env: stringEnv(io.env), hooksFile: t.hooksFile, ours: isNeedleHookCommand })
    : { state: 'unknown', why: 'no codex executable on PATH' };
  switch (trust.state) {
    case 'trusted':
      return 'trusted by Codex';
    case 'untrusted':
      return `not trusted by Codex (${trust.modified ? 'changed since you trusted them' : 'new'}; it skips them until then). ${codexTrustHint({ ...t, scope: 'user' })}`;
    case 'not-loaded':
      return t.scope === 'project' ? `not loaded by Codex. ${codexTrustHint(t)}` : 'not loaded by Codex (its hooks/list does not show them; are hooks off in [features]?)';
    case 'unknown':
      return `trust unknown (${trust.why}). ${codexTrustHint(t)}`;
  }
}

const stringEnv = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'));

export const statusCommand: CliCommand = {
  path: ['status'],
  summary: 'where Needle is enabled in Claude Code and Codex, and whether Codex trusts the hooks',
  help: `Usage: needle status [--codex PATH]

For Claude Code and Codex (this repository and the user): which hooks and
whether the MCP server are enabled, and where. For Codex hooks it also asks
Codex itself (codex app-server, hooks/list) whether it trusts them: trusted,
not trusted (what to run), not loaded (a project Codex does not trust), or
unknown when codex cannot be asked.

Options:
  --codex PATH   the codex executable to ask (default: codex on PATH, else the one installed with Needle)
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { codex: { type: 'string' } });
    const codexFlag = stringOption(values, 'codex');
    const targets: Target[] = [];
    for (const client of CLIENTS) {
      try {
        targets.push(target(client, 'project', io));
      } catch {
        // not in a repository: no project scope to report
      }
      targets.push(target(client, 'user', io));
    }
    for (const t of targets) {
      const events = settingsErrors(() => hooksEnabled(t.hooksFile));
      const mcp = settingsErrors(() => (t.client === 'codex' ? codexMcpEnabled(t.mcpFile) : mcpJsonEnabled(t.mcpFile)));
      const trust = t.client === 'codex' && events.length > 0 ? `, ${await trustText(t, io, codexFlag)}` : '';
      io.stdout.write(`${t.client} ${t.scope}: hooks ${events.length ? events.join(', ') : 'off'} (${t.hooksFile})${trust}; mcp ${mcp ? 'on' : 'off'} (${t.mcpFile})\n`);
    }
    return 0;
  },
};
