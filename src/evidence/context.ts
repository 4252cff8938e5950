// One static analysis over one worktree: cached file listing, git-grep candidate
// discovery, parsed files, and the observation trace. Every byte the analyzer
// relies on goes through read(), which records the digest of exactly those
// bytes, so the resolver can later prove the evidence still holds.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { blake3, type Digest } from '../core/digest.js';
import type { ObservedFile } from '../core/worker.js';
import { gitBytes, LIST_WORKTREE_FILES } from '../repo/git.js';
import { covers, derive, fixedTest, regexTest, suffixPathspecs, type LineTest, type Superset } from './grep-derive.js';
import { absentOrThrow } from '../repo/unreadable.js';
import { lacksExtension, languageForPath, languageForShebang, parse, type LanguageId, type Tree } from './parse/treesitter.js';
import { definitionsNamed, factsOf, type Definition, type FileFacts } from './languages/index.js';
import type { FactIndex } from './fact-index.js';
import { listSearchedFiles, type SearchableTexts, type WorktreeTexts } from './worktree-texts.js';
import type { TreeCache } from './tree-cache.js';
import { notCodeMarks } from './generated-marks.js';

export interface GrepMatch {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

export interface GrepOptions {
  /** Match whole words only (git grep -w). */
  readonly word?: boolean;
  /** Treat patterns as fixed strings (default) or as extended regexes. */
  readonly regex?: boolean;
  /**
   * With `regex`: strings one of which every match contains (case-sensitively).
   * A fixed-string superset search for them then answers the expression
   * without another walk of the repository (evidence/grep-derive.ts).
   */
  readonly literals?: readonly string[];
  readonly ignoreCase?: boolean;
  /** Limit to these pathspecs (e.g. '*.rs'). */
  readonly pathspecs?: readonly string[];
  readonly maxMatches?: number;
}

export interface ParsedFile {
  readonly path: string;
  readonly language: LanguageId;
  readonly text: string;
  readonly tree: Tree;
}

/** Larger files are not analyzed (read() gives null): generated or vendored, not a maintainer's code. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_GREP_OUTPUT = 32 * 1024 * 1024;
const DEFAULT_MAX_MATCHES = 2_000;
/** Enough of a file's start to hold its `#!` line. */
const SHEBANG_BYTES = 256;
/** Lines a superset search may return before it is dropped (each search then runs on its own). */
const SUPERSET_MAX_MATCHES = 20_000;

export class AnalysisContext {
  private files: string[] | null = null;
  private readonly texts = new Map<string, string | null>();
  private readonly trees = new Map<string, ParsedFile | null>();
  private readonly grepCache = new Map<string, GrepMatch[]>();
  private readonly supersets: Superset[] = [];
  private readonly seen = new Map<string, Digest>();
  private readonly scriptLanguages = new Map<string, LanguageId | null>();
  /** `.gitattributes`' marks of paths that are not code (undefined: not read yet). */
  private notCode: ((path: string) => boolean) | null | undefined;
  private truncatedSearches = 0;
  /** git grep runs, each a walk of the whole repository (tests and benchmarks). */
  walks = 0;

  /** This analysis's searchable texts (undefined: not asked for yet). */
  private searchable: SearchableTexts | null | undefined;

  private readonly index: FactIndex | null;
  private readonly held: WorktreeTexts | null;
  private readonly snapshot: Digest | null;
  private readonly treeCache: TreeCache | null;
  /** Parsed files taken from treeCache: released, not freed, by dispose(). */
  private readonly borrowed: ParsedFile[] = [];

  /**
   * `prepared.facts`: facts of files extracted ahead of time
   * (evidence/fact-index.ts), served by facts() for the very bytes read here.
   * `prepared.texts`: the worktree's searchable text held in memory
   * (evidence/worktree-texts.ts), which answers fixed-string searches.
   * `prepared.snapshot`: the source snapshot the analysis runs on, when the
   * resolver took it: git's listing of an earlier analysis of the same
   * snapshot is reused. `prepared.trees`: syntax trees kept between analyses
   * (evidence/tree-cache.ts), taken for the very bytes read here.
   */
  constructor(
    readonly root: string,
    prepared: {
      readonly facts?: FactIndex | null;
      readonly texts?: WorktreeTexts | null;
      readonly snapshot?: Digest | null;
      readonly trees?: TreeCache | null;
    } = {},
  ) {
    this.index = prepared.facts ?? null;
    this.held = prepared.texts ?? null;
    this.snapshot = prepared.snapshot ?? null;
    this.treeCache = prepared.trees ?? null;
  }

  // The one scrubbed git runner: no inherited GIT_* (a GIT_DIR or
  // GIT_WORK_TREE in the caller's environment cannot redirect the search),
  // GIT_OPTIONAL_LOCKS=0 and LC_ALL=C.
  private git(args: string[], okCodes: number[] = [0]): string {
    return gitBytes(this.root, args, { okCodes, maxBuffer: MAX_GREP_OUTPUT }).toString('utf8');
  }

  /** Tracked and untracked, non-ignored files (repository-relative, / separated). */
  listFiles(): readonly string[] {
    this.files ??= this.git([...LIST_WORKTREE_FILES])
      .split('\0')
      .filter(Boolean);
    return this.files;
  }

  /**
   * Runs one fixed-string search for `literals` (no -w, no pathspec) whose
   * lines later fixed-string searches containing one of them are derived from
   * (evidence/grep-derive.ts). Kept only when it was not cut short.
   */
  prefetch(literals: readonly string[]): void {
    const patterns = [...new Set(literals.filter((l) => l.length > 0))];
    if (patterns.length === 0 || this.supersets.some((s) => covers(s.patterns, patterns))) return;
    let run: { matches: GrepMatch[]; truncated: boolean };
    try {
      run = this.runGrep(patterns, {}, SUPERSET_MAX_MATCHES);
    } catch {
      return; // too much output for a superset: each search runs on its own
    }
    if (!run.truncated) this.supersets.push({ patterns, matches: run.matches });
  }

  /** Candidate lines; cost grows with the matches, not with the repository. */
  grep(patterns: readonly string[], opts: GrepOptions = {}): readonly GrepMatch[] {
    if (patterns.length === 0) return [];
    const key = JSON.stringify([patterns, opts]);
    const cached = this.grepCache.get(key);
    if (cached) return cached;
    const max = opts.maxMatches ?? DEFAULT_MAX_MATCHES;
    // An expression with named literals is answered from a fixed-string search
    // for them — the subject's superset when it covers them, else one taken now
    // (git's fixed-string walk is much cheaper than its regex walk, and later
    // expressions on the same literals reuse it).
    let derived = this.fromSuperset(patterns, opts);
    if (!derived && opts.regex && opts.literals) {
      this.prefetch(opts.literals);
      derived = this.fromSuperset(patterns, opts);
    }
    const run = derived ? derive(derived.superset, derived.test, derived.suffixes, max) : this.runGrep(patterns, opts, max);
    if (run.truncated) this.truncatedSearches++;
    this.grepCache.set(key, run.matches);
    return run.matches;
  }

  /** The superset search and line test that answer this search, when one does. */
  private fromSuperset(patterns: readonly string[], opts: GrepOptions): { superset: Superset; test: LineTest; suffixes: readonly string[] } | null {
    if (opts.ignoreCase || (opts.regex && opts.word)) return null;
    const suffixes = suffixPathspecs(opts.pathspecs);
    if (suffixes === null) return null;
    const literals = opts.regex ? opts.literals : patterns;
    if (!literals || literals.length === 0) return null;
    const superset = this.supersets.find((s) => covers(s.patterns, literals));
    if (!superset) return null;
    const test = opts.regex ? regexTest(patterns) : fixedTest(patterns, opts.word === true);
    return test ? { superset, test, suffixes } : null;
  }

  private runGrep(patterns: readonly string[], opts: GrepOptions, max: number): { matches: GrepMatch[]; truncated: boolean } {
    // Fixed strings, case-sensitive, in every file or in `*.ext` files: from
    // the held texts when there are some. Their listing costs about one walk:
    // an analysis of a known snapshot takes it at once (later analyses of the
    // same snapshot reuse it and walk nothing); one without a snapshot only
    // from its second walk on, since most needs walk once (the subject's
    // superset search). A pattern git would split at a newline, or one holding
    // the replacement character a held text may carry for bytes that are not
    // UTF-8, goes to git.
    const suffixes = suffixPathspecs(opts.pathspecs);
    const plain = !opts.regex && !opts.ignoreCase && suffixes !== null && patterns.every((p) => p.length > 0 && !p.includes('\n') && !p.includes('\uFFFD'));
    const texts = plain && (this.snapshot !== null || this.walks > 0) ? this.searchableTexts() : null;
    if (texts && suffixes) return texts.search(patterns, fixedTest(patterns, opts.word === true), suffixes, max);
    this.walks++;
    const args = ['grep', '--untracked', '-n', '-I', '--no-color', '--full-name', '-z'];
    args.push(opts.regex ? '-E' : '-F');
    if (opts.word) args.push('-w');
    if (opts.ignoreCase) args.push('-i');
    for (const p of patterns) args.push('-e', p);
    args.push('--', ...(opts.pathspecs ?? []));
    const out: GrepMatch[] = [];
    for (const row of this.git(args, [0, 1]).split('\n')) {
      if (!row) continue;
      // -z: path\0line\0text
      const a = row.indexOf('\0');
      const b = row.indexOf('\0', a + 1);
      if (a < 0 || b < 0) continue;
      out.push({ path: row.slice(0, a), line: Number(row.slice(a + 1, b)), text: row.slice(b + 1) });
      if (out.length >= max) return { matches: out, truncated: true };
    }
    return { matches: out, truncated: false };
  }

  /** git's listing of this snapshot from an earlier analysis, when it still holds. */
  private knownListing(): readonly string[] | null {
    return this.snapshot && this.held ? this.held.listingAt(this.root, this.snapshot) : null;
  }

  /** The held texts of the files git grep would search now: at most one listing walk per analysis. */
  private searchableTexts(): SearchableTexts | null {
    if (this.searchable !== undefined) return this.searchable;
    this.searchable = null;
    const held = this.held;
    if (!held?.serves(this.root)) return null;
    let listing = this.knownListing();
    if (!listing) {
      const settings = this.snapshot ? held.settingsNow(this.root) : null;
      let listed: string[];
      try {
        this.walks++;
        listed = listSearchedFiles(this.root);
      } catch {
        return null; // the search itself runs git, and reports what fails
      }
      // A path that is not UTF-8 cannot be opened under its decoded name: git searches it.
      if (listed.some((p) => p.includes('\uFFFD'))) return null;
      if (this.snapshot && settings !== null) held.rememberListing(this.root, this.snapshot, settings, listed);
      listing = listed;
    }
    // The listing reused for this snapshot comes with texts already checked in it.
    const texts = held.current(this.root, listing, this.snapshot);
    this.searchable = texts;
    return texts;
  }

  /**
   * UTF-8 text of a file, recorded in the observation trace; null when absent,
   * not a regular file, binary or too large. A file that is there but cannot
   * be read throws an UnreadableFileError: it is never taken for absent.
   */
  read(path: string): string | null {
    if (this.texts.has(path)) return this.texts.get(path)!;
    const source = readSource(this.root, path);
    if (source) this.seen.set(path, source.digest);
    const text = source?.text ?? null;
    this.texts.set(path, text);
    return text;
  }

  /**
   * The facts of a file the analyzer parses (null when parsed() is): from the
   * fact index when it holds them for the bytes just read, else extracted now.
   * For callers that need the facts and not the tree.
   */
  facts(path: string): FileFacts | null {
    const indexed = this.indexed(path);
    if (indexed) return indexed;
    const parsed = this.parsed(path);
    return parsed ? factsOf(parsed) : null;
  }

  /**
   * The definitions named `name` in a file the analyzer parses, the same as
   * facts(path)'s with that name; when no facts were extracted for the file,
   * only the rows holding the name are queried (languages/index.ts).
   */
  definitionsNamed(path: string, name: string): readonly Definition[] {
    const indexed = this.indexed(path);
    if (indexed) return indexed.definitions.filter((d) => d.name === name);
    const parsed = this.parsed(path);
    return parsed ? definitionsNamed(parsed, name) : [];
  }

  /**
   * The language of a file: by its extension, or for a file without one
   * (`bin/http-server`) by its `#!` line. Only that line is read, and it is not
   * recorded as observed: it decides what to parse, not what the evidence says.
   */
  languageOf(path: string): LanguageId | null {
    const byName = languageForPath(path);
    if (byName || !lacksExtension(path)) return byName;
    let language = this.scriptLanguages.get(path);
    if (language === undefined) {
      language = languageForShebang(firstBytes(join(this.root, path), SHEBANG_BYTES));
      this.scriptLanguages.set(path, language);
    }
    return language;
  }

  /** Whether the repository marks `path` as generated, vendored or documentation (evidence/generated-marks.ts). */
  isMarkedNotCode(path: string): boolean {
    if (this.notCode === undefined) this.notCode = notCodeMarks(this.read('.gitattributes') ?? '');
    return this.notCode?.(path) ?? false;
  }

  /**
   * A search of the source files (`pathspecs`: their `*.ext` patterns) that
   * also covers the scripts without an extension this analysis has met (a
   * pathspec cannot name them). Repositories without such scripts pay nothing.
   */
  grepSource(patterns: readonly string[], opts: GrepOptions & { readonly pathspecs: readonly string[] }): readonly GrepMatch[] {
    const matches = this.grep(patterns, opts);
    const scripts = [...this.scriptLanguages].filter(([, language]) => language !== null).map(([path]) => path);
    if (scripts.length === 0) return matches;
    const inScripts = this.grep(patterns, { ...opts, pathspecs: [] }).filter((m) => scripts.includes(m.path));
    // Still at most `maxMatches` lines: a caller reading more than its bound as "cut short" must not be misled.
    return inScripts.length === 0 ? matches : [...matches, ...inScripts].slice(0, opts.maxMatches ?? DEFAULT_MAX_MATCHES);
  }

  /** The fact index's facts for the bytes of `path` read now, when it holds them and the file was not parsed here. */
  private indexed(path: string): FileFacts | null {
    if (!this.index || this.trees.has(path) || !this.languageOf(path) || this.read(path) === null) return null;
    const digest = this.seen.get(path);
    return digest ? this.index.get(path, digest) : null;
  }

  parsed(path: string): ParsedFile | null {
    if (this.trees.has(path)) return this.trees.get(path)!;
    const language = this.languageOf(path);
    const text = language ? this.read(path) : null;
    let result: ParsedFile | null = null;
    if (language && text !== null) {
      // The digest of the bytes just read: a tree kept for other bytes is not taken.
      const digest = this.seen.get(path);
      const kept = this.treeCache && digest ? this.treeCache.acquire(path, digest, language, text) : null;
      if (kept) this.borrowed.push(kept);
      result = kept ?? { path, language, text, tree: parse(language, text) };
    }
    this.trees.set(path, result);
    return result;
  }

  /** Whether some search stopped at its match bound, so conclusions drawn from it may be incomplete. */
  get truncated(): boolean {
    return this.truncatedSearches > 0;
  }

  /** Files parsed so far (successfully), sorted. */
  parsedPaths(): string[] {
    return [...this.trees.entries()].filter(([, p]) => p !== null).map(([path]) => path).sort();
  }

  /** Files read so far with the digest of the bytes read. */
  observed(): ObservedFile[] {
    return [...this.seen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, digest]) => ({ path, digest }));
  }

  /** Releases tree-sitter memory (trees live in WASM memory, not the JS heap). */
  dispose(): void {
    const borrowed = new Set(this.borrowed);
    for (const p of this.trees.values()) if (p && !borrowed.has(p)) p.tree.delete();
    this.trees.clear();
    this.treeCache?.release(this.borrowed);
    this.borrowed.length = 0;
  }
}

/**
 * A file's bytes as the analyzer takes them: their digest, and their UTF-8
 * text — null when binary. Null when absent, not a regular file or larger
 * than MAX_FILE_BYTES; a file that is there but cannot be read throws an
 * UnreadableFileError (it is never taken for absent).
 */
export function readSource(root: string, path: string): { readonly digest: Digest; readonly text: string | null; readonly bytes: number } | null {
  try {
    const abs = join(root, path);
    const st = statSync(abs);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return null;
    const bytes = readFileSync(abs);
    return { digest: blake3(bytes), text: bytes.includes(0) ? null : bytes.toString('utf8'), bytes: bytes.length };
  } catch (e) {
    return absentOrThrow(e, path);
  }
}

/** Up to `n` bytes from the start of a regular file, as text; empty when it cannot be read. */
function firstBytes(abs: string, n: number): string {
  let fd: number | null = null;
  try {
    if (!statSync(abs).isFile()) return '';
    fd = openSync(abs, 'r');
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0)).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
