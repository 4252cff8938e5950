// Dispatch from a parsed file to its language's extractor, once per file.
import type { ParsedFile } from '../context.js';
import { isTestPath } from '../../core/test-code.js';
import type { Definition, FileFacts } from './facts.js';
import { extractGo, goDefinitions } from './go.js';
import { extractPython, pythonDefinitions } from './python.js';
import { extractRust, rustDefinitions } from './rust.js';
import { focusOn } from './syntax.js';
import { extractTypeScript, typeScriptDefinitions } from './typescript.js';

const cache = new WeakMap<ParsedFile, FileFacts>();

export function factsOf(file: ParsedFile): FileFacts {
  let facts = cache.get(file);
  if (!facts) {
    const fileIsTest = isTestPath(file.path);
    switch (file.language) {
      case 'rust':
        facts = extractRust(file, fileIsTest);
        break;
      case 'python':
        facts = extractPython(file, fileIsTest);
        break;
      case 'go':
        facts = extractGo(file, fileIsTest);
        break;
      case 'typescript':
      case 'tsx':
      case 'javascript':
        facts = extractTypeScript(file, fileIsTest);
        break;
    }
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
  const fileIsTest = isTestPath(file.path);
  switch (file.language) {
    case 'rust':
      return rustDefinitions(file, fileIsTest, focus);
    case 'python':
      return pythonDefinitions(file, fileIsTest, focus);
    case 'go':
      return goDefinitions(file, fileIsTest, focus);
    case 'typescript':
    case 'tsx':
    case 'javascript':
      return typeScriptDefinitions(file, fileIsTest, focus);
  }
}

export * from './facts.js';
