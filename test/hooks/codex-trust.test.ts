// Codex hook trust and the Codex project scope with the real binary (npm
// @openai/codex, `codex exec` against a loopback Responses API mock, offline).
// Codex runs a hook only once it is trusted and reads a repository's .codex/
// only in a trusted project; `needle status` asks Codex which is the case.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexBinary, makeRepo, mockCodexConfig, needle, responsesMock, runClient, sent, trustCodexHooks, type Mock } from './clients.js';

const CODEX = codexBinary();
if ('skip' in CODEX) console.warn(`skipping Codex trust tests: ${CODEX.skip}`);

const NEED_BLOCK = ['I need evidence first.', '@@need', '@route locate.implementation', '@subject cli_option:--dry-run', '', 'Where is --dry-run implemented?', '@@end'].join('\n');

describe.skipIf('skip' in CODEX)('Codex hook trust and project scope (real codex, mock Responses API, offline)', () => {
  const codex = (CODEX as { path: string }).path;
  let repo: ReturnType<typeof makeRepo>;
  let mock: Mock;
  let codexHome: string;
  let env: NodeJS.ProcessEnv;
  let config: string;

  beforeAll(async () => {
    repo = makeRepo();
    codexHome = join(repo.tmp, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    mock = await responsesMock((req) => (sent(req).includes('[NEEDLE_CONTEXT route=') ? 'Final answer: src/cli.ts handles it.' : NEED_BLOCK));
    config = mockCodexConfig(mock.port);
    writeFileSync(join(codexHome, 'config.toml'), config);
    env = { PATH: process.env.PATH ?? '', HOME: join(repo.tmp, 'home'), CODEX_HOME: codexHome };
  });

  afterAll(async () => {
    await mock?.close();
    if (repo) rmSync(repo.tmp, { recursive: true, force: true });
  });

  /** One `codex exec` turn without any trust bypass; whether Needle's Stop hook answered the @@need block. */
  async function turn(extra: string[] = []): Promise<{ resolved: boolean; tools: string }> {
    const before = mock.requests.length;
    const run = await runClient(codex, ['exec', '--json', ...extra, '--', 'Where is --dry-run implemented?'], { cwd: repo.root, timeoutMs: 90_000, env });
    expect(run.code, run.stderr).toBe(0);
    const mine = mock.requests.slice(before);
    // Codex may send its first request before a slow MCP server has listed its tools: any request of the turn counts.
    return { resolved: mine.some((r) => sent(r).includes('[NEEDLE_CONTEXT route=locate.implementation')), tools: JSON.stringify(mine.map((r) => r.body.tools ?? [])) };
  }

  const status = (): string => needle(['status', '--codex', codex], repo.root, env);
  const line = (text: string, scope: string): string => text.split('\n').find((l) => l.startsWith(`codex ${scope}:`)) ?? '';

  it('user scope: status says not trusted (and codex exec skips the hooks), trusted once the user trusted them, changed after a new enable, unknown without codex', async () => {
    needle(['enable', '--client', 'codex', '--data-dir', repo.dataDir], repo.root, env);
    expect(line(status(), 'user')).toMatch(/hooks session-start, stop .*not trusted by Codex \(new; .*approve them in \/hooks/);
    expect((await turn()).resolved).toBe(false);

    expect(await trustCodexHooks(codex, repo.root, env)).toBe(2);
    expect(line(status(), 'user')).toMatch(/trusted by Codex; mcp off/);
    expect(line(status(), 'user')).not.toMatch(/not trusted/);
    expect((await turn()).resolved).toBe(true);

    // A different hook command is a different hash: Codex wants a new review.
    needle(['enable', '--client', 'codex', '--data-dir', join(repo.tmp, 'other-data')], repo.root, env);
    expect(line(status(), 'user')).toMatch(/not trusted by Codex \(changed since you trusted them/);
    expect(line(needle(['status', '--codex', join(repo.tmp, 'no-codex')], repo.root, env), 'user')).toMatch(/trust unknown \(cannot start .*no-codex app-server/);

    needle(['disable', '--client', 'codex'], repo.root, env);
    expect(existsSync(join(codexHome, 'hooks.json')), existsSync(join(codexHome, 'hooks.json')) ? readFileSync(join(codexHome, 'hooks.json'), 'utf8') + readdirSync(codexHome).join(' ') : '').toBe(false);
  }, 300_000);

  it('project scope: .codex/hooks.json and .codex/config.toml in the repository; loaded once the project and the hooks are trusted; disable leaves the repository as it was', async () => {
    expect(needle(['enable', '--client', 'codex', '--scope', 'project', '--mcp', '--hooks', '--data-dir', repo.dataDir], repo.root, env)).toMatch(/hooks +added .*\.codex\/hooks\.json[\s\S]*mcp +added .*\.codex\/config\.toml/);
    expect(line(status(), 'project')).toMatch(/hooks session-start, stop .*not loaded by Codex\. Codex reads .*\.codex only in a trusted project/);
    expect(line(status(), 'project')).toMatch(/mcp on/);
    // An untrusted project: neither the hooks nor the MCP server.
    const untrusted = await turn();
    expect(untrusted.resolved).toBe(false);
    expect(untrusted.tools).not.toContain('need_context');

    // `codex exec --trust` records the project as trusted; the hooks still need their own review.
    await turn(['--trust']);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toContain(`[projects."${repo.root}"]`);
    expect(line(status(), 'project')).toMatch(/not trusted by Codex \(new/);
    expect(await trustCodexHooks(codex, repo.root, env)).toBe(2);
    expect(line(status(), 'project')).toMatch(/trusted by Codex; mcp on/);
    const trusted = await turn();
    expect(trusted.resolved).toBe(true);
    expect(trusted.tools).toContain('need_context');

    expect(needle(['disable', '--client', 'codex', '--scope', 'project'], repo.root, env)).toMatch(/hooks +removed[\s\S]*mcp +removed/);
    expect(existsSync(join(repo.root, '.codex'))).toBe(false);
    expect(line(status(), 'project')).toMatch(/hooks off .*mcp off/);
  }, 300_000);
});
