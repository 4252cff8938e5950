// Wires a ToolHost to byte streams: bounded framing in, one writer out.
import { MCP } from '../core/limits.js';
import { Connection, type ToolHost } from './connection.js';
import { LineFramer } from './framing.js';
import { serializeMessage } from './jsonrpc.js';

export interface StdioStreams {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly log: (line: string) => void;
  /** Called for every chunk read (the server's quiet gate, mcp/quiet.ts). */
  readonly onInput?: () => void;
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
    io.input.on('data', (chunk: Buffer | string) => {
      io.onInput?.();
      framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    });
    io.input.on('end', finish);
    io.input.on('close', finish);
    io.input.on('error', (e: Error) => {
      io.log(`stdin failed: ${e.message}`);
      finish();
    });
  });
}
