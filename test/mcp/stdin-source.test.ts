// How `needle mcp serve` reads its standard input (src/mcp/stdin-source.ts): a
// pipe through a handle of its own with one reused read buffer, anything else
// as a stream. Lines that span reads are put together from copies (the buffer
// is overwritten by the next read), and a file on stdin is served too.
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MCP } from '../../src/core/limits.js';
import { NEEDLE_BIN } from '../../src/mcp/version.js';
import { cleanupAll, makeRepo, requireBuild, ServerProcess, tempDir } from './fixtures.js';

afterAll(cleanupAll);

const line = (m: object): string => `${JSON.stringify(m)}\n`;
const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };

describe('standard input of the server', () => {
  it('puts together a request whose line arrives in two reads, the first read also holding a whole request', async () => {
    const s = new ServerProcess({ repo: makeRepo(), dataDir: tempDir('needle-data-') });
    await s.initialize();
    // The rest of `b` is longer than everything before it: the second read
    // overwrites the part of the buffer the first 20 bytes of `b` were read into.
    const idB = `b${'-'.repeat(300)}`;
    const second = line({ jsonrpc: '2.0', id: idB, method: 'ping' });
    s.write(line({ jsonrpc: '2.0', id: 'a', method: 'ping' }) + second.slice(0, 20));
    // The reply to `a` means the server has read the chunk with the first 20 bytes of `b`.
    expect((await s.out.reply('a')).result).toEqual({});
    s.write(second.slice(20));
    expect((await s.out.reply(idB)).result).toEqual({});
    expect(s.out.messages.filter((m) => m.error)).toEqual([]);
    expect(await s.close()).toBe(0);
  });

  it('reads a line of nearly 64 KiB whole: arguments over their bound are refused as such, not as broken JSON', async () => {
    const s = new ServerProcess({ repo: makeRepo(), dataDir: tempDir('needle-data-') });
    await s.initialize();
    const task = 'x'.repeat(MCP.maxLineBytes - 2_000);
    s.write(line({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'need_context', arguments: { route: 'locate.implementation', subject: { kind: 'symbol', name: 'f' }, task } } }));
    const reply = await s.out.reply('big');
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/exceed/);
    expect(await s.close()).toBe(0);
  });

  it('serves requests from a file on stdin (read as a stream) and exits when it ends', async () => {
    requireBuild();
    const dir = tempDir('needle-stdin-');
    const requests = join(dir, 'requests.jsonl');
    writeFileSync(requests, [INIT, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }].map(line).join(''));
    const fd = openSync(requests, 'r');
    const child = spawn(process.execPath, [NEEDLE_BIN, 'mcp', 'serve', '--role-profile', 'local', '--data-dir', join(dir, 'data'), '--repository', makeRepo()], { stdio: [fd, 'pipe', 'pipe'] });
    closeSync(fd);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const replies = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: unknown });
    expect(replies.map((r) => r.id)).toEqual(['init', 1, 2]);
  });
});
