// The real Codex binary (npm @openai/codex) in `codex exec` against a
// loopback mock of the Responses API, with Needle's hooks written into
// $CODEX_HOME/hooks.json by `needle enable --client codex`.
import { readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexBinary, makeRepo, mockCodexConfig, needle, responsesMock, runClient, sent, type Mock } from './clients.js';

const CODEX = codexBinary();
if ('skip' in CODEX) console.warn(`skipping Codex hook tests: ${CODEX.skip}`);

const NEED_BLOCK = ['I need evidence first.', '@@need', '@route locate.implementation', '@subject cli_option:--dry-run', '', 'Where is --dry-run implemented?', '@@end'].join('\n');

describe.skipIf('skip' in CODEX)('Codex with Needle hooks (real codex exec, mock Responses API, offline)', () => {
  let repo: ReturnType<typeof makeRepo>;
  let mock: Mock;
  let codexHome: string;
  let config: string;

  beforeAll(async () => {
    repo = makeRepo();
    codexHome = join(repo.tmp, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    mock = await responsesMock((req) =>
      sent(req).includes('[NEEDLE_CONTEXT route=') ? `Final answer: src/cli.ts handles it.\n${NEED_BLOCK}` : NEED_BLOCK,
    );
    config = mockCodexConfig(mock.port);
    writeFileSync(join(codexHome, 'config.toml'), config);
  });

  afterAll(async () => {
    await mock?.close();
    if (repo) rmSync(repo.tmp, { recursive: true, force: true });
  });

  it('needle enable writes hooks.json; the Stop hook continues the turn with the FrontierView; stop_hook_active ends it; disable removes the file', async () => {
    const env = { ...process.env, CODEX_HOME: codexHome };
    expect(needle(['enable', '--client', 'codex', '--data-dir', repo.dataDir], repo.root, env)).toMatch(/hooks +added/);
    expect(needle(['enable', '--client', 'codex', '--data-dir', repo.dataDir], repo.root, env)).toMatch(/hooks +unchanged/);
    expect(needle(['status'], repo.root, env)).toMatch(/codex user: hooks session-start, stop/);

    const run = await runClient(
      (CODEX as { path: string }).path,
      ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', '--', 'Where is --dry-run implemented?'],
      { cwd: repo.root, timeoutMs: 90_000, env: { PATH: process.env.PATH ?? '', HOME: join(repo.tmp, 'home'), CODEX_HOME: codexHome } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(mock.requests.length).toBe(2);
    expect(sent(mock.requests[0]!)).toContain('Needle serves checked repository evidence');
    const second = sent(mock.requests[1]!);
    expect(second).toContain('[NEEDLE_CONTEXT route=locate.implementation subject=cli_option:--dry-run resolution=miss]');
    expect(second).toContain('src/cli.ts:');
    const messages = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; item?: { type: string; text?: string } });
    expect(messages.filter((m) => m.item?.type === 'agent_message').at(-1)?.item?.text).toContain('Final answer');

    expect(needle(['disable', '--client', 'codex'], repo.root, env)).toMatch(/hooks +removed/);
    expect(existsSync(join(codexHome, 'hooks.json'))).toBe(false);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(config);
  }, 150_000);

  it('needle enable --mcp adds a marked [mcp_servers.needle] block to config.toml that codex exec serves; disable takes exactly it out', async () => {
    const env = { ...process.env, CODEX_HOME: codexHome };
    expect(needle(['enable', '--client', 'codex', '--mcp', '--data-dir', repo.dataDir], repo.root, env)).toMatch(/mcp +added/);
    const toml = readFileSync(join(codexHome, 'config.toml'), 'utf8');
    expect(toml.startsWith(config)).toBe(true);
    expect(toml).toContain('[mcp_servers.needle]');
    expect(needle(['enable', '--client', 'codex', '--mcp', '--data-dir', repo.dataDir], repo.root, env)).toMatch(/mcp +unchanged/);
    // codex exec starts the server from the block and offers its tool to the model.
    const before = mock.requests.length;
    const run = await runClient(
      (CODEX as { path: string }).path,
      ['exec', '--json', '--skip-git-repo-check', '--', 'hello'],
      { cwd: repo.root, timeoutMs: 90_000, env: { PATH: process.env.PATH ?? '', HOME: join(repo.tmp, 'home'), CODEX_HOME: codexHome } },
    );
    expect(run.code, run.stderr).toBe(0);
    const tools = JSON.stringify(mock.requests[before]?.body.tools ?? []);
    expect(tools.includes('need_context'), `need_context offered; codex said: ${run.stdout.slice(-600)}`).toBe(true);
    needle(['disable', '--client', 'codex'], repo.root, env);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(config);
  }, 150_000);
});
