// Dispatch from a parsed file to its language's extractor, once per file.
import type { ParsedFile } from '../context.js';
import { isTestPath } from '../../core/test-code.js';
import type { FileFacts } from './facts.js';
import { extractGo } from './go.js';
import { extractPython } from './python.js';
import { extractRust } from './rust.js';
import { extractTypeScript } from './typescript.js';

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

export * from './facts.js';
