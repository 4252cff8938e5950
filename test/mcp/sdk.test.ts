// The built server driven by the official MCP SDK client, unmodified (it asks
// for its own latest version and must connect with 2025-06-18) and forced to
// each supported protocol version.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanupAll, LOCATE_ARGS, makeRepo, requireBuild, tempDir } from './fixtures.js';

let repo: string;
beforeAll(() => {
  requireBuild();
  repo = makeRepo();
});
afterAll(cleanupAll);

function stdio(): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', 'serve', '--role-profile', 'local', '--data-dir', tempDir('needle-data-'), '--repository', repo, '--cache-only'],
    stderr: 'pipe',
  });
}

/** Rewrites the client's requested version and records the one the server answered. */
class VersionTransport implements Transport {
  negotiated: string | null = null;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly inner: StdioClientTransport,
    private readonly forced: string,
  ) {
    inner.onmessage = (m) => {
      const result = (m as { result?: { protocolVersion?: string } }).result;
      if (result?.protocolVersion) this.negotiated = result.protocolVersion;
      this.onmessage?.(m);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  send(message: JSONRPCMessage): Promise<void> {
    const m = message as { method?: string; params?: Record<string, unknown> };
    if (m.method === 'initialize') return this.inner.send({ ...message, params: { ...m.params, protocolVersion: this.forced } } as JSONRPCMessage);
    return this.inner.send(message);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const ajv = new Ajv({ strict: false });

describe('official SDK client', () => {
  it('connects unmodified (it asks for a newer version), lists need_context and gets a schema-valid bypass', async () => {
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    await client.connect(stdio());
    try {
      expect(client.getServerVersion()?.name).toBe('needle');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['need_context']);
      const tool = tools[0]!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.outputSchema).toBeDefined();
      const result = await client.callTool({ name: 'need_context', arguments: LOCATE_ARGS });
      expect(result.isError).toBe(false);
      const structured = result.structuredContent as Record<string, unknown>;
      expect(ajv.validate(tool.outputSchema!, structured)).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toBe(structured.context);
      expect(structured).toMatchObject({ status: 'bypass', route: 'locate.implementation', step: { ordinal: 1, relation: 'independent' } });
      expect(structured.missing).toEqual(['implementation_location']);
      expect(result._meta).toMatchObject({ interface_digest: expect.stringMatching(/^b3:/), session_digest: expect.stringMatching(/^b3:/) });
    } finally {
      await client.close();
    }
  });

  for (const version of ['2025-06-18', '2024-11-05']) {
    it(`works when forced to ${version}`, async () => {
      const transport = new VersionTransport(stdio(), version);
      const client = new Client({ name: 'sdk-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect(transport.negotiated).toBe(version);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['need_context']);
        const modern = version === '2025-06-18';
        expect(tools[0]!.outputSchema !== undefined).toBe(modern);
        const result = await client.callTool({ name: 'need_context', arguments: LOCATE_ARGS });
        expect(result.isError).toBe(false);
        const text = (result.content as { text: string }[])[0]!.text;
        expect(text).toMatch(/^Needle bypassed this request: /);
        if (modern) {
          expect(ajv.validate(tools[0]!.outputSchema!, result.structuredContent)).toBe(true);
          expect((result.structuredContent as { context: string }).context).toBe(text);
        } else expect(result.structuredContent).toBeUndefined();
        await expect(client.callTool({ name: 'need_context', arguments: { ...LOCATE_ARGS, extra: 1 } })).rejects.toThrow(/-32602|unknown field/);
      } finally {
        await client.close();
      }
    });
  }
});
