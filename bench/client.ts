// `npm run bench -- client`: what the model receives per answer through the
// real Claude Code. A loopback Messages API mock scripts the model to call
// need_context twice in one session (the first answer is generated, the
// repeat a certified hit); the last request holds both tool results exactly
// as Claude Code forwards them (JSON.stringify of structuredContent), next to
// the FrontierView alone (the `context` field, what the hook transport sends).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anthropicMock, claudeBinary, claudeCodeEnv, makeRepo, NEEDLE_BIN, runClient, toolResults } from './clients.js';

const TOOL = 'mcp__needle__need_context';
const ARGS = { route: 'locate.implementation', subject: { kind: 'cli_option', name: '--dry-run' }, task: 'Where is --dry-run implemented?' };
const DIGEST = /"b3:[0-9a-f]{64}"/g;

export interface AnswerSize {
  readonly answer: string;
  readonly forwarded: number;
  readonly view: number;
  /** Characters of the b3: digests (quotes included) in what is forwarded. */
  readonly digests: number;
  readonly digestCount: number;
}

/** Runs one Claude Code session; the sizes of its two need_context answers. */
export async function measureClaudeCode(): Promise<{ sizes: AnswerSize[]; sample: string } | { skip: string }> {
  const claude = claudeBinary();
  if ('skip' in claude) return claude;
  const repo = makeRepo();
  let calls = 0;
  const mock = await anthropicMock((req) => {
    if (!Array.isArray(req.body.tools) || req.body.tools.length === 0) return { text: 'ok' };
    if (calls < 2) {
      calls += 1;
      return { tool: { name: TOOL, input: ARGS } };
    }
    return { text: 'Done: src/cli.ts.' };
  });
  try {
    const home = join(repo.tmp, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const mcpConfig = join(repo.tmp, 'mcp.json');
    writeFileSync(
      mcpConfig,
      JSON.stringify({ mcpServers: { needle: { type: 'stdio', command: process.execPath, args: [NEEDLE_BIN, 'mcp', 'serve', '--role-profile', 'local', '--repository', repo.root, '--data-dir', repo.dataDir] } } }),
    );
    const run = await runClient(
      claude.path,
      ['-p', '--output-format', 'stream-json', '--verbose', '--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', TOOL, '--', 'Where is --dry-run implemented?'],
      {
        cwd: repo.root,
        timeoutMs: 120_000,
        env: {
          ...claudeCodeEnv(home, mock),
          ENABLE_TOOL_SEARCH: 'false',
        },
      },
    );
    if (run.code !== 0) throw new Error(`claude exited ${run.code}: ${run.stderr.split('\n', 1)[0]}`);
    const main = mock.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    const results = toolResults(main.at(-1)!).filter((t) => t.includes('[NEEDLE_CONTEXT route='));
    if (results.length !== 2) throw new Error(`expected 2 need_context results, the model received ${results.length}`);
    const sizes = results.map((text, i): AnswerSize => {
      const structured = JSON.parse(text) as { context: string; status: string; resolution: { kind: string } };
      const digests = text.match(DIGEST) ?? [];
      return {
        answer: `${i === 0 ? 'first call' : 'repeat in the session'} (${structured.status}, ${structured.resolution.kind})`,
        forwarded: text.length,
        view: structured.context.length,
        digests: digests.join('').length,
        digestCount: digests.length,
      };
    });
    return { sizes, sample: results[1]! };
  } finally {
    await mock.close();
    rmSync(repo.tmp, { recursive: true, force: true });
  }
}

const tokens = (chars: number): number => Math.round(chars / 4);

export function clientTable(sizes: readonly AnswerSize[]): string {
  const rows = sizes.map(
    (s) =>
      `| ${s.answer} | ${s.forwarded} chars ≈ ${tokens(s.forwarded)} tokens | ${s.view} chars ≈ ${tokens(s.view)} tokens | ${s.digestCount} digests, ${s.digests} chars |`,
  );
  return [
    '| what the model receives per answer (Claude Code, `locate.implementation` of a CLI option) | tool result as Claude Code forwards it | FrontierView alone (hook transport) | of which contract digests |',
    '|---|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
