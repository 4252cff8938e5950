// Dispatch from a parsed file to its language's extractor, once per file.
import type { ParsedFile } from '../context.js';
import type { LanguageId } from '../parse/treesitter.js';
import { isTestPath } from '../../core/test-code.js';
import type { Definition, FileFacts } from './facts.js';
import { extractGo, goDefinitions } from './go.js';
import { extractPython, pythonDefinitions } from './python.js';
import { extractRust, rustDefinitions } from './rust.js';
import { focusOn, type NameFocus } from './syntax.js';
import { extractTypeScript, typeScriptDefinitions } from './typescript.js';

const cache = new WeakMap<ParsedFile, FileFacts>();

/** Each language's extractors: every fact of a file, and its definitions of one name. */
interface Extractors {
  readonly facts: (file: ParsedFile, fileIsTest: boolean) => FileFacts;
  /** With `tests` false an extractor may skip what finds test blocks alone (their kind is 'test' either way). */
  readonly definitions: (file: ParsedFile, fileIsTest: boolean, focus?: NameFocus, tests?: boolean) => Definition[];
}

const TYPESCRIPT: Extractors = { facts: extractTypeScript, definitions: typeScriptDefinitions };
const EXTRACTORS: Record<LanguageId, Extractors> = {
  rust: { facts: extractRust, definitions: rustDefinitions },
  python: { facts: extractPython, definitions: pythonDefinitions },
  go: { facts: extractGo, definitions: goDefinitions },
  typescript: TYPESCRIPT,
  tsx: TYPESCRIPT,
  javascript: TYPESCRIPT,
};

export function factsOf(file: ParsedFile): FileFacts {
  let facts = cache.get(file);
  if (!facts) {
    facts = EXTRACTORS[file.language].facts(file, isTestPath(file.path));
    cache.set(file, facts);
  }
  return facts;
}

/**
 * The file's definitions named `name`, the same as factsOf(file)'s with that
 * name: taken from its facts once extracted, else found by a query limited to
 * the rows that hold the name (languages/syntax.ts NameFocus), which costs a
 * fraction of extracting every definition when a search wants one name.
 */
export function definitionsNamed(file: ParsedFile, name: string): readonly Definition[] {
  const facts = cache.get(file);
  if (facts) return facts.definitions.filter((d) => d.name === name);
  const focus = focusOn(file.text, name);
  if (focus.rows.length === 0) return [];
  return EXTRACTORS[file.language].definitions(file, isTestPath(file.path), focus);
}

const untested = new WeakMap<ParsedFile, readonly Definition[]>();

/**
 * The file's definitions other than its tests (`it('…')` blocks, test
 * functions): what a test in it may call. From its facts once extracted;
 * otherwise without searching the file for test blocks, which in a
 * TypeScript test file is most of what extracting definitions costs.
 */
export function nonTestDefinitions(file: ParsedFile): readonly Definition[] {
  const facts = cache.get(file);
  if (facts) return facts.definitions.filter((d) => d.kind !== 'test');
  let defs = untested.get(file);
  if (!defs) {
    defs = EXTRACTORS[file.language].definitions(file, isTestPath(file.path), undefined, false).filter((d) => d.kind !== 'test');
    untested.set(file, defs);
  }
  return defs;
}

export * from './facts.js';
