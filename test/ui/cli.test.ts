// `needle ui` from the built binary: prints a loopback URL with a fresh token
// per start, serves the overview with it, refuses without it, and stops on
// SIGTERM with exit code 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, requireBuild } from '../mcp/fixtures.js';
import { raw } from './fixture.js';

const base = mkdtempSync(join(tmpdir(), 'needle-ui-cli-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function start(): Promise<{ child: ChildProcess; url: URL }> {
  requireBuild();
  const child = spawn(process.execPath, [CLI, 'ui', '--data-dir', join(base, 'data')], { cwd: base, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed within 20 s: ${out}`)), 20_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /needle ui: (http:\/\/\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: new URL(m[1]!) });
      }
    });
    child.on('exit', (code) => reject(new Error(`needle ui exited ${code}: ${out}`)));
  });
}

const exited = (child: ChildProcess) => new Promise<string>((r) => child.once('exit', (code, signal) => r(`${code} ${signal}`)));

describe('needle ui (binary)', () => {
  it('prints a 127.0.0.1 URL with a fresh token each start, serves with it, refuses without it, stops on SIGTERM', async () => {
    const a = await start();
    expect(a.url.hostname).toBe('127.0.0.1');
    const port = Number(a.url.port);
    const token = a.url.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await raw(port, 'GET', '/api/overview', { host: a.url.host })).status).toBe(401);
    const first = await raw(port, 'GET', `/?token=${token}`, { host: a.url.host });
    expect(first.status).toBe(303);
    const ok = await raw(port, 'GET', '/api/overview', { host: a.url.host, cookie: String(first.headers['set-cookie']).split(';')[0]! });
    expect(ok.status).toBe(200);
    const done = exited(a.child);
    a.child.kill('SIGTERM');
    expect(await done).toBe('0 null');
    const b = await start();
    expect(b.url.searchParams.get('token')).not.toBe(token);
    const done2 = exited(b.child);
    b.child.kill('SIGTERM');
    expect(await done2).toBe('0 null');
  }, 60_000);
});
