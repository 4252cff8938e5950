// The output a person reads on the change page for a certified test run:
// bounded, with both ends kept, no terminal control sequences, and whole
// characters at the cuts.
import { describe, expect, it } from 'vitest';
import { outputExcerpt } from '../../src/changes/testplans.js';
import { CHANGE_RUN } from '../../src/core/limits.js';

describe('test output excerpt', () => {
  it('keeps short output whole, without colour codes or control characters', () => {
    expect(outputExcerpt('\u001b[32m✔ adds\u001b[39m (1.2ms)\r\n\u0007ℹ pass 1\n\n\n\nℹ fail 0\n')).toBe('✔ adds (1.2ms)\nℹ pass 1\n\nℹ fail 0');
  });

  it('keeps the start and the end of long output within the bound and says how much was left out', () => {
    const long = `TAP version 13\n${'ok - filler line é\n'.repeat(2_000)}not ok 1 - subtracts\n  error: 8 !== 2\n# fail 1\n`;
    const e = outputExcerpt(long);
    expect(Buffer.byteLength(e)).toBeLessThanOrEqual(CHANGE_RUN.testExcerptMaxBytes + 64);
    expect(e.startsWith('TAP version 13\n')).toBe(true);
    expect(e.endsWith('error: 8 !== 2\n# fail 1')).toBe(true);
    expect(e).toMatch(/\n… \d+ bytes left out …\n/);
    expect(e).not.toContain('\uFFFD');
  });
});
