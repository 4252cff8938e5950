// Syntax trees kept between an analyzer thread's needs (src/evidence/tree-cache.ts):
// one tree per path and exact bytes, pinned while an analysis uses it, freed
// least recently used first once the source held passes the bound.
import { beforeAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { loadLanguages, parse } from '../../src/evidence/parse/treesitter.js';
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

  it('keeps a tree parsed elsewhere while it has room, serves it for the same bytes, and never frees another for it', () => {
    const one = source('alpha').length;
    const cache = new TreeCache(2 * one);
    const offered = (path: string, name: string) => {
      const text = source(name);
      return { digest: blake3(Buffer.from(text)), file: { path, language: 'typescript' as const, text, tree: parse('typescript', text) } };
    };
    const alpha = offered('alpha.ts', 'alpha');
    const bravo = offered('bravo.ts', 'bravo');
    const delta = offered('delta.ts', 'delta');
    expect(cache.offer('alpha.ts', alpha.digest, alpha.file)).toBe(true);
    // A path already held keeps its tree; the caller still owns the one offered.
    const again = offered('alpha.ts', 'alpha');
    expect(cache.offer('alpha.ts', again.digest, again.file)).toBe(false);
    again.file.tree.delete();
    expect(cache.offer('bravo.ts', bravo.digest, bravo.file)).toBe(true);
    // Full: the third is refused rather than the first two freed for it.
    expect(cache.offer('delta.ts', delta.digest, delta.file)).toBe(false);
    delta.file.tree.delete();
    expect(cache.size).toBe(2);
    expect(take(cache, 'alpha.ts', source('alpha'))).toBe(alpha.file);
    expect([cache.parses, cache.reused]).toEqual([0, 1]);
    // Other bytes under the same path: parsed afresh, the offered tree replaced.
    const edited = take(cache, 'bravo.ts', source('edited'))!;
    expect(edited).not.toBe(bravo.file);
    expect(cache.parses).toBe(1);
  });

  it('does not keep a file larger than its bound', () => {
    const cache = new TreeCache(10);
    expect(take(cache, 'big.ts', source('big'))).toBeNull();
    expect(cache.size).toBe(0);
  });
});
