// The built `needle` binary: commands, help, argument errors (one line, exit
// 2, credentials never echoed), data-dir precedence and the serve startup.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDataDir } from '../../src/cli/args.js';
import { CLI, cleanupAll, makeRepo, requireBuild, tempDir } from '../mcp/fixtures.js';

let repo: string;
beforeAll(() => {
  requireBuild();
  repo = makeRepo();
});
afterAll(cleanupAll);

function needle(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
  const env = { ...process.env, NEEDLE_DATA_DIR: '', XDG_DATA_HOME: '', ...opts.env };
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: opts.cwd ?? repo, env, input: opts.input ?? '', encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

describe('help and version', () => {
  it('prints the version and the command list', () => {
    expect(needle(['--version'])).toMatchObject({ code: 0, stdout: 'needle 0.1.0\n' });
    const help = needle(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['init', 'mcp serve', 'doctor', 'profile list', 'profile show']) expect(help.stdout).toContain(c);
  });

  it('prints --help for every command and exits 0', () => {
    for (const words of [['init'], ['mcp', 'serve'], ['doctor'], ['profile', 'list'], ['profile', 'show']]) {
      const r = needle([...words, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: needle ${words.join(' ')}`));
    }
  });
});

describe('argument errors: one line on stderr, exit 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['missing role profile', ['mcp', 'serve'], /^needle: missing --role-profile/],
    ['unknown option', ['mcp', 'serve', '--role-profile', 'local', '--bogus'], /^needle: unknown option `--bogus`/],
    ['value missing', ['mcp', 'serve', '--role-profile', 'local', '--data-dir'], /^needle: --data-dir requires a value/],
    ['boolean given a value', ['mcp', 'serve', '--role-profile', 'local', '--cache-only=yes'], /^needle: --cache-only does not take a value/],
    ['malformed profile id', ['mcp', 'serve', '--role-profile', '../etc'], /^needle: --role-profile must be 1-64 characters/],
    ['malformed model', ['mcp', 'serve', '--role-profile', 'local', '--main-model', 'gpt 5'], /^needle: --main-model must be 1-64 characters/],
    ['unexpected positional', ['init', 'extra'], /^needle: unexpected argument `extra`/],
    ['unknown command', ['frobnicate'], /^needle: unknown command `frobnicate`/],
  ];
  for (const [name, args, message] of cases)
    it(name, () => {
      const r = needle(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    });

  it('refuses credential-looking values without echoing them', () => {
    for (const args of [
      ['mcp', 'serve', '--role-profile', TOKEN],
      ['mcp', 'serve', '--role-profile', 'local', '--main-model', 'sk-proj-abcdefghijklmnop'],
      ['mcp', 'serve', '--role-profile', 'local', `--${TOKEN}`],
      ['profile', 'show', TOKEN.toLowerCase()],
      ['init', TOKEN],
      [TOKEN],
    ]) {
      const r = needle(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.toLowerCase()).not.toContain('a1b2c3d4');
      expect(r.stderr).not.toContain('abcdefghijklmnop');
    }
  });
});

describe('init, profile, doctor', () => {
  it('initializes once and lists and shows the built-in profile', () => {
    const dir = join(tempDir(), 'data');
    expect(needle(['init', '--data-dir', dir]).stdout).toMatch(/^initialized .* \(active role profile: local\)/);
    expect(needle(['init', '--data-dir', dir]).stdout).toMatch(/is already initialized/);
    expect(needle(['profile', 'list', '--data-dir', dir]).stdout).toMatch(/^local {2}b3:[0-9a-f]{64} {2}1 revision\(s\)\n$/);
    const show = JSON.parse(needle(['profile', 'show', '--data-dir', dir]).stdout);
    expect(show.document).toEqual({ explorer: [{ adapter: 'static' }], implementer: null, verifier: null, test_execution: 'untrusted', require_sandbox: false });
    const missing = needle(['profile', 'show', 'nobody', '--data-dir', dir]);
    expect(missing).toMatchObject({ code: 2, stderr: 'needle: role profile nobody does not exist; see needle profile list\n' });
  });

  it('doctor reports database, git, repository, sandbox and workers; never creates a data dir', () => {
    const fresh = join(tempDir(), 'never');
    const before = needle(['doctor', '--data-dir', fresh, '--json']);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout).checks[0]).toMatchObject({ area: 'database', level: 'warn' });
    expect(existsSync(fresh)).toBe(false);
    const dir = join(tempDir(), 'data');
    needle(['init', '--data-dir', dir]);
    const r = needle(['doctor', '--data-dir', dir]);
    expect(r.code).toBe(0);
    for (const area of ['database', 'routes', 'profile', 'explorer[0]', 'implementer', 'verifier', 'git', 'repository', 'sandbox'])
      expect(r.stdout).toMatch(new RegExp(`^(ok|warn) +${area.replace(/[[\]]/g, '\\$&')} `, 'm'));
  });
});

describe('mcp serve startup', () => {
  it('initializes a never-initialized data dir from NEEDLE_DATA_DIR, says so on stderr, exits 0 at EOF', () => {
    const dir = join(tempDir(), 'env-data');
    const r = needle(['mcp', 'serve', '--role-profile', 'local'], { env: { NEEDLE_DATA_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/initialized new data directory .*env-data/);
    expect(r.stdout).toBe('');
    expect(existsSync(join(dir, 'needle.sqlite3'))).toBe(true);
  });

  it('refuses a directory outside any git work tree with one line and exit 2', () => {
    const outside = tempDir();
    const r = needle(['mcp', 'serve', '--role-profile', 'local', '--data-dir', join(outside, 'd')], { cwd: outside });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^needle: repository .* is not inside a git work tree/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses an unknown role profile with exit 2', () => {
    const r = needle(['mcp', 'serve', '--role-profile', 'team', '--data-dir', join(tempDir(), 'd')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/role profile team does not exist/);
  });

  it('serves from a subdirectory of the repository', () => {
    const sub = join(repo, 'src');
    mkdirSync(sub, { recursive: true });
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    const r = needle(['mcp', 'serve', '--role-profile', 'local', '--data-dir', join(tempDir(), 'd')], { cwd: sub, input: `${init}\n` });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result.protocolVersion).toBe('2025-06-18');
  });
});

describe('data dir precedence', () => {
  it('flag, then NEEDLE_DATA_DIR, then $XDG_DATA_HOME/needle, then ~/.local/share/needle', () => {
    const env = { NEEDLE_DATA_DIR: '/env/needle', XDG_DATA_HOME: '/xdg', HOME: '/home/u' };
    expect(resolveDataDir('rel/dir', env, '/cwd')).toBe('/cwd/rel/dir');
    expect(resolveDataDir(undefined, env, '/cwd')).toBe('/env/needle');
    expect(resolveDataDir(undefined, { ...env, NEEDLE_DATA_DIR: '' }, '/cwd')).toBe('/xdg/needle');
    expect(resolveDataDir(undefined, { HOME: '/home/u' }, '/cwd')).toBe('/home/u/.local/share/needle');
  });
});
