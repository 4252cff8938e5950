// Syntax trees kept between an analyzer thread's needs (src/evidence/tree-cache.ts):
// one tree per path and exact bytes, pinned while an analysis uses it, freed
// least recently used first once the source held passes the bound.
import { beforeAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { TreeCache } from '../../src/evidence/tree-cache.js';

beforeAll(async () => {
  await loadLanguages();
});

const source = (name: string): string => `export function ${name}(): number {\n  return 1;\n}\n`;
const take = (cache: TreeCache, path: string, text: string) => cache.acquire(path, blake3(Buffer.from(text)), 'typescript', text);

describe('the tree cache', () => {
  it('serves the tree it parsed for the same bytes, and parses edited bytes afresh', () => {
    const cache = new TreeCache(10_000);
    const a = take(cache, 'src/a.ts', source('alpha'))!;
    cache.release([a]);
    const again = take(cache, 'src/a.ts', source('alpha'))!;
    expect(again).toBe(a);
    expect([cache.parses, cache.reused]).toEqual([1, 1]);
    const edited = take(cache, 'src/a.ts', source('gamma'))!;
    expect(edited).not.toBe(a);
    expect(edited.tree.rootNode.text).toContain('gamma');
    // The older tree is still pinned by whoever took it: usable until released.
    expect(a.tree.rootNode.text).toContain('alpha');
    cache.release([again, edited]);
    expect(cache.size).toBe(1);
  });

  it('frees unpinned trees, least recently used first, past its bound, and never a pinned one', () => {
    const one = source('first').length;
    const cache = new TreeCache(2 * one);
    const first = take(cache, 'first.ts', source('first'))!;
    const second = take(cache, 'second.ts', source('second'))!;
    cache.release([second]);
    take(cache, 'third.ts', source('third'));
    // `first` is pinned, so `second` (unpinned, older than `third`) went.
    expect(cache.size).toBe(2);
    expect(first.tree.rootNode.text).toContain('first');
    expect(take(cache, 'second.ts', source('second'))).not.toBe(second);
    expect(cache.parses).toBe(4);
  });

  it('does not keep a file larger than its bound', () => {
    const cache = new TreeCache(10);
    expect(take(cache, 'big.ts', source('big'))).toBeNull();
    expect(cache.size).toBe(0);
  });
});
