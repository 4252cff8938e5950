// The line framer on its own: bound exactly at 65 536 bytes before the
// newline, oversize lines discarded while streaming (never held whole).
import { describe, expect, it } from 'vitest';
import { LineFramer } from '../../src/mcp/framing.js';

function collect(max = 65_536) {
  const events: string[] = [];
  const framer = new LineFramer(max, {
    line: (t) => events.push(`line:${t.length > 20 ? `${t.length}B` : t}`),
    oversize: () => events.push('oversize'),
    invalid: () => events.push('invalid'),
  });
  return { framer, events, held: () => (framer as unknown as { size: number }).size };
}

describe('LineFramer', () => {
  it('splits lines across chunk boundaries and skips blank lines', () => {
    const { framer, events } = collect();
    framer.push(Buffer.from('{"a"'));
    framer.push(Buffer.from(':1}\n\n  \r\n{"b":2}\n{"c"'));
    framer.push(Buffer.from(':3}'));
    framer.finish();
    expect(events).toEqual(['line:{"a":1}', 'line:{"b":2}', 'line:{"c":3}']);
  });

  it('bounds the bytes before the newline: 65 536 pass, 65 537 are refused', () => {
    const { framer, events } = collect();
    framer.push(Buffer.from(`${'x'.repeat(65_536)}\n${'y'.repeat(65_537)}\nok\n`));
    expect(events).toEqual(['line:65536B', 'oversize', 'line:ok']);
  });

  it('streams a 10 MiB line away chunk by chunk, holding nothing of it, then serves the next line', () => {
    const { framer, events, held } = collect();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let maxHeld = 0;
    for (let i = 0; i < 160; i++) {
      framer.push(chunk);
      maxHeld = Math.max(maxHeld, held());
    }
    framer.push(Buffer.from('\n{"next":true}\n'));
    expect(maxHeld).toBeLessThanOrEqual(65_536);
    expect(held()).toBe(0);
    expect(events).toEqual(['oversize', 'line:{"next":true}']);
  });

  it('reports invalid UTF-8 per line and keeps going', () => {
    const { framer, events } = collect();
    framer.push(Buffer.concat([Buffer.from([0xc3, 0x28]), Buffer.from('\nfine\n')]));
    expect(events).toEqual(['invalid', 'line:fine']);
  });
});
