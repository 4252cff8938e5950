// The Needs page's repository filter sees every transport: one data directory,
// three repositories, a need asked in each through a different door — the
// one-shot `needle context` (no session row), the MCP server over stdio and a
// Claude Code Stop hook — each listed under its own repository and no other.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRepositoryRoot } from '../../src/repo/snapshot.js';
import { startUi, type UiServer } from '../../src/ui/server.js';
import { callNeed, cleanupAll, CLI, LOCATE_ARGS, makeRepo, requireBuild, ServerProcess, tempDir } from '../mcp/fixtures.js';
import { raw } from './fixture.js';

let dataDir: string;
const repos = { cli: '', mcp: '', hook: '' };
let ui: UiServer;

function needle(args: string[], cwd: string, input?: string): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 60_000, ...(input !== undefined ? { input } : {}) });
  if (r.status !== 0) throw new Error(`needle ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  requireBuild();
  dataDir = tempDir('needle-data-');
  for (const k of Object.keys(repos) as (keyof typeof repos)[]) repos[k] = findRepositoryRoot(makeRepo());

  const cli = needle(['context', '--route', 'locate.implementation', '--subject', 'cli_option:--dry-run', '--data-dir', dataDir, '--repository', repos.cli], repos.cli);
  expect(cli).toContain('[NEEDLE_CONTEXT route=locate.implementation');

  const server = new ServerProcess({ repo: repos.mcp, dataDir });
  await server.initialize();
  const reply = await server.request(callNeed(1, LOCATE_ARGS));
  expect(JSON.stringify(reply)).toContain('NEEDLE_CONTEXT');
  expect(await server.close()).toBe(0);

  const stop = JSON.stringify({
    session_id: 'hook-session',
    cwd: repos.hook,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: '@@need\n@route locate.implementation\n@subject cli_option:--dry-run\n\nwhere is it declared?\n@@end',
  });
  const hook = JSON.parse(needle(['hook', 'stop', '--client', 'claude-code', '--data-dir', dataDir], repos.hook, stop)) as { reason?: string };
  expect(hook.reason).toContain('[NEEDLE_CONTEXT route=locate.implementation');

  ui = await startUi({ dataDir, repository: null });
}, 180_000);

afterAll(async () => {
  await ui?.close();
  cleanupAll();
});

describe('the Needs page filters by repository for every transport', () => {
  it('offers each repository a need was asked in, and lists each need only under its own', async () => {
    const first = await raw(ui.port, 'GET', `/?token=${ui.token}`, { host: `127.0.0.1:${ui.port}` });
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    const get = async (path: string) => {
      const r = await raw(ui.port, 'GET', path, { host: `127.0.0.1:${ui.port}`, cookie });
      expect(r.status, path).toBe(200);
      return r.body;
    };
    const all = JSON.parse(await get('/api/needs')) as { facets: { repositories: string[] }; rows: { id: number; repository: string | null }[] };
    expect(all.rows).toHaveLength(3);
    expect(all.facets.repositories).toEqual([repos.cli, repos.mcp, repos.hook].sort());
    for (const [transport, repo] of Object.entries(repos)) {
      const page = JSON.parse(await get(`/api/needs?repository=${encodeURIComponent(repo)}`)) as { rows: { id: number; repository: string; route: string; subject: string }[] };
      expect(page.rows, transport).toHaveLength(1);
      expect(page.rows[0], transport).toMatchObject({ repository: repo, route: 'locate.implementation', subject: 'cli_option:--dry-run' });
      // What the user sees: the filter offers the repository, and the need's page names it.
      const html = await get(`/needs?repository=${encodeURIComponent(repo)}`);
      expect(html, transport).toContain(`<option value="${repo}" selected>`);
      expect(html.match(/<a href="\/needs\/\d+">/g), transport).toHaveLength(1);
      expect(await get(`/needs/${page.rows[0]!.id}`), transport).toContain(`<dt>repository</dt><dd class="mono">${repo}</dd>`);
    }
    const none = JSON.parse(await get(`/api/needs?repository=${encodeURIComponent('/no/such/repository')}`)) as { rows: unknown[] };
    expect(none.rows).toEqual([]);
  });
});
