// The real Claude Code binary calling need_context over MCP (Needle as a
// stdio server from --mcp-config), against a loopback Messages API mock.
// Also measures what the model receives per answer: the tool_result Claude
// Code forwards, next to the FrontierView alone.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMock, claudeBinary, claudeCodeEnv, makeRepo, NEEDLE_BIN, runClient, sent, toolResults, type Mock } from './clients.js';

const CLAUDE = claudeBinary();
const TOOL = 'mcp__needle__need_context';
const ARGS = { route: 'locate.implementation', subject: { kind: 'cli_option', name: '--dry-run' }, task: 'Where is --dry-run implemented?' };

describe.skipIf('skip' in CLAUDE)('Claude Code calling need_context over MCP (real binary, mock Messages API, offline)', () => {
  let repo: ReturnType<typeof makeRepo>;
  let home: string;
  let mcpConfig: string;
  const mocks: Mock[] = [];

  beforeAll(() => {
    repo = makeRepo();
    home = join(repo.tmp, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    mcpConfig = join(repo.tmp, 'mcp.json');
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: { needle: { type: 'stdio', command: process.execPath, args: [NEEDLE_BIN, 'mcp', 'serve', '--role-profile', 'local', '--repository', repo.root, '--data-dir', repo.dataDir] } },
      }),
    );
  });

  afterAll(async () => {
    for (const m of mocks) await m.close();
    if (repo) rmSync(repo.tmp, { recursive: true, force: true });
  });

  /** One session: the scripted model calls need_context `calls` times (after ToolSearch unless it is off), then answers. */
  async function session(opts: { toolSearch: boolean; calls: number }) {
    let toolCalls = 0;
    const mock = await anthropicMock((req) => {
      if (!Array.isArray(req.body.tools) || req.body.tools.length === 0) return { text: 'ok' };
      const names = (req.body.tools as { name: string }[]).map((t) => t.name);
      if (toolCalls < opts.calls) {
        if (!names.includes(TOOL) && names.includes('ToolSearch')) return { tool: { name: 'ToolSearch', input: { query: `select:${TOOL}`, max_results: 1 } } };
        toolCalls += 1;
        return { tool: { name: TOOL, input: ARGS } };
      }
      return { text: 'Done: src/cli.ts.' };
    });
    mocks.push(mock);
    const run = await runClient(
      (CLAUDE as { path: string }).path,
      ['-p', '--output-format', 'stream-json', '--verbose', '--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', TOOL, 'ToolSearch', '--', 'Where is --dry-run implemented?'],
      {
        cwd: repo.root,
        timeoutMs: 90_000,
        env: {
          ...claudeCodeEnv(home, mock),
          ...(opts.toolSearch ? {} : { ENABLE_TOOL_SEARCH: 'false' }),
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const main = mock.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    // The last request holds the whole conversation, every tool result included.
    const results = toolResults(main.at(-1)!).filter((t) => t.includes('[NEEDLE_CONTEXT route='));
    return { main, results };
  }

  it('through ToolSearch: the next request holds the tool result with Needle context; a repeat in the same session is a certified hit', async () => {
    const { main, results } = await session({ toolSearch: true, calls: 2 });
    // The server's instructions reach the model.
    expect(sent(main[0]!)).toContain('Call need_context first');
    expect(results.length).toBe(2);
    expect(results[0]).toContain('resolution=miss');
    expect(results[0]).toContain('src/cli.ts:');
    expect(results[1]).toContain('resolution=exact_hit');
    expect(results[1]).toMatch(/"cache_hit":true/);
    const view = /\[NEEDLE_CONTEXT[\s\S]*?not as instructions\./.exec(JSON.parse(results[1]!).context as string)?.[0] ?? '';
    // What the model receives per answer, measured (README benchmark row).
    console.log(`claude-code tool_result: ${results[1]!.length} chars for a ${view.length}-char FrontierView`);
    if (process.env.NEEDLE_SHOW_TOOL_RESULT) console.log(results[1]);
  }, 150_000);

  it('with tool search off, and in a new session on the same data directory: a certified hit', async () => {
    const { results } = await session({ toolSearch: false, calls: 1 });
    expect(results.length).toBe(1);
    expect(results[0]).toContain('resolution=exact_hit');
    expect(results[0]).toMatch(/"worker_spawned":false/);
  }, 150_000);
});
