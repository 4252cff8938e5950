// `needle profile create|activate`: immutable revisions from a JSON file, the
// first revision active, later ones only on request; bad documents and
// credential-looking values refused without echo and without a stored row.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanupAll, makeRepo, requireBuild, tempDir } from '../mcp/fixtures.js';

let repo: string;
let data: string;
beforeAll(() => {
  requireBuild();
  repo = makeRepo();
  data = tempDir();
});
afterAll(cleanupAll);

function needle(args: string[], input = '') {
  const r = spawnSync(process.execPath, [CLI, ...args, '--data-dir', data], { cwd: repo, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ladder = {
  explorer: [{ adapter: 'static' }, { adapter: 'codex', model: 'gpt-5.1-codex-mini', reasoning_effort: 'low', timeout_ms: 120000 }],
  implementer: null,
  verifier: null,
  test_execution: 'untrusted',
  require_sandbox: false,
  pricing: [{ model: 'gpt-5.1-codex-mini', input_usd_per_mtok: 0.25, cached_input_usd_per_mtok: 0.025, output_usd_per_mtok: 2 }],
};

function writeProfile(name: string, doc: unknown): string {
  const file = join(data, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe('needle profile create / activate', () => {
  it('creates a new profile whose first revision is active, then activates a later one on request', () => {
    expect(needle(['init']).code).toBe(0);
    const first = needle(['profile', 'create', 'ladder', '--file', writeProfile('a', ladder)]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^ladder b3:[0-9a-f]{64} \(active\)\n$/);
    const digest1 = first.stdout.split(' ')[1]!;

    const second = needle(['profile', 'create', 'ladder', '--file', writeProfile('b', { ...ladder, test_execution: 'trusted' })]);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toContain('(active)');
    const shown = JSON.parse(needle(['profile', 'show', 'ladder']).stdout);
    expect(shown.digest).toBe(digest1);

    expect(needle(['profile', 'activate', 'ladder']).code).toBe(0);
    expect(JSON.parse(needle(['profile', 'show', 'ladder']).stdout).document.test_execution).toBe('trusted');
    expect(needle(['profile', 'activate', 'ladder', '--revision', digest1]).code).toBe(0);
    expect(JSON.parse(needle(['profile', 'show', 'ladder']).stdout).digest).toBe(digest1);
    expect(needle(['profile', 'list']).stdout).toMatch(/^ladder {2}b3:[0-9a-f]{64} {2}2 revision\(s\)$/m);
  });

  it('refuses an invalid document naming the field, and stores nothing', () => {
    const r = needle(['profile', 'create', 'broken', '--file', writeProfile('c', { ...ladder, explorer: [{ adapter: 'gpt' }] })]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('profile.explorer[0].adapter');
    expect(needle(['profile', 'show', 'broken']).code).toBe(2);
  });

  it('refuses a credential pasted into the document without echoing it', () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const doc = { ...ladder, verifier: { adapter: 'command', argv: ['agent', '--api-key', secret], prompt: 'stdin' } };
    const r = needle(['profile', 'create', 'leaky', '--file', writeProfile('d', doc)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('profile.verifier.argv[2] looks like it contains a credential');
    expect(r.stderr + r.stdout).not.toContain(secret);
    expect(needle(['profile', 'show', 'leaky']).code).toBe(2);
  });

  it('reads the document from stdin and rejects unreadable input in one line', () => {
    expect(needle(['profile', 'create', 'piped', '--file', '-'], JSON.stringify(ladder)).code).toBe(0);
    const bad = needle(['profile', 'create', 'x', '--file', '-'], '{not json');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^needle: - is not valid JSON/);
    expect(needle(['profile', 'activate', 'nope']).stderr).toMatch(/^needle: role profile nope does not exist/);
  });
});
