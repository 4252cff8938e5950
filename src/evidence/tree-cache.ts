// Syntax trees kept from one need to the next by the analyzer thread of a
// server. Parsing is most of what a cold need still costs once its searches
// are answered from memory (evidence/worktree-texts.ts): web-tree-sitter
// parses ~3–4 KB of source per ms here, and a trace parses every file its
// subject and carriers occur in. A session's needs come back to the same
// files (the module a feature lives in, its callers, its tests).
//
// An entry is one file's tree for the exact bytes it was parsed from (their
// digest): a context asks for the path with the digest of the bytes it has
// just read, so an edited file is parsed afresh. An analysis pins the trees
// it takes until it is disposed — runs of the thread may interleave at their
// checkpoints — and only unpinned trees are freed, least recently used
// first, once the source held passes TREE_CACHE.maxSourceChars (tree
// memory is WASM memory, tens of times the source). The fact index fills it
// first with the trees it parses anyway (offer): within the bound, a cold
// need then parses nothing.
import type { Digest } from '../core/digest.js';
import { TREE_CACHE } from '../core/limits.js';
import type { ParsedFile } from './context.js';
import { parse, type LanguageId } from './parse/treesitter.js';

interface Entry {
  readonly file: ParsedFile;
  readonly digest: Digest;
  pins: number;
}

export class TreeCache {
  /** Least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly entries = new Map<string, Entry>();
  private heldChars = 0;
  /** Trees replaced while pinned: freed when their last pin goes. */
  private readonly orphans = new Set<Entry>();
  /** Parses done, and trees served without one (tests). */
  parses = 0;
  reused = 0;

  constructor(private readonly maxSourceChars: number = TREE_CACHE.maxSourceChars) {}

  /** Source characters whose trees are held. */
  get chars(): number {
    return this.heldChars;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The parsed file for `text` (whose digest is `digest`), pinned until
   * release(): held, or parsed now and held. Null when it is larger than the
   * cache: the caller parses it and frees it itself.
   */
  acquire(path: string, digest: Digest, language: LanguageId, text: string): ParsedFile | null {
    if (text.length > this.maxSourceChars) return null;
    let entry = this.entries.get(path);
    if (entry && entry.digest !== digest) {
      this.entries.delete(path);
      this.heldChars -= entry.file.text.length;
      // Another analysis may still use the older tree: it is freed when that one lets it go.
      if (entry.pins === 0) entry.file.tree.delete();
      else this.orphans.add(entry);
      entry = undefined;
    }
    if (!entry) {
      this.parses++;
      entry = { file: { path, language, text, tree: parse(language, text) }, digest, pins: 0 };
      this.heldChars += text.length;
    } else {
      this.reused++;
      this.entries.delete(path);
    }
    this.entries.set(path, entry);
    entry.pins++;
    this.evict();
    return entry.file;
  }

  /**
   * Keeps a tree parsed elsewhere (the fact index parses every file once) for
   * the bytes whose digest is `digest`, when the bound has room for it without
   * freeing another: true when taken (the cache frees it from then on), false
   * when the caller still owns it. Filling the bound ahead of the first needs
   * holds no more than their own trees could, and a cold need then parses
   * only what did not fit.
   */
  offer(path: string, digest: Digest, file: ParsedFile): boolean {
    if (this.entries.has(path) || this.heldChars + file.text.length > this.maxSourceChars) return false;
    this.entries.set(path, { file, digest, pins: 0 });
    this.heldChars += file.text.length;
    return true;
  }

  /** Lets go of files acquire() gave. */
  release(files: readonly ParsedFile[]): void {
    for (const file of files) {
      const entry = this.entries.get(file.path);
      if (entry && entry.file === file) {
        entry.pins--;
        continue;
      }
      for (const orphan of this.orphans) {
        if (orphan.file !== file) continue;
        if (--orphan.pins === 0) {
          orphan.file.tree.delete();
          this.orphans.delete(orphan);
        }
        break;
      }
    }
    this.evict();
  }

  /** Frees unpinned trees, least recently used first, while over the bound. */
  private evict(): void {
    if (this.heldChars <= this.maxSourceChars) return;
    for (const [path, entry] of this.entries) {
      if (this.heldChars <= this.maxSourceChars) return;
      if (entry.pins > 0) continue;
      this.entries.delete(path);
      this.heldChars -= entry.file.text.length;
      entry.file.tree.delete();
    }
  }
}
