// Hooks inherit the client's whole environment, API keys included. A Stop
// hook that has to run a model worker (a codex explorer against a loopback
// Responses mock) hands that worker only its allowlist: the scripted model
// runs `env` in the worker and the output it gets back holds no canary.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexBinary, makeRepo, needle, NEEDLE_BIN, responsesMock, runClient, type Mock } from './clients.js';

const CODEX = codexBinary();
const CANARY = 'needle-canary-7f3a9c1e5b';

describe.skipIf('skip' in CODEX)('the client environment never reaches a Needle worker started by a hook', () => {
  let repo: ReturnType<typeof makeRepo>;
  let mock: Mock;

  beforeAll(async () => {
    repo = makeRepo();
    // First request: the worker's model runs `env`; later ones: a final message (not valid evidence; that is fine here).
    mock = await responsesMock((_req, n) => (n === 1 ? { exec: 'echo ENV-BEGIN; env; echo ENV-END' } : '{"implementation_location":null}'));
    const port = mock.port;
    writeFileSync(
      join(repo.tmp, 'ladder.json'),
      JSON.stringify({
        explorer: [
          { adapter: 'static' },
          { adapter: 'codex', model: 'gpt-mock', reasoning_effort: 'low', timeout_ms: 60_000, provider: { name: 'mock', base_url: `http://127.0.0.1:${port}/v1`, env_key: 'NEEDLE_MOCK_MODEL_KEY' } },
        ],
        implementer: null,
        verifier: null,
        test_execution: 'untrusted',
        require_sandbox: false,
      }),
    );
    needle(['profile', 'create', 'ladder', '--file', join(repo.tmp, 'ladder.json'), '--data-dir', repo.dataDir], repo.root);
  });

  afterAll(async () => {
    await mock?.close();
    if (repo) rmSync(repo.tmp, { recursive: true, force: true });
  });

  it('runs the codex explorer for a need the static worker cannot answer; no canary in what the worker saw or sent', async () => {
    const payload = {
      session_id: 'canary-session',
      cwd: repo.root,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: '@@need\n@route locate.implementation\n@subject symbol:uploadManifest\n\nWhere is uploadManifest?\n@@end',
    };
    // Asynchronously: the mock model lives in this process.
    const r = await runClient(process.execPath, [NEEDLE_BIN, 'hook', 'stop', '--client', 'claude-code', '--data-dir', repo.dataDir, '--role-profile', 'ladder'], {
      cwd: repo.root,
      input: JSON.stringify(payload),
      timeoutMs: 120_000,
      env: { ...process.env, ANTHROPIC_API_KEY: CANARY, NEEDLE_CANARY_SECRET: CANARY, NEEDLE_MOCK_MODEL_KEY: 'sk-mock-run-time' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).decision, r.stdout + r.stderr).toBe('block');
    if (process.env.NEEDLE_SHOW_HOOK) console.log(r.stdout, r.stderr);
    expect(mock.requests.length).toBeGreaterThan(0);
    // The worker's model ran `env` and got its output back: only then does the absence of the canary mean something.
    expect(mock.requests.some((req) => /ENV-BEGIN[\s\S]*PATH=/.test(JSON.stringify(req.body)))).toBe(true);
    for (const req of mock.requests) expect(JSON.stringify(req.body)).not.toContain(CANARY);
    for (const req of mock.requests) expect(JSON.stringify(req.headers)).not.toContain(CANARY);
  }, 150_000);
});
