// The worktree's searchable text held in memory by the analyzer thread of a
// server, so that a cold need's searches do not each walk the repository.
// A trace asks git grep for the subject, then for every callee, caller and
// renamed carrier it meets: 2–20 walks per need on the development set's
// repositories, 30–60% of a cold need's time.
//
// Exact by construction, not by imitation of git's rules:
//  - the files searched are the ones git grep itself lists as searchable
//    (`git grep --untracked -I -l -e ^`: git's own ignore rules, binary test,
//    attributes, symlinks and nested repositories), listed once per need;
//  - a file's text is the one held only while its lstat (size, mtime, ctime,
//    inode, device) is unchanged and its mtime was already older than the
//    read by the racy window (repo/stat-signature.ts); otherwise it is read
//    again;
//  - lines are matched with git grep -F [-w]'s rules (evidence/grep-derive.ts)
//    and kept in git's output order (the listing's order, then line order).
// Over its bounds (WORKTREE_TEXTS) the store gives up for the server's life
// and every search runs git grep as before. Given the source snapshot an
// analysis runs on (the resolver's digest, SPEC §9: HEAD, the index, every
// change and untracked file with its bytes), git's listing and the check of
// every file's stat are kept for that snapshot, and a later analysis of the
// same snapshot repeats neither.
import { lstatSync, readFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { WORKTREE_TEXTS } from '../core/limits.js';
import { signatureOf, vouches, type StatSignature } from '../repo/stat-signature.js';
import { gitSettingsFiles, settingsState } from '../repo/git-settings.js';
import { gitBytes } from '../repo/git.js';
import type { GrepMatch } from './context.js';
import { inPathspecs, type LineTest } from './grep-derive.js';

/** git grep's own list of the files it searches (every file with a line, read as text). */
export const LIST_SEARCHED_FILES: readonly string[] = ['grep', '--untracked', '-I', '-l', '-z', '--no-color', '--full-name', '-e', '^', '--'];

/** The files git grep searches in `root` now, in its order (one walk of the repository). */
export function listSearchedFiles(root: string): string[] {
  return gitBytes(root, LIST_SEARCHED_FILES, { okCodes: [0, 1] }).toString('utf8').split('\0').filter(Boolean);
}

interface Held extends StatSignature {
  /** Wall-clock ms just before the bytes were read. */
  readonly readAtMs: number;
  readonly text: string;
  /** Bytes read (what the bound counts). */
  readonly length: number;
  /** Offsets where each line starts, computed on the first match. */
  lineStarts: number[] | null;
}

export interface TextBounds {
  readonly maxFiles: number;
  /** Bytes of text held in all. */
  readonly maxBytes: number;
}

/** The texts of one need's searchable files, in git's order. */
export class SearchableTexts {
  constructor(private readonly files: readonly { readonly path: string; readonly held: Held }[]) {}

  /**
   * The lines git grep -F would print for `patterns` (every line containing one
   * of them), narrowed by `test` (e.g. -w) and path `suffixes` (`*.ext`
   * pathspecs), cut at `max` lines.
   */
  search(patterns: readonly string[], test: LineTest, suffixes: readonly string[], max: number): { matches: GrepMatch[]; truncated: boolean } {
    const out: GrepMatch[] = [];
    for (const { path, held } of this.files) {
      if (!inPathspecs(path, suffixes)) continue;
      const text = held.text;
      const lines = new Set<number>();
      for (const p of patterns) for (let at = text.indexOf(p); at !== -1; at = text.indexOf(p, at + 1)) lines.add(lineOf(held, at));
      for (const line of [...lines].sort((a, b) => a - b)) {
        const starts = held.lineStarts!;
        const from = starts[line - 1]!;
        const end = text.indexOf('\n', from);
        const lineText = text.slice(from, end === -1 ? text.length : end);
        if (!test(lineText)) continue;
        out.push({ path, line, text: lineText });
        if (out.length >= max) return { matches: out, truncated: true };
      }
    }
    return { matches: out, truncated: false };
  }
}

/** 1-based line of offset `at`. */
function lineOf(held: Held, at: number): number {
  if (!held.lineStarts) {
    const starts = [0];
    for (let i = held.text.indexOf('\n'); i !== -1; i = held.text.indexOf('\n', i + 1)) starts.push(i + 1);
    held.lineStarts = starts;
  }
  const starts = held.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

export class WorktreeTexts {
  private readonly held = new Map<string, Held>();
  private heldBytes = 0;
  /** Why the store gave up (over its bounds), for good. */
  private givenUp: string | null = null;
  /** The worktree whose texts are held: the first one filled (a thread serves one repository). */
  private root: string | null = null;
  /** Files read (not vouched for by their stat), and passes over every file's stat, for tests. */
  reads = 0;
  checks = 0;
  /** The texts last checked file by file, for the source snapshot (and listing) they were checked in. */
  private checked: { readonly snapshot: string; readonly listing: readonly string[]; readonly texts: SearchableTexts } | null = null;
  /** Where git's settings for the held worktree come from (repo/git-settings.ts); null: not known, no listing is reused. */
  private settingsFiles: readonly string[] | null = null;
  /** git's listing for one source snapshot, and the state of its settings then. */
  private listed: { readonly snapshot: string; readonly settings: string; readonly paths: readonly string[] } | null = null;

  /** `clock`: wall-clock ms, compared with file times (tests move it). */
  constructor(
    private readonly bounds: TextBounds = WORKTREE_TEXTS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Null while the store answers searches; else why it does not. */
  get disabled(): string | null {
    return this.givenUp;
  }

  /** Whether it answers searches in `root` (nothing is listed for a root it does not hold). */
  serves(root: string): boolean {
    return this.givenUp === null && (this.root === null || this.root === root);
  }

  get files(): number {
    return this.held.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * The texts of `listing` (git's LIST_SEARCHED_FILES, in its order) as they
   * are now: held ones whose stat still vouches for them, the rest read; for
   * the source snapshot `snapshot` when the caller knows it, so that a later
   * call for the same snapshot and listing looks at no file. Null when the
   * store has given up (over its bounds) or holds another worktree.
   */
  current(root: string, listing: readonly string[], snapshot: string | null = null): SearchableTexts | null {
    this.root ??= root;
    if (root !== this.root || this.givenUp || !this.admits(listing.length)) return null;
    // Checked for this very snapshot and listing already: the same source
    // snapshot has the same bytes, so no file is looked at again.
    if (snapshot !== null && this.checked?.snapshot === snapshot && this.checked.listing === listing) return this.checked.texts;
    this.checks++;
    const files: { path: string; held: Held }[] = [];
    const listed = new Set<string>();
    for (const path of listing) {
      listed.add(path);
      const held = this.fresh(root, path);
      if (this.givenUp) return null;
      if (held) files.push({ path, held });
    }
    for (const path of this.held.keys()) if (!listed.has(path)) this.drop(path);
    const texts = new SearchableTexts(files);
    this.checked = snapshot === null ? null : { snapshot, listing, texts };
    return texts;
  }

  /**
   * Reads `listing`'s texts ahead of the first need, one file at a time;
   * `between()` runs after each (the thread waits there while a run is going on).
   */
  async fill(root: string, listing: readonly string[], between: () => Promise<void>): Promise<void> {
    this.root ??= root;
    if (root !== this.root || !this.admits(listing.length)) return;
    try {
      this.settingsFiles = gitSettingsFiles(root);
    } catch {
      this.settingsFiles = null; // every analysis lists the files itself
    }
    for (const path of listing) {
      await between();
      this.fresh(root, path);
      if (this.givenUp) return;
    }
  }

  /**
   * git's listing of the searchable files as it was for source snapshot
   * `snapshot` (SPEC §9: HEAD, the index, every change and untracked file
   * with its bytes), when git's settings from outside the worktree are as
   * they were then: the same snapshot under the same settings lists the same
   * files. Null otherwise (the caller lists them).
   */
  listingAt(root: string, snapshot: string): readonly string[] | null {
    if (!this.listed || this.listed.snapshot !== snapshot || !this.serves(root) || !this.settingsFiles) return null;
    return settingsState(this.settingsFiles, this.clock()) === this.listed.settings ? this.listed.paths : null;
  }

  /**
   * The state of git's settings now, taken before a listing that
   * rememberListing() may keep: a change after it then shows as a different
   * state. Null when no listing can be kept.
   */
  settingsNow(root: string): string | null {
    return this.serves(root) && this.settingsFiles ? settingsState(this.settingsFiles, this.clock()) : null;
  }

  /**
   * Keeps git's listing for later analyses of source snapshot `snapshot`
   * (taken before the listing, as `settings` was). A worktree that changed
   * between the two has another snapshot from then on, so the listing is
   * only reused if the worktree comes back to exactly `snapshot`.
   */
  rememberListing(root: string, snapshot: string, settings: string, paths: readonly string[]): void {
    if (this.serves(root)) this.listed = { snapshot, settings, paths };
  }

  private admits(files: number): boolean {
    if (files > this.bounds.maxFiles) this.giveUp(`more than ${this.bounds.maxFiles} searchable files`);
    return this.givenUp === null;
  }

  private giveUp(why: string): void {
    this.givenUp = why;
    this.listed = null;
    this.checked = null;
    this.held.clear();
    this.heldBytes = 0;
  }

  /** The held text of `path` if its stat still vouches for it, else read now; null when it is not a regular file any more. */
  private fresh(root: string, path: string): Held | null {
    let st: BigIntStats;
    try {
      st = lstatSync(join(root, path), { bigint: true });
    } catch {
      this.drop(path);
      return null;
    }
    if (!st.isFile()) {
      this.drop(path);
      return null;
    }
    const held = this.held.get(path);
    if (held && vouches(held, signatureOf(st), held.readAtMs)) return held;
    const readAtMs = this.clock();
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(root, path));
    } catch {
      this.drop(path);
      return null;
    }
    this.reads++;
    this.drop(path);
    if (this.heldBytes + bytes.length > this.bounds.maxBytes) {
      this.giveUp(`more than ${this.bounds.maxBytes} bytes of searchable text`);
      return null;
    }
    // The stat taken before the read: a write during the read leaves it
    // unlike the next stat, so the file is read again then.
    const entry: Held = { ...signatureOf(st), readAtMs, text: bytes.toString('utf8'), length: bytes.length, lineStarts: null };
    this.held.set(path, entry);
    this.heldBytes += bytes.length;
    return entry;
  }

  private drop(path: string): void {
    const held = this.held.get(path);
    if (!held) return;
    this.held.delete(path);
    this.heldBytes -= held.length;
  }
}
