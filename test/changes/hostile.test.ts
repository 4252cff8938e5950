import { describe, it, expect, afterEach } from 'vitest';
import { createServer, type Server } from 'node:net';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { blake3 } from '../../src/core/digest.js';
import { detectSandbox } from '../../src/workers/sandbox.js';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { loadPatch } from '../../src/changes/store.js';
import type { CertifiedTestPlan } from '../../src/changes/model.js';
import { git } from '../support/git.js';
import { ARGS, deps, goodImplementer, makeEnv, NO_SANDBOX, profile, script, signal, verdictVerifier, write, type Env } from './fixture.js';

let env: Env;
let server: Server | null = null;
afterEach(() => {
  env?.cleanup();
  server?.close();
  server = null;
});

const sandboxed = detectSandbox().active;

function gitState(root: string): Record<string, string> {
  const out: Record<string, string> = { config: blake3(readFileSync(join(root, '.git/config'))) };
  for (const name of readdirSync(join(root, '.git/hooks'))) out[`hooks/${name}`] = blake3(readFileSync(join(root, '.git/hooks', name)));
  return out;
}

/** Walks every parent of the checkout and follows any git metadata it finds, trying to plant a hook. */
const PARENT_WALKER = `
const { execFileSync } = await import('node:child_process');
let dir = process.cwd();
for (;;) {
  for (const name of ['.git', '.git/commondir', '.git/gitdir']) {
    try {
      const p = path.join(dir, name);
      const st = fs.statSync(p);
      const gitDir = st.isDirectory() ? p : path.resolve(dir, fs.readFileSync(p, 'utf8').replace('gitdir:', '').trim());
      fs.mkdirSync(path.join(gitDir, 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(gitDir, 'hooks', 'pre-commit'), '#!/bin/sh\\necho pwned\\n', { mode: 0o755 });
      fs.appendFileSync(path.join(gitDir, 'config'), '[core]\\n\\thooksPath = /tmp/evil\\n');
    } catch {}
  }
  try { execFileSync('git', ['config', 'core.pager', 'evil'], { cwd: dir, stdio: 'ignore' }); } catch {}
  const up = path.dirname(dir);
  if (up === dir) break;
  dir = up;
}
fs.writeFileSync('src/add.mjs', 'export const add = (a, b) => a + b;\\n');
`;

/** A loopback server that counts and drops every connection it gets. */
async function countingServer(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const listening = createServer((socket) => {
    count++;
    socket.destroy();
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { port: (listening.address() as { port: number }).port, connections: () => count };
}

describe('hostile implementers', () => {
  it('following .git or parent paths cannot reach the user repository', async () => {
    env = makeEnv();
    const before = gitState(env.root);
    const d = deps(env, profile(script(env, 'walker', PARENT_WALKER), verdictVerifier(env, 'verified')), { sandbox: NO_SANDBOX });
    // The walker's first stop is the checkout's own .git: the whole patch is refused for it.
    await expect(prepareChange(d, ARGS, signal())).rejects.toMatchObject({ rule: 'protected_path', message: expect.stringContaining('.git') });
    expect(gitState(env.root)).toEqual(before);
  });

  it.skipIf(!sandboxed)('under the sandbox even the absolute path of the user repository is out of reach', async () => {
    env = makeEnv();
    const before = gitState(env.root);
    const target = JSON.stringify(env.root);
    const body = `${PARENT_WALKER}\ntry { fs.appendFileSync(path.join(${target}, '.git/config'), '[evil]\\n'); } catch {}\ntry { fs.writeFileSync(path.join(${target}, '.git/hooks/post-checkout'), 'x'); } catch {}\ntry { fs.writeFileSync(path.join(${target}, 'src/add.mjs'), 'x'); } catch {}`;
    const d = deps(env, profile(script(env, 'absolute', body), verdictVerifier(env, 'verified')));
    await expect(prepareChange(d, ARGS, signal())).rejects.toMatchObject({ rule: 'protected_path' });
    expect(gitState(env.root)).toEqual(before);
    expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toContain('a - b');
  });

  it.skipIf(!sandboxed)('trying the network has no effect under the sandbox', async () => {
    env = makeEnv();
    const { port, connections } = await countingServer();
    const body = `const net = await import('node:net');
const outcome = await new Promise((resolve) => {
  const s = net.connect(${port}, '127.0.0.1', () => { s.destroy(); resolve('connected'); });
  s.on('error', () => resolve('blocked'));
});
fs.writeFileSync('src/net.txt', outcome + '\\n');`;
    const d = deps(env, profile(script(env, 'network', body), verdictVerifier(env, 'verified')));
    const r = await prepareChange(d, ARGS, signal());
    expect(loadPatch(env.db, r.change_id, 1)!.files[0]!.after!.toString()).toBe('blocked\n');
    expect(connections()).toBe(0);

    // An agent CLI that must reach its model API opts in with `network: true`;
    // the filesystem stays confined either way.
    const online = profile(script(env, 'network-on', body), verdictVerifier(env, 'verified'));
    const withNet = { ...online, implementer: { ...online.implementer!, network: true } } as typeof online;
    const r2 = await prepareChange(deps(env, withNet), ARGS, signal());
    expect(loadPatch(env.db, r2.change_id, 1)!.files[0]!.after!.toString()).toBe('connected\n');
    expect(connections()).toBe(1);
  });
});

describe('certified focused test under bubblewrap', () => {
  it.skipIf(!sandboxed)('runs the test with no network and verifies', async () => {
    env = makeEnv();
    const { port, connections } = await countingServer();
    const testFile = `import { test } from 'node:test';\nimport assert from 'node:assert';\nimport net from 'node:net';\ntest('offline', async () => {\n  const r = await new Promise((resolve) => { const s = net.connect(${port}, '127.0.0.1', () => { s.destroy(); resolve('up'); }); s.on('error', () => resolve('down')); });\n  assert.strictEqual(r, 'down');\n});\n`;
    write(env.root, 'test/offline.test.mjs', testFile);
    git(env.root, 'add', '-A');
    git(env.root, 'commit', '-q', '-m', 'offline test');
    const plan: CertifiedTestPlan = {
      source_id: `b3:${'4'.repeat(64)}`,
      plan: {
        runner: 'npx',
        argv: ['node', '--test', '--test-name-pattern', 'offline', 'test/offline.test.mjs'],
        cwd_relative: '.',
        identifier: 'offline',
        selection: 'representative',
        location: { role: 'primary', path: 'test/offline.test.mjs', symbol: 'offline', start_line: 4, end_line: 7 },
        evidence_paths: ['test/offline.test.mjs'],
      },
      dependencies: [{ path: 'test/offline.test.mjs', digest: blake3(testFile) }],
    };
    const d = deps(env, profile(goodImplementer(env), verdictVerifier(env, 'verified'), { test_execution: 'trusted', require_sandbox: true }), {
      context: { load: () => ({ items: [], testPlans: [plan] }) },
    });
    const { change_id } = await prepareChange(d, { ...ARGS, artifact_ids: [`b3:${'5'.repeat(64)}`] }, signal());
    const r = await verifyChange(d, { change_id }, signal());
    expect(r.status).toBe('verified');
    expect(r.test_plan_results[0]).toMatchObject({ executed: true, passed: true });
    expect(connections()).toBe(0);
  });
});

// The inactive-sandbox branch, tested whether or not bubblewrap works on this
// machine (the sandboxed tests above skip without it, and the run says so).
describe('when the sandbox is not active', () => {
  it('a profile that requires it refuses before any worker runs or any row is written', async () => {
    env = makeEnv();
    const marker = join(env.scripts, 'ran');
    const p = { ...profile(script(env, 'must-not-run', `fs.writeFileSync(${JSON.stringify(marker)}, 'x');`), verdictVerifier(env, 'verified')), require_sandbox: true };
    const inactive = { bwrap: null, active: false, reason: 'bwrap not found on PATH' };
    await expect(prepareChange(deps(env, p, { sandbox: inactive }), ARGS, signal())).rejects.toMatchObject({
      rule: 'sandbox_required',
      message: expect.stringContaining('bwrap not found on PATH'),
    });
    expect(readdirSync(env.scripts)).not.toContain('ran');
    expect(env.db.prepare('SELECT COUNT(*) AS n FROM change_requests').get()).toEqual({ n: 0 });
  });
});

// The sandbox hides /tmp anyway; a repository elsewhere must stay out of reach
// too: under $HOME it is not visible at all, under a read-only system path
// (bound read-only for the tools there) it can be read but never written.
describe.skipIf(!sandboxed)('sandbox visibility of repositories outside /tmp', () => {
  const attempt = (root: string) => `
const target = ${JSON.stringify(root)};
let seen = 'invisible';
try { fs.readFileSync(path.join(target, 'src/add.mjs')); seen = 'readable'; } catch {}
let wrote = 'refused';
try { fs.writeFileSync(path.join(target, 'src/add.mjs'), 'pwned'); wrote = 'written'; } catch {}
try { fs.appendFileSync(path.join(target, '.git/config'), '[evil]\\n'); wrote = 'written'; } catch {}
fs.writeFileSync('src/add.mjs', seen + ' ' + wrote + '\\n');`;

  for (const [where, parent] of [
    ['under $HOME', homedir()],
    ['under /opt (a read-only system path in the sandbox)', '/opt'],
  ] as const)
    it.skipIf(!isWritableDir(parent))(`a repository ${where} cannot be written by the implementer`, async () => {
      env = makeEnv(parent);
      const before = gitState(env.root);
      const d = deps(env, profile(script(env, 'outside-tmp', attempt(env.root)), verdictVerifier(env, 'verified')));
      const r = await prepareChange(d, ARGS, signal());
      const verdict = loadPatch(env.db, r.change_id, 1)!.files[0]!.after!.toString();
      expect(verdict).toBe(parent === '/opt' ? 'readable refused\n' : 'invisible refused\n');
      expect(gitState(env.root)).toEqual(before);
      expect(readFileSync(join(env.root, 'src/add.mjs'), 'utf8')).toContain('a - b');
    });
});

function isWritableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
