// `needle hook` as the clients run it: one process per event, the session's
// ledger in the store, bad input never failing the client's turn.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, needle, NEEDLE_BIN } from './clients.js';

let repo: ReturnType<typeof makeRepo>;
beforeAll(() => {
  repo = makeRepo();
});
afterAll(() => rmSync(repo.tmp, { recursive: true, force: true }));

function hook(event: string, input: string, client = 'claude-code') {
  const r = spawnSync(process.execPath, [NEEDLE_BIN, 'hook', event, '--client', client, '--data-dir', repo.dataDir], {
    cwd: repo.root,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: JSON.parse(r.stdout) as { decision?: string; reason?: string; hookSpecificOutput?: { additionalContext: string } }, err: r.stderr };
}

const stop = (session: string, subject: string) =>
  JSON.stringify({ session_id: session, cwd: repo.root, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: `@@need\n@route locate.implementation\n@subject ${subject}\n\nwhere?\n@@end` });

describe('needle hook', () => {
  it('answers SessionStart with the note, and bad input with {} and one line on stderr (exit 0)', () => {
    const start = hook('session-start', JSON.stringify({ session_id: 's', cwd: repo.root, hook_event_name: 'SessionStart', source: 'startup' }), 'codex');
    expect(start.out.hookSpecificOutput?.additionalContext).toContain('@@need');
    const bad = hook('stop', '{"session_id": 1}');
    expect(bad).toMatchObject({ code: 0, out: {} });
    expect(bad.err.trim().split('\n')).toHaveLength(1);
  });

  it('bounds needs per client session: past the profile limit (3) a block is answered with a bypass, a new session starts again', () => {
    const answers = ['cli_option:--dry-run', 'symbol:main', 'cli_option:--dry-run', 'symbol:main'].map((s) => hook('stop', stop('limited', s)).out.reason ?? '');
    expect(answers[0]).toContain('resolution=miss');
    expect(answers[2]).toContain('resolution=exact_hit');
    expect(answers[3]).toMatch(/need limit of this session is reached/);
    expect(hook('stop', stop('another', 'symbol:main')).out.reason).toContain('resolution=exact_hit');
  });
});

describe('needle enable run again with other options, then disable', () => {
  it('gives back the original bytes of a file that existed, and removes a file enable created', () => {
    const home = join(repo.tmp, 'enable-twice');
    mkdirSync(join(home, '.claude'), { recursive: true });
    const original = '{ "permissions": { "allow": ["Read"] } }\n';
    writeFileSync(join(home, '.claude', 'settings.json'), original);
    const env = { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex') };
    for (const client of ['claude-code', 'codex']) {
      const scope = ['--client', client, '--scope', 'user'];
      expect(needle(['enable', ...scope, '--data-dir', join(home, 'a')], repo.root, env)).toMatch(/hooks +added/);
      expect(needle(['enable', ...scope, '--data-dir', join(home, 'b')], repo.root, env)).toMatch(/hooks +updated/);
      expect(needle(['disable', ...scope], repo.root, env)).toMatch(/hooks +removed/);
    }
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe(original);
    expect(existsSync(join(home, '.codex', 'hooks.json'))).toBe(false);
    expect(existsSync(join(home, '.codex', 'hooks.json.needle-backup'))).toBe(false);
  });
});
