// The real Claude Code binary (npm @anthropic-ai/claude-code) against a
// loopback mock of the Anthropic Messages API, with Needle's hooks set up by
// `needle enable --client claude-code --scope project`.
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMock, claudeBinary, claudeCodeEnv, makeRepo, needle, runClient, sent, type Mock, type Recorded } from './clients.js';

const CLAUDE = claudeBinary();
if ('skip' in CLAUDE) console.warn(`skipping Claude Code tests: ${CLAUDE.skip}`);

const NEED_BLOCK = ['I need evidence first.', '@@need', '@route locate.implementation', '@subject cli_option:--dry-run', '', 'Where is --dry-run implemented?', '@@end'].join('\n');
const USER_SETTINGS = '{\n    "permissions": { "deny": ["Bash(rm:*)"] },\n    "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ] }\n}\n';

/** The main conversation's requests (Claude Code also sends helper requests without tools). */
const mainRequests = (m: Mock): Recorded[] => m.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);

describe.skipIf('skip' in CLAUDE)('Claude Code with Needle hooks (real binary, mock Messages API, offline)', () => {
  let repo: ReturnType<typeof makeRepo>;
  let mock: Mock;
  let home: string;
  const settingsFile = () => join(repo.root, '.claude', 'settings.json');

  beforeAll(async () => {
    repo = makeRepo();
    home = join(repo.tmp, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(repo.root, '.claude'), { recursive: true });
    writeFileSync(settingsFile(), USER_SETTINGS);
    // Project settings (hooks included) apply only in a workspace the user trusted once.
    writeFileSync(join(home, '.claude', '.claude.json'), JSON.stringify({ projects: { [repo.root]: { hasTrustDialogAccepted: true } } }));
    mock = await anthropicMock((req) => {
      const text = sent(req);
      if (!Array.isArray(req.body.tools) || req.body.tools.length === 0) return { text: 'ok' };
      if (text.includes('[NEEDLE_CONTEXT route=')) return { text: `Final answer: src/cli.ts handles it.\n${NEED_BLOCK}` };
      return { text: NEED_BLOCK };
    });
  });

  afterAll(async () => {
    await mock?.close();
    if (repo) rmSync(repo.tmp, { recursive: true, force: true });
  });

  it('needle enable merges the hooks; the Stop hook answers an @@need block with the FrontierView; stop_hook_active ends the turn; disable restores the file', async () => {
    const enableArgs = ['enable', '--client', 'claude-code', '--scope', 'project', '--data-dir', repo.dataDir];
    expect(needle(enableArgs, repo.root)).toMatch(/hooks +added/);
    const enabled = readFileSync(settingsFile(), 'utf8');
    expect(needle(enableArgs, repo.root)).toMatch(/hooks +unchanged/);
    expect(readFileSync(settingsFile(), 'utf8')).toBe(enabled);
    expect(JSON.parse(enabled).permissions).toEqual({ deny: ['Bash(rm:*)'] });

    const run = await runClient(
      (CLAUDE as { path: string }).path,
      ['-p', '--output-format', 'stream-json', '--verbose', '--', 'Where is --dry-run implemented?'],
      {
        cwd: repo.root,
        timeoutMs: 90_000,
        env: {
          ...claudeCodeEnv(home, mock),
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const main = mainRequests(mock);
    // SessionStart's note reaches the model in the first request.
    expect(sent(main[0]!)).toContain('Needle serves checked repository evidence');
    // The Stop hook blocked with the FrontierView: the next request carries it.
    expect(main.length).toBe(2);
    const second = sent(main[1]!);
    expect(second).toContain('[NEEDLE_CONTEXT route=locate.implementation subject=cli_option:--dry-run resolution=miss]');
    expect(second).toContain('src/cli.ts:');
    // The final answer ended the session: its own @@need block was not resolved (stop_hook_active).
    const result = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; result?: string }).find((e) => e.type === 'result');
    expect(result?.result).toContain('Final answer');

    // The same need from the shell is now a certified hit: the hook used the same store.
    const json = JSON.parse(needle(['context', '--route', 'locate.implementation', '--subject', 'cli_option:--dry-run', '--task', 'Where is --dry-run implemented?', '--json', '--data-dir', repo.dataDir], repo.root));
    expect(json.resolution.kind).toBe('exact_hit');
    expect(json.worker_spawned).toBe(false);

    expect(needle(['disable', '--client', 'claude-code', '--scope', 'project'], repo.root)).toMatch(/hooks +removed/);
    expect(readFileSync(settingsFile(), 'utf8')).toBe(USER_SETTINGS);
  }, 150_000);

  it('needle enable --mcp --hooks registers the server in .mcp.json: Claude Code offers need_context, the note names it, disable removes both', async () => {
    expect(needle(['enable', '--client', 'claude-code', '--scope', 'project', '--mcp', '--hooks', '--data-dir', repo.dataDir], repo.root)).toMatch(/mcp +added/);
    const before = mock.requests.length;
    const run = await runClient(
      (CLAUDE as { path: string }).path,
      ['-p', '--output-format', 'stream-json', '--verbose', '--', 'hello'],
      {
        cwd: repo.root,
        timeoutMs: 90_000,
        env: {
          ...claudeCodeEnv(home, mock),
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const first = mock.requests.slice(before).find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0)!;
    // Project .mcp.json servers load in -p mode without a prompt; the tool is deferred behind ToolSearch.
    expect(sent(first).includes('mcp__needle__need_context'), 'need_context offered').toBe(true);
    expect(sent(first).includes('call the need_context tool'), 'SessionStart note names the tool').toBe(true);
    needle(['disable', '--client', 'claude-code', '--scope', 'project'], repo.root);
    expect(existsSync(join(repo.root, '.mcp.json'))).toBe(false);
    expect(readFileSync(settingsFile(), 'utf8')).toBe(USER_SETTINGS);
  }, 150_000);
});
