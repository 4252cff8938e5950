/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { RpcPeer, type Notification, type RpcError } from '../../src/workers/codex/rpc.js';
import { commandWords } from '../../src/workers/codex/approvals.js';

function peer(maxLine = 1024) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const notes: Notification[] = [];
  const fatal: RpcError[] = [];
  const sent: any[] = [];
  toServer.on('data', (c: Buffer) => c.toString().split('\n').filter(Boolean).forEach((l) => sent.push(JSON.parse(l))));
  const rpc = new RpcPeer(toServer, fromServer, {
    onNotification: (n) => notes.push(n),
    onRequest: async (r) => ({ echoed: r.method }),
    onFatal: (e) => fatal.push(e),
  }, maxLine);
  return { rpc, fromServer, notes, fatal, sent };
}

describe('App Server JSON-RPC peer', () => {
  it('answers a server request whose id equals a pending client id without resolving the client call', async () => {
    const { rpc, fromServer, sent } = peer();
    const call = rpc.request('turn/start', {}, 5_000);
    const id = sent[0].id;
    fromServer.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'item/commandExecution/requestApproval', params: {} })}\n`);
    await new Promise((r) => setImmediate(r));
    expect(sent[1]).toEqual({ jsonrpc: '2.0', id, result: { echoed: 'item/commandExecution/requestApproval' } });
    // Split across chunks: framing waits for the newline.
    const reply = JSON.stringify({ jsonrpc: '2.0', id, result: { turn: { id: 't1' } } });
    fromServer.write(reply.slice(0, 10));
    fromServer.write(`${reply.slice(10)}\n`);
    await expect(call).resolves.toEqual({ turn: { id: 't1' } });
  });

  it('treats an oversize line as fatal without buffering it whole and fails pending calls', async () => {
    const { rpc, fromServer, fatal } = peer(100);
    const call = rpc.request('initialize', {}, 5_000);
    fromServer.write('x'.repeat(60));
    fromServer.write('x'.repeat(60));
    await expect(call).rejects.toThrow(/line over 100 bytes/);
    expect(fatal).toHaveLength(1);
    await expect(rpc.request('again', {}, 100)).rejects.toThrow(/line over 100 bytes/);
  });

  it('reports error replies and non-JSON lines', async () => {
    const { rpc, fromServer, notes } = peer();
    const call = rpc.request('thread/start', {}, 5_000);
    fromServer.write('{"jsonrpc":"2.0","method":"configWarning","params":{"x":1}}\n{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}\n');
    await expect(call).rejects.toMatchObject({ message: 'bad', code: -32600 });
    expect(notes).toEqual([{ method: 'configWarning', params: { x: 1 } }]);
    const next = rpc.request('x', {}, 5_000);
    fromServer.write('not json\n');
    await expect(next).rejects.toThrow(/not JSON/);
  });
});

describe('approval command parsing', () => {
  it('unwraps one shell wrapper and refuses shell syntax', () => {
    expect(commandWords("/bin/bash -lc 'cat src/a.ts'")).toEqual(['cat', 'src/a.ts']);
    expect(commandWords(['bash', '-c', "go test -run '^TestX$' ./pkg"])).toEqual(['go', 'test', '-run', '^TestX$', './pkg']);
    expect(commandWords('cat a.ts | sh')).toBeNull();
    expect(commandWords('cat $(whoami)')).toBeNull();
    expect(commandWords('FOO=1 cat a')).toBeNull();
    expect(commandWords('cat "a$HOME"')).toBeNull();
  });
});
