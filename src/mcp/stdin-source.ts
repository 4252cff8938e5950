// Where a server's requests come from: the bytes of its input, their end, and
// a read failure. A piped (or socket) standard input is read through a handle
// of its own with net.Socket's `onread` — one reused buffer handed to a
// callback — instead of a Readable stream: measured on the hit path, the
// stream's per-chunk machinery (push, the 'data' emission, its read-ahead
// ticks) took 30–250 µs of a session's first repeats (cold code) and ~20 µs
// of later ones, before the request was even parsed. Anything else (an
// injected stream, a file or a terminal on descriptor 0) is read as a stream.
import { fstatSync } from 'node:fs';
import { Socket, type OnReadOpts, type SocketConstructorOpts } from 'node:net';

export interface ByteSink {
  data(chunk: Buffer): void;
  end(): void;
  error(e: Error): void;
}

/** Starts delivering bytes to `sink`, then end() (possibly more than once; after error() when reading failed). */
export type ByteSource = (sink: ByteSink) => void;

/** Size of the buffer a descriptor is read into (each chunk is copied out of it). */
const READ_BUFFER_BYTES = 64 * 1024;

/** Passes the end of `stream` (its end, its close, its failure) to `sink`. */
function endsInto(stream: NodeJS.ReadableStream, sink: ByteSink): void {
  stream.on('end', () => sink.end());
  stream.on('close', () => sink.end());
  stream.on('error', (e: Error) => sink.error(e));
}

export function streamSource(stream: NodeJS.ReadableStream): ByteSource {
  return (sink) => {
    stream.on('data', (chunk: Buffer | string) => sink.data(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    endsInto(stream, sink);
  };
}

/** Whether `fd` is a pipe or a socket (what net.Socket can read with a handle of its own). */
function isPipeOrSocket(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

/**
 * Descriptor `fd` read directly when it is a pipe or a socket, else
 * `fallback()` read as a stream (made only then: the process's own stdin
 * stream would hold a second handle on the same descriptor).
 */
export function descriptorSource(fd: number, fallback: () => NodeJS.ReadableStream): ByteSource {
  if (!isPipeOrSocket(fd)) return streamSource(fallback());
  return (sink) => {
    const options: SocketConstructorOpts & { readonly onread: OnReadOpts } = {
      fd,
      readable: true,
      writable: false,
      onread: {
        buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
        // The buffer is reused by the next read: the framer may keep part of a line.
        callback: (bytes: number, buffer: Uint8Array) => {
          sink.data(Buffer.from(buffer.subarray(0, bytes)));
          return true; // keep reading
        },
      },
    };
    // Node reads `onread` in the constructor too (documented under socket.connect); the types list it there only.
    endsInto(new Socket(options), sink);
  };
}
