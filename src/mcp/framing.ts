// Newline-delimited framing with a hard per-line bound (SPEC §4). An oversize
// line is never held whole: once the bound is crossed the rest of the line is
// discarded chunk by chunk until its newline, and one refusal is reported.

export interface FrameSink {
  line(text: string): void;
  /** A line longer than the bound was discarded. */
  oversize(): void;
  /** A line that is not valid UTF-8. */
  invalid(): void;
}

const NEWLINE = 0x0a;
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: FrameSink,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.complete();
      start = nl + 1;
    }
  }

  /** End of input: a final line without a newline still counts. */
  finish(): void {
    if (this.size > 0 || this.discarding) this.complete();
  }

  private take(piece: Buffer): void {
    if (this.discarding || piece.length === 0) return;
    if (this.size + piece.length > this.maxLineBytes) {
      this.discarding = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  private complete(): void {
    if (this.discarding) {
      this.discarding = false;
      this.sink.oversize();
      return;
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    let text: string;
    try {
      text = utf8Strict.decode(bytes);
    } catch {
      this.sink.invalid();
      return;
    }
    if (text.trim() === '') return;
    this.sink.line(text);
  }
}

