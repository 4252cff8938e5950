// Facts of a repository's files extracted ahead of time, by the analyzer
// thread of a server while it is quiet (evidence/analyzer-thread.ts). A cold
// resolution otherwise parses every file its subject occurs in to find the
// definitions or declarations among them — about as long as the `git grep`
// that found the files — although it goes on to need the tree of one or two.
// An entry holds for one path and the digest of the bytes it was extracted
// from: AnalysisContext.facts() reads the file, and takes the entry only for
// those very bytes, so an edited file is parsed afresh, never answered from
// an older version.
import type { Digest } from '../core/digest.js';
import { FACT_INDEX } from '../core/limits.js';
import { isTestPath } from '../core/test-code.js';
import { readSource, type ParsedFile } from './context.js';
import { factsOf, type FileFacts } from './languages/index.js';
import { languageForPath, parse } from './parse/treesitter.js';

export class FactIndex {
  private readonly entries = new Map<string, { readonly digest: Digest; readonly facts: FileFacts }>();

  /** The facts of `path` extracted from the bytes whose digest is `digest`, if indexed. */
  get(path: string, digest: Digest): FileFacts | null {
    const entry = this.entries.get(path);
    return entry && entry.digest === digest ? entry.facts : null;
  }

  set(path: string, digest: Digest, facts: FileFacts): void {
    this.entries.set(path, { digest, facts });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The facts held, in the order they were indexed. */
  held(): Iterable<[string, FileFacts]> {
    return [...this.entries].map(([path, e]) => [path, e.facts] as [string, FileFacts]);
  }
}

/** A subject of the repository's own code, for a warm-up need (cli/warm-up.ts). */
export interface SampleSubject {
  readonly kind: 'symbol' | 'cli_option' | 'configuration_key';
  readonly name: string;
}

/**
 * Up to one function, one command-line option and one configuration key
 * declared outside tests, the first the index holds of each (code is indexed
 * before tests): subjects every route can be asked about on this repository.
 */
export function sampleSubjects(index: FactIndex): SampleSubject[] {
  let symbol: string | null = null;
  let option: string | null = null;
  let key: string | null = null;
  for (const [, facts] of index.held()) {
    symbol ??= facts.definitions.find((d) => !d.inTest && (d.kind === 'function' || d.kind === 'method') && d.name.length >= 4)?.name ?? null;
    option ??= facts.options.find((o) => !o.inTest && o.longs.length > 0)?.longs[0] ?? null;
    key ??= facts.configKeys.find((k) => !k.inTest && k.key.length > 0)?.key ?? null;
    if (symbol && option && key) break;
  }
  return [
    ...(symbol ? [{ kind: 'symbol' as const, name: symbol }] : []),
    ...(option ? [{ kind: 'cli_option' as const, name: `--${option}` }] : []),
    ...(key ? [{ kind: 'configuration_key' as const, name: key }] : []),
  ];
}

export interface IndexBuild {
  readonly files: number;
  /** Source bytes parsed. */
  readonly bytes: number;
  /** Why it stopped before every analyzed file was indexed, if it did. */
  readonly stopped: string | null;
}

/**
 * The order files are indexed in: code before tests (a locate never consults
 * test files), then the listing's order. Only files the analyzer parses.
 */
export function indexOrder(paths: readonly string[]): string[] {
  const analyzed = paths.filter((p) => languageForPath(p) !== null);
  return [...analyzed.filter((p) => !isTestPath(p)), ...analyzed.filter((p) => isTestPath(p))];
}

/**
 * Extracts the facts of `paths` (repository-relative, in the order given) into
 * `index`, every lazily extracted part included, within `bounds` (FACT_INDEX).
 * `between()` runs after each file: the thread waits there while a resolution
 * runs, so indexing never competes with one. Files that cannot be read are
 * skipped (a resolution reads them itself and says why).
 */
export async function buildFactIndex(
  root: string,
  paths: readonly string[],
  index: FactIndex,
  between: () => Promise<void>,
  opts: {
    readonly bounds?: { readonly maxFiles: number; readonly maxBytes: number; readonly maxFileBytes: number };
    /** Offered each parsed file and its digest; true when it keeps the tree (evidence/tree-cache.ts offer), which is then not freed here. */
    readonly keep?: (path: string, digest: Digest, file: ParsedFile) => boolean;
  } = {},
): Promise<IndexBuild> {
  const bounds = opts.bounds ?? FACT_INDEX;
  let bytes = 0;
  let files = 0;
  for (const path of paths) {
    if (files >= bounds.maxFiles) return { files, bytes, stopped: `${bounds.maxFiles} files` };
    if (bytes >= bounds.maxBytes) return { files, bytes, stopped: `${bounds.maxBytes} bytes` };
    await between();
    const language = languageForPath(path);
    let source: ReturnType<typeof readSource>;
    try {
      source = readSource(root, path);
    } catch {
      continue;
    }
    if (!language || !source || source.text === null || source.bytes > bounds.maxFileBytes) continue;
    const file: ParsedFile = { path, language, text: source.text, tree: parse(language, source.text) };
    let kept = false;
    try {
      const facts = factsOf(file);
      // The option and key declarations are extracted on first use, from the
      // tree: extract them now.
      index.set(path, source.digest, { definitions: facts.definitions, options: facts.options, configKeys: facts.configKeys });
      kept = opts.keep?.(path, source.digest, file) ?? false;
    } finally {
      if (!kept) file.tree.delete();
    }
    files++;
    bytes += source.bytes;
  }
  return { files, bytes, stopped: null };
}
