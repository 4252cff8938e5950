// A search for one name's definitions queries only the rows that hold the
// name (languages/index.ts definitionsNamed); what it finds must be exactly
// what extracting every definition of the file and keeping that name finds —
// the same definitions, fields and order — or locate would answer differently
// depending on whether a file's facts were extracted before.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { definitionsNamed, factsOf, nonTestDefinitions } from '../../src/evidence/languages/index.js';
import { focusOn } from '../../src/evidence/languages/syntax.js';
import { languageForPath, loadLanguages, parse } from '../../src/evidence/parse/treesitter.js';
import type { ParsedFile } from '../../src/evidence/context.js';
import { createFixtureRepo, type FixtureLanguage } from './fixtures/repos.js';

const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]*/gu;
const REPO_ROOT = join(import.meta.dirname, '../..');

function parsedFile(path: string, text: string): ParsedFile {
  const language = languageForPath(path)!;
  return { path, language, text, tree: parse(language, text) };
}

/** Every name a file defines and every other identifier in it, each compared; returns how many were compared. */
function expectSameAsFull(path: string, text: string): number {
  const whole = parsedFile(path, text);
  const focused = parsedFile(path, text);
  try {
    const all = factsOf(whole).definitions;
    const names = new Set([...all.map((d) => d.name), ...(text.match(IDENTIFIER) ?? [])]);
    for (const name of names) {
      if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name)) continue;
      expect([...definitionsNamed(focused, name)], `${path}: ${name}`).toEqual(all.filter((d) => d.name === name));
    }
    // What a test may call: the same definitions, without the test blocks (found without searching for them).
    const bare = parsedFile(path, text);
    try {
      expect([...nonTestDefinitions(bare)], `${path}: non-test definitions`).toEqual(all.filter((d) => d.kind !== 'test'));
    } finally {
      bare.tree.delete();
    }
    return names.size;
  } finally {
    whole.tree.delete();
    focused.tree.delete();
  }
}

beforeAll(async () => {
  await loadLanguages();
});

describe('definitions of one name, found from the rows that hold it', () => {
  it('finds the rows of every occurrence, once per row, and none for an absent or empty name', () => {
    expect(focusOn('a foo\nfoo foo\n\nxfoo\n', 'foo').rows).toEqual([0, 1, 3]);
    expect(focusOn('a\nb\n', 'foo').rows).toEqual([]);
    expect(focusOn('a\nb\n', '').rows).toEqual([]);
  });

  it.each(['typescript', 'python', 'go', 'rust'] as FixtureLanguage[])('are the %s fixture files’ definitions of that name, field for field', (language) => {
    const root = createFixtureRepo(language);
    const files = execFileSync('git', ['-C', root, 'ls-files'], { encoding: 'utf8' }).split('\n').filter((p) => p && languageForPath(p));
    expect(files.length).toBeGreaterThan(0);
    let compared = 0;
    for (const path of files) compared += expectSameAsFull(path, readFileSync(join(root, path), 'utf8'));
    expect(compared).toBeGreaterThan(20);
  });

  it('are the same on this repository’s own sources (real code: classes, nested functions, exports, tests)', () => {
    const files = execFileSync('git', ['-C', REPO_ROOT, 'ls-files', 'src/evidence', 'test/evidence/locate-edges.test.ts'], { encoding: 'utf8' })
      .split('\n')
      .filter((p) => p && languageForPath(p));
    let compared = 0;
    for (const path of files) compared += expectSameAsFull(path, readFileSync(join(REPO_ROOT, path), 'utf8'));
    expect(compared).toBeGreaterThan(1_000);
  });

  it('keeps a definition whose construct begins rows before its name, and captures outside the row', () => {
    const cases: [string, string, string, number][] = [
      // A Python field assigned in __init__: the pattern also captures `__init__` and `self`, rows above.
      ['cfg.py', 'class Settings:\n    def __init__(self):\n        self.dry_run = False\n', 'dry_run', 1],
      // A TypeScript method inside an exported class spanning many rows.
      ['m.ts', 'export class Runner {\n  a = 1;\n\n  publish(argv: string[]): void {\n    return;\n  }\n}\n', 'publish', 1],
      // A Rust method in an impl block, and a #[test] function whose attribute sits on the row above.
      ['lib.rs', 'struct S;\nimpl S {\n    fn run(&self) {}\n}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn run() {}\n}\n', 'run', 2],
      // A Go method with a receiver.
      ['main.go', 'package main\n\ntype T struct{}\n\nfunc (t *T) Publish() error {\n\treturn nil\n}\n', 'Publish', 1],
    ];
    for (const [path, text, name, count] of cases) {
      const found = definitionsNamed(parsedFile(path, text), name);
      expect(found, `${path}: ${name}`).toHaveLength(count);
      expectSameAsFull(path, text);
    }
  });

  it('finds nothing in a file that only uses the name, and takes the whole extraction once it exists', () => {
    const file = parsedFile('use.ts', "import { publish } from './m';\npublish([]);\n");
    expect(definitionsNamed(file, 'publish')).toEqual([]);
    const all = factsOf(file).definitions;
    expect(definitionsNamed(file, 'publish')).toEqual(all.filter((d) => d.name === 'publish'));
  });
});
