// Tree-sitter grammars shipped as WASM inside @vscode/tree-sitter-wasm. The
// runtime and each grammar load once per process; parsing is synchronous after.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TS from '@vscode/tree-sitter-wasm';

const require = createRequire(import.meta.url);
const wasmDir = dirname(require.resolve('@vscode/tree-sitter-wasm'));
// Loaded on first use: a server answering from the certified store never parses.
let tsModule: typeof TS | null = null;
const tsLib = (): typeof TS => (tsModule ??= require('@vscode/tree-sitter-wasm') as typeof TS);

export type Tree = TS.Tree;
export type SyntaxNode = TS.Node;
export type Query = TS.Query;
export type QueryMatch = TS.QueryMatch;

export const LANGUAGES = ['rust', 'typescript', 'tsx', 'javascript', 'python', 'go'] as const;
export type LanguageId = (typeof LANGUAGES)[number];

const GRAMMAR_FILE: Record<LanguageId, string> = {
  rust: 'tree-sitter-rust.wasm',
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
};

const EXTENSIONS: Record<string, LanguageId> = {
  '.rs': 'rust',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.go': 'go',
};

export function languageForPath(path: string): LanguageId | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || path.endsWith('.d.ts')) return null;
  return EXTENSIONS[path.slice(dot)] ?? null;
}

/** Interpreters named on a `#!` line, for scripts without an extension (`bin/http-server`, `#!/usr/bin/env node`). */
const INTERPRETERS: Record<string, LanguageId> = {
  node: 'javascript',
  nodejs: 'javascript',
  'ts-node': 'typescript',
  tsx: 'typescript',
  bun: 'typescript',
  deno: 'typescript',
  python: 'python',
};

/** Whether the file name has no extension, so only its `#!` line can tell its language. */
export function lacksExtension(path: string): boolean {
  return !path.slice(path.lastIndexOf('/') + 1).includes('.');
}

/** The language a `#!` line names (`#!/usr/bin/env node`, `#!/usr/bin/python3 -u`, `#!/usr/bin/env -S deno run`), or null. */
export function languageForShebang(head: string): LanguageId | null {
  const words = /^#![ \t]*([^\n]*)/.exec(head)?.[1]?.trim().split(/\s+/) ?? [];
  const program = (words[0] ?? '').slice((words[0] ?? '').lastIndexOf('/') + 1);
  // `env` runs the first word that is not one of its own options.
  const name = program === 'env' ? (words.slice(1).find((w) => !w.startsWith('-')) ?? '') : program;
  return INTERPRETERS[/^python[\d.]*$/.test(name) ? 'python' : name] ?? null;
}

let runtime: Promise<void> | null = null;
const languages = new Map<LanguageId, Promise<TS.Language>>();
const parsers = new Map<LanguageId, TS.Parser>();
const loaded = new Map<LanguageId, TS.Language>();

function init(): Promise<void> {
  runtime ??= tsLib().Parser.init({ locateFile: (file: string) => join(wasmDir, file) });
  return runtime;
}

/** Loads the grammars once; call before the synchronous parse functions. */
export async function loadLanguages(ids: readonly LanguageId[] = LANGUAGES): Promise<void> {
  await init();
  await Promise.all(
    ids.map(async (id) => {
      let pending = languages.get(id);
      if (!pending) {
        pending = tsLib().Language.load(join(wasmDir, GRAMMAR_FILE[id]));
        languages.set(id, pending);
      }
      loaded.set(id, await pending);
    }),
  );
}

function language(id: LanguageId): TS.Language {
  const lang = loaded.get(id);
  if (!lang) throw new Error(`tree-sitter grammar ${id} is not loaded; call loadLanguages() first`);
  return lang;
}

export function parse(id: LanguageId, source: string): Tree {
  let parser = parsers.get(id);
  if (!parser) {
    parser = new (tsLib().Parser)();
    parser.setLanguage(language(id));
    parsers.set(id, parser);
  }
  const tree = parser.parse(source);
  if (!tree) throw new Error(`tree-sitter failed to parse ${id} source`);
  return tree;
}

const queries = new Map<string, TS.Query>();

/** The queries compiled so far, as `language: first pattern line` (tests: what a rehearsal readied). */
export function compiledQueries(): string[] {
  return [...queries.keys()].map((k) => {
    const [id, source] = k.split('\0') as [string, string];
    return `${id}: ${source.trim().split('\n', 1)[0]}`;
  });
}

/** Compiled queries are cached per (language, source text). */
export function query(id: LanguageId, source: string): TS.Query {
  const key = `${id}\0${source}`;
  let q = queries.get(key);
  if (!q) {
    q = new (tsLib().Query)(language(id), source);
    queries.set(key, q);
  }
  return q;
}
