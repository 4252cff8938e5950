// The real Claude Code binary with Needle set up at user scope by
// `needle enable --client claude-code --scope user --mcp --hooks`, in an
// isolated HOME/CLAUDE_CONFIG_DIR, against a loopback Messages API mock: the
// hooks come from $CLAUDE_CONFIG_DIR/settings.json and the MCP server from
// $CLAUDE_CONFIG_DIR/.claude.json, with no project file and no --mcp-config.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMock, claudeBinary, claudeCodeEnv, makeRepo, needle, runClient, sent, type Mock, type Recorded } from './clients.js';

const CLAUDE = claudeBinary();
if ('skip' in CLAUDE) console.warn(`skipping Claude Code user-scope tests: ${CLAUDE.skip}`);

const NEED_BLOCK = ['I need evidence first.', '@@need', '@route locate.implementation', '@subject cli_option:--dry-run', '', 'Where is --dry-run implemented?', '@@end'].join('\n');
const USER_SETTINGS = '{\n  "permissions": { "deny": ["Bash(curl:*)"] },\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }\n}\n';
const mainRequests = (m: Mock): Recorded[] => m.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);

describe.skipIf('skip' in CLAUDE)('Claude Code with Needle at user scope (real binary, mock Messages API, offline)', () => {
  let repo: ReturnType<typeof makeRepo>;
  let mock: Mock;
  let configDir: string;
  let env: NodeJS.ProcessEnv;
  let userJson: string;

  beforeAll(async () => {
    repo = makeRepo();
    const home = join(repo.tmp, 'home');
    configDir = join(home, 'claude-config');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'settings.json'), USER_SETTINGS);
    userJson = `${JSON.stringify({ projects: { [repo.root]: { hasTrustDialogAccepted: true } }, mcpServers: { other: { type: 'stdio', command: 'true', args: [] } } }, null, 2)}\n`;
    writeFileSync(join(configDir, '.claude.json'), userJson);
    mock = await anthropicMock((req) => {
      if (!Array.isArray(req.body.tools) || req.body.tools.length === 0) return { text: 'ok' };
      return sent(req).includes('[NEEDLE_CONTEXT route=') ? { text: `Final answer: src/cli.ts handles it.\n${NEED_BLOCK}` } : { text: NEED_BLOCK };
    });
    env = claudeCodeEnv(home, mock, configDir);
  });

  afterAll(async () => {
    await mock?.close();
    if (repo) rmSync(repo.tmp, { recursive: true, force: true });
  });

  it('picks up the Stop hook and the MCP registration from user scope; disable restores settings.json byte for byte and takes only its server out of .claude.json', async () => {
    const out = needle(['enable', '--client', 'claude-code', '--scope', 'user', '--mcp', '--hooks', '--data-dir', repo.dataDir], repo.root, env);
    expect(out).toContain(`hooks added     ${join(configDir, 'settings.json')}`);
    expect(out).toContain(`mcp   added     ${join(configDir, '.claude.json')}`);
    expect(needle(['status'], repo.root, env)).toMatch(/claude-code user: hooks session-start, stop .*; mcp on/);
    expect(existsSync(join(repo.root, '.claude'))).toBe(false);
    expect(existsSync(join(repo.root, '.mcp.json'))).toBe(false);
    // Enable then disable with nothing in between: both files get their exact bytes back.
    needle(['disable', '--client', 'claude-code', '--scope', 'user'], repo.root, env);
    expect(readFileSync(join(configDir, 'settings.json'), 'utf8')).toBe(USER_SETTINGS);
    expect(readFileSync(join(configDir, '.claude.json'), 'utf8')).toBe(userJson);
    needle(['enable', '--client', 'claude-code', '--scope', 'user', '--mcp', '--hooks', '--data-dir', repo.dataDir], repo.root, env);

    const run = await runClient(
      (CLAUDE as { path: string }).path,
      ['-p', '--output-format', 'stream-json', '--verbose', '--', 'Where is --dry-run implemented?'],
      { cwd: repo.root, timeoutMs: 90_000, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const main = mainRequests(mock);
    // The user-scope MCP server is offered (deferred behind ToolSearch) and the SessionStart note names it.
    expect(sent(main[0]!)).toContain('mcp__needle__need_context');
    expect(sent(main[0]!)).toContain('call the need_context tool');
    // The user-scope Stop hook answered the block with the FrontierView; stop_hook_active ended the turn.
    expect(main.length).toBe(2);
    expect(sent(main[1]!)).toContain('[NEEDLE_CONTEXT route=locate.implementation subject=cli_option:--dry-run resolution=miss]');
    const result = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; result?: string }).find((e) => e.type === 'result');
    expect(result?.result).toContain('Final answer');

    // Claude Code keeps its own state in .claude.json and rewrote it during the run: disable keeps all of
    // that and takes out only Needle's server; settings.json, which nothing else touched, comes back byte for byte.
    const left = JSON.parse(readFileSync(join(configDir, '.claude.json'), 'utf8'));
    delete left.mcpServers.needle;
    expect(needle(['disable', '--client', 'claude-code', '--scope', 'user'], repo.root, env)).toMatch(/hooks +removed[\s\S]*mcp +removed/);
    expect(readFileSync(join(configDir, 'settings.json'), 'utf8')).toBe(USER_SETTINGS);
    expect(JSON.parse(readFileSync(join(configDir, '.claude.json'), 'utf8'))).toEqual(left);
    expect(existsSync(join(configDir, 'settings.json.needle-backup'))).toBe(false);
    expect(needle(['status'], repo.root, env)).toMatch(/claude-code user: hooks off .*; mcp off/);
  }, 150_000);
});
