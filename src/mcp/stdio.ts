// Wires a ToolHost to byte streams: bounded framing in, one writer out.
import { MCP } from '../core/limits.js';
import { Connection, type ToolHost } from './connection.js';
import { LineFramer } from './framing.js';
import { serializeMessage } from './jsonrpc.js';
import type { ByteSource } from './stdin-source.js';

export interface StdioStreams {
  /** Requests, as bytes (mcp/stdin-source.ts). */
  readonly input: ByteSource;
  readonly output: NodeJS.WritableStream;
  readonly log: (line: string) => void;
  /** Called for every chunk read (the server's quiet gate, mcp/quiet.ts). */
  readonly onInput?: () => void;
}

/**
 * Runs request lines through a throwaway framer and connection to `host`,
 * serializing each answer and writing nothing: the framing, classification,
 * lifecycle and serialization code a real request runs, warmed off any request.
 */
function rehearseTransport(lines: readonly string[], host: ToolHost): void {
  const connection = new Connection(host, (message) => void serializeMessage(message));
  const framer = new LineFramer(MCP.maxLineBytes, { line: (text) => connection.receiveLine(text), oversize: () => {}, invalid: () => {} });
  framer.push(Buffer.from(`${lines.join('\n')}\n`));
}

/** Serves until end of input; resolves after every received request has been answered. */
export function serveStdio(host: ToolHost, io: StdioStreams): Promise<void> {
  let outputBroken = false;
  io.output.on('error', (e: Error) => {
    if (!outputBroken) io.log(`stdout closed: ${e.message}`);
    outputBroken = true;
  });
  const send = (message: object): void => {
    if (!outputBroken) io.output.write(`${serializeMessage(message)}\n`);
  };
  const connection = new Connection(host, send, io.log);
  host.onTransportRehearsal?.(rehearseTransport);
  const framer = new LineFramer(MCP.maxLineBytes, {
    line: (text) => connection.receiveLine(text),
    oversize: () => connection.receiveOversize(),
    invalid: () => connection.receiveInvalidUtf8(),
  });
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      framer.finish();
      void connection.end().then(resolve);
    };
    io.input({
      data: (chunk) => {
        io.onInput?.();
        framer.push(chunk);
      },
      end: finish,
      error: (e) => {
        io.log(`stdin failed: ${e.message}`);
        finish();
      },
    });
  });
}
