// Raw JSON-line probes against the built server process: every framing and
// lifecycle rule of SPEC §4, byte for byte as a client would send them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callNeed, cleanupAll, LOCATE_ARGS, makeRepo, queryRows, ServerProcess, tempDir, type Message } from './fixtures.js';
import { join } from 'node:path';

let repo: string;
beforeAll(() => {
  repo = makeRepo();
});
afterAll(cleanupAll);

function server(args: string[] = ['--cache-only']): { s: ServerProcess; dataDir: string } {
  const dataDir = tempDir('needle-data-');
  return { s: new ServerProcess({ repo, dataDir, args }), dataDir };
}

const ping = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('framing', () => {
  it('refuses a 70 000-byte line with -32700 and still answers the next ping', async () => {
    const { s } = server();
    await s.initialize();
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'ping', params: { pad: 'x'.repeat(70_000) } });
    expect(Buffer.byteLength(huge)).toBeGreaterThan(70_000);
    s.write(`${huge}\n`);
    s.send(ping('after'));
    const refusal = await s.out.waitFor((m) => m.id === null && m.error?.code === -32700);
    expect(refusal.error.message).toMatch(/65536 bytes/);
    expect((await s.out.reply('after')).result).toEqual({});
    expect(s.out.messages.some((m) => m.id === 'big')).toBe(false);
    expect(await s.close()).toBe(0);
  });

  it('accepts a line of exactly 65 536 bytes and refuses 65 537', async () => {
    const { s } = server();
    await s.initialize();
    const sized = (id: string, total: number): string => {
      const base = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { pad: '' } });
      return JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { pad: 'y'.repeat(total - base.length) } });
    };
    s.write(`${sized('fits', 65_536)}\n${sized('over', 65_537)}\n`);
    expect((await s.out.reply('fits')).result).toEqual({});
    const refusal = await s.out.waitFor((m) => m.id === null && m.error?.code === -32700);
    expect(refusal.error.code).toBe(-32700);
    expect(await s.close()).toBe(0);
  });

  it('answers non-JSON with -32700, a batch with -32600 id null, jsonrpc 1.0 with -32600', async () => {
    const { s } = server();
    await s.initialize();
    s.write('this is not json\n');
    expect((await s.out.waitFor((m) => m.error?.code === -32700)).id).toBeNull();
    s.send([ping(1), ping(2)]);
    const batch = await s.out.waitFor((m) => m.error?.code === -32600);
    expect(batch.id).toBeNull();
    expect(batch.error.message).toMatch(/batch/);
    s.send({ jsonrpc: '1.0', id: 'old', method: 'ping' });
    expect((await s.out.reply('old')).error.code).toBe(-32600);
    s.write('42\n');
    expect((await s.out.waitFor((m) => m.id === null && /object/.test(m.error?.message ?? ''))).error.code).toBe(-32600);
    s.write(Buffer.from([0x22, 0xff, 0xfe, 0x22, 0x0a]));
    expect((await s.out.waitFor((m) => /UTF-8/.test(m.error?.message ?? ''))).error.code).toBe(-32700);
    s.send(ping('alive'));
    expect((await s.out.reply('alive')).result).toEqual({});
    expect(await s.close()).toBe(0);
  });
});

describe('lifecycle', () => {
  it('refuses ping and tools/list before initialize with -32002', async () => {
    const { s } = server();
    expect((await s.request(ping('early'))).error.code).toBe(-32002);
    expect((await s.request({ jsonrpc: '2.0', id: 'list', method: 'tools/list' })).error.code).toBe(-32002);
    await s.initialize();
    expect((await s.request(ping('late'))).result).toEqual({});
    expect(await s.close()).toBe(0);
  });

  it('answers a newer requested version (2025-11-25) with 2025-06-18', async () => {
    const { s } = server();
    const reply = await s.initialize('2025-11-25');
    expect(reply.result.protocolVersion).toBe('2025-06-18');
    expect(reply.result.serverInfo.name).toBe('needle');
    expect(reply.result.capabilities).toEqual({ tools: { listChanged: false } });
    expect(await s.close()).toBe(0);
  });

  it('echoes 2024-11-05 and hides outputSchema and structuredContent under it', async () => {
    const { s } = server();
    expect((await s.initialize('2024-11-05')).result.protocolVersion).toBe('2024-11-05');
    const list = await s.request({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    expect(list.result.tools.map((t: Message) => t.name)).toEqual(['need_context']);
    expect(list.result.tools[0].outputSchema).toBeUndefined();
    const call = await s.request(callNeed('c', LOCATE_ARGS));
    expect(call.result.structuredContent).toBeUndefined();
    expect(call.result.isError).toBe(false);
    expect(call.result.content[0].text).toMatch(/^Needle bypassed this request: /);
    expect(await s.close()).toBe(0);
  });

  it('refuses a missing or non-string protocolVersion with -32602 and stays uninitialized', async () => {
    const { s } = server();
    expect((await s.request({ jsonrpc: '2.0', id: 'a', method: 'initialize', params: {} })).error.code).toBe(-32602);
    expect((await s.request({ jsonrpc: '2.0', id: 'b', method: 'initialize', params: { protocolVersion: 20250618 } })).error.code).toBe(-32602);
    expect((await s.request(ping('p'))).error.code).toBe(-32002);
    expect((await s.initialize('2025-06-18', 'c')).result.protocolVersion).toBe('2025-06-18');
    expect(await s.close()).toBe(0);
  });

  it('refuses a second initialize, duplicate ids, unknown methods; never answers notifications', async () => {
    const { s } = server();
    await s.initialize();
    expect((await s.request({ jsonrpc: '2.0', id: 'again', method: 'initialize', params: { protocolVersion: '2025-06-18' } })).error.code).toBe(-32600);
    expect((await s.request(ping(2))).result).toEqual({});
    s.send(ping(2));
    await s.out.waitFor((m) => m.id === 2 && m.error?.code === -32600, 15_000, 'duplicate id refusal');
    expect((await s.request(ping('2'))).result).toEqual({});
    const unknown = await s.request({ jsonrpc: '2.0', id: 'u', method: 'resources/list' });
    expect(unknown.error.code).toBe(-32601);
    const before = s.out.messages.length;
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/whatever', params: {} });
    await s.request(ping('last'));
    expect(s.out.messages.length).toBe(before + 1);
    expect(await s.close()).toBe(0);
  });
});

describe('queue and cancellation', () => {
  it('queues 8 lines behind the active call and refuses the 9th with -32000', async () => {
    const { s } = server();
    await s.initialize();
    const pings = Array.from({ length: 9 }, (_, i) => ping(`q${i}`));
    s.send(callNeed('active', LOCATE_ARGS), ...pings);
    const full = await s.out.reply('q8');
    expect(full.error.code).toBe(-32000);
    await s.out.reply('active');
    for (let i = 0; i < 8; i++) expect((await s.out.reply(`q${i}`)).result).toEqual({});
    const order = s.out.messages.filter((m) => typeof m.id === 'string' && /^(active|q\d)$/.test(m.id)).map((m) => m.id);
    expect(order).toEqual(['q8', 'active', 'q0', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7']);
    expect(await s.close()).toBe(0);
  });

  it('cancels the active call: tool error, step stored as cancelled, next call takes the next ordinal', async () => {
    const { s, dataDir } = server();
    await s.initialize();
    s.send(callNeed('first', LOCATE_ARGS), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'first', reason: 'user' } });
    const cancelled = await s.out.reply('first');
    expect(cancelled.result.isError).toBe(true);
    expect(cancelled.result.content[0].text).toMatch(/cancelled/);
    expect(cancelled.result.structuredContent).toBeUndefined();
    const next = await s.request(callNeed('second', LOCATE_ARGS));
    expect(next.result.isError).toBe(false);
    expect(next.result.structuredContent.step.ordinal).toBe(2);
    expect(await s.close()).toBe(0);
    const steps = queryRows<{ ordinal: number; status: string }>(join(dataDir, 'needle.sqlite3'), 'SELECT ordinal, status FROM need_steps ORDER BY ordinal');
    expect(steps).toEqual([
      { ordinal: 1, status: 'cancelled' },
      { ordinal: 2, status: 'bypass' },
    ]);
  });

  it('cancels a queued call: removed from the queue, its reply says cancelled, no step stored', async () => {
    const { s, dataDir } = server();
    await s.initialize();
    s.send(callNeed('running', LOCATE_ARGS), callNeed('waiting', LOCATE_ARGS), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'waiting' },
    });
    const waiting = await s.out.reply('waiting');
    expect(waiting.result.isError).toBe(true);
    expect(waiting.result.content[0].text).toMatch(/cancelled before it started/);
    expect((await s.out.reply('running')).result.isError).toBe(false);
    expect(await s.close()).toBe(0);
    expect(queryRows(join(dataDir, 'needle.sqlite3'), 'SELECT ordinal FROM need_steps')).toEqual([{ ordinal: 1 }]);
  });

  it('at end of input answers the active call (served or cancelled) and the queued ping, then exits 0', async () => {
    const { s } = server();
    await s.initialize();
    s.send(callNeed('last-call', LOCATE_ARGS), ping('last-ping'));
    const code = await s.close();
    expect(code).toBe(0);
    // EOF cancels what is in flight (test/mcp/eof-cancel.test.ts); a cache-only call may finish first.
    expect(s.out.messages.find((m) => m.id === 'last-call')?.result).toBeTruthy();
    expect(s.out.messages.find((m) => m.id === 'last-ping')?.result).toEqual({});
  });
});
