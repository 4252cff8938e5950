// Canonical, domain-separated BLAKE3 identities (SPEC §5; byte layout from the
// earlier implementation so ids stay comparable across implementations):
//   "needle-canonical\0" | u64le(len(domain)) | domain | (u64le(len(field)) | field)*
import { createRequire } from 'node:module';

// Only hash-wasm's BLAKE3 build: its index inlines every algorithm's WASM,
// which costs tens of milliseconds of server start for nothing.
const { createBLAKE3 } = createRequire(import.meta.url)('hash-wasm/dist/blake3.umd.min.js') as typeof import('hash-wasm');

export type Digest = `b3:${string}`;

const DIGEST_RE = /^b3:[0-9a-f]{64}$/;
const PREFIX = new TextEncoder().encode('needle-canonical\0');
const utf8 = new TextEncoder();

// hash-wasm instances are created asynchronously; one shared instance is
// reused synchronously afterwards (init() resets it), which keeps hashing on
// hot paths allocation-free.
const hasher = await createBLAKE3();

export function isDigest(value: unknown): value is Digest {
  return typeof value === 'string' && DIGEST_RE.test(value);
}

export function parseDigest(value: string): Digest {
  if (!isDigest(value)) throw new Error(`not a b3: digest: ${value.slice(0, 80)}`);
  return value;
}

export function digestBytes(d: Digest): Uint8Array {
  return Buffer.from(d.slice(3), 'hex');
}

/** Plain BLAKE3 of raw bytes (file contents, opaque text). */
export function blake3(data: Uint8Array | string): Digest {
  hasher.init();
  hasher.update(typeof data === 'string' ? utf8.encode(data) : data);
  return `b3:${hasher.digest('hex')}`;
}

/** Streaming raw BLAKE3 for large inputs assembled from parts. */
export class RawHasher {
  private readonly parts: Uint8Array[] = [];
  update(data: Uint8Array | string): this {
    this.parts.push(typeof data === 'string' ? utf8.encode(data) : data);
    return this;
  }
  digest(): Digest {
    hasher.init();
    for (const p of this.parts) hasher.update(p);
    return `b3:${hasher.digest('hex')}`;
  }
}

function u64le(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

/** Builder for one canonical identity; fields are length-prefixed. */
export class CanonicalHasher {
  private readonly fields: Uint8Array[] = [];
  constructor(private readonly domain: string) {}

  bytes(b: Uint8Array): this {
    this.fields.push(b);
    return this;
  }
  text(s: string): this {
    return this.bytes(utf8.encode(s));
  }
  /** Text with CRLF normalised to LF, for bodies that may come from any OS. */
  lines(s: string): this {
    return this.text(s.replace(/\r\n/g, '\n'));
  }
  u8(n: number): this {
    return this.bytes(Uint8Array.of(n & 0xff));
  }
  u16(n: number): this {
    const b = new Uint8Array(2);
    new DataView(b.buffer).setUint16(0, n, true);
    return this.bytes(b);
  }
  u32(n: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, true);
    return this.bytes(b);
  }
  u64(n: number): this {
    return this.bytes(u64le(n));
  }
  digest(d: Digest): this {
    return this.bytes(digestBytes(d));
  }
  optionalDigest(d: Digest | null | undefined): this {
    if (d == null) return this.u8(0);
    return this.u8(1).digest(d);
  }
  optionalText(s: string | null | undefined): this {
    if (s == null) return this.u8(0);
    return this.u8(1).text(s);
  }
  /** A list with an explicit count, so adjacent lists cannot alias. */
  list<T>(items: readonly T[], each: (h: this, item: T) => void): this {
    this.u16(items.length);
    for (const item of items) each(this, item);
    return this;
  }

  finish(): Digest {
    hasher.init();
    hasher.update(PREFIX);
    const d = utf8.encode(this.domain);
    hasher.update(u64le(d.length));
    hasher.update(d);
    for (const f of this.fields) {
      hasher.update(u64le(f.length));
      hasher.update(f);
    }
    return `b3:${hasher.digest('hex')}`;
  }
}

export function canonical(domain: string): CanonicalHasher {
  return new CanonicalHasher(domain);
}
