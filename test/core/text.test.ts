// The shared text helpers (issue 14 item 7): one regular-expression escaper,
// one byte clip that never splits a UTF-8 character and stays linear, and the
// one list of peripheral directories of the evidence worker.
import { describe, expect, it } from 'vitest';
import { clipUtf8, escapeRegExp } from '../../src/core/text.js';
import { isPeripheralPath } from '../../src/evidence/peripheral.js';

describe('escapeRegExp', () => {
  it('makes every special character literal', () => {
    const nasty = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o';
    expect(new RegExp(`^${escapeRegExp(nasty)}$`).test(nasty)).toBe(true);
    expect(new RegExp(`^${escapeRegExp('--dry-run')}$`).test('--dry-run')).toBe(true);
    expect(new RegExp(escapeRegExp('a.c')).test('abc')).toBe(false);
  });
});

describe('clipUtf8', () => {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

  it('keeps text that fits, and cuts by bytes, not characters', () => {
    expect(clipUtf8('hello', 5)).toBe('hello');
    expect(clipUtf8('hello', 4)).toBe('hell');
    expect(clipUtf8('hello', 4, '…')).toBe('h…'); // '…' is three bytes
    expect(clipUtf8('hello', 2, '…')).toBe('he'); // no room for the marker: a plain cut
    expect(clipUtf8('', 0)).toBe('');
  });

  it('never splits a multi-byte character or a surrogate pair, at any bound', () => {
    const text = 'aé€😀b'.repeat(7); // 1-, 2-, 3- and 4-byte characters
    for (let max = 0; max <= bytes(text); max++) {
      for (const marker of ['', '…']) {
        const cut = clipUtf8(text, max, marker);
        expect(bytes(cut), `max ${max}`).toBeLessThanOrEqual(max);
        expect(cut).not.toContain('\ufffd');
        const body = marker && cut.endsWith(marker) && cut !== text ? cut.slice(0, -marker.length) : cut;
        expect(text.startsWith(body), `max ${max}`).toBe(true);
        // The cut loses less than one character (at most three bytes) beyond what the marker takes.
        if (cut !== text && bytes(marker) <= max) expect(max - bytes(cut)).toBeLessThan(4);
      }
    }
  });

  it('is linear: clipping several megabytes of multi-byte text takes one pass', () => {
    const big = '€'.repeat(2_000_000); // 6 MB
    const started = process.hrtime.bigint();
    const cut = clipUtf8(big, 3_000_001, '…');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(bytes(cut)).toBeLessThanOrEqual(3_000_001);
    expect(cut.endsWith('€…')).toBe(true);
    // A character-at-a-time loop re-encoding the rest would take minutes here.
    expect(ms).toBeLessThan(2_000);
  });
});

describe('isPeripheralPath', () => {
  it('marks code under demo, tooling, docs and vendored directories at any depth, never by the file name', () => {
    for (const p of ['examples/a.ts', 'pkg/Docs/b.py', 'tools/gen.go', 'crates/x/benches/y.rs', 'vendor/lib.c', 'a/node_modules/b.js', 'fuzz/fuzz_targets/parse.rs'])
      expect(isPeripheralPath(p), p).toBe(true);
    for (const p of ['src/examples.ts', 'src/docs.py', 'lib/tooling/a.ts', 'scripts.sh', 'src/fuzz.rs']) expect(isPeripheralPath(p), p).toBe(false);
  });
});
