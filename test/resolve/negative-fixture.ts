// Invented repositories for the negative-outcome tests: a function the static
// worker locates but no test exercises (so focused_tests stays missing), the
// test that a user might add later, and two equally good definitions.
import type { CompiledNeed } from '../../src/core/need.js';
import { need, type Repo } from './fixture.js';

export const LEVELS: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'levels', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '1.0.0' } }, null, 2) + '\n',
  '.gitignore': 'dist/\n',
  'README.md': '# levels\n',
  'src/levels.ts': [
    "export type Level = 'debug' | 'info' | 'warn';",
    '',
    'export function parseLevel(text: string): Level {',
    '  const lower = text.trim().toLowerCase();',
    "  if (lower === 'debug' || lower === 'warn') return lower;",
    "  return 'info';",
    '}',
    '',
  ].join('\n'),
  'src/main.ts': [
    "import { parseLevel } from './levels.js';",
    '',
    'export function main(argv: string[]): string {',
    "  return parseLevel(argv[0] ?? 'info');",
    '}',
    '',
  ].join('\n'),
};

export const LEVELS_TEST = [
  "import { describe, it, expect } from 'vitest';",
  "import { parseLevel } from '../src/levels.js';",
  '',
  "describe('parseLevel', () => {",
  "  it('falls back to info for unknown names', () => {",
  "    expect(parseLevel('loud')).toBe('info');",
  '  });',
  '});',
  '',
].join('\n');

/** Two equally good definitions: a genuine ambiguity, not a declaration and its uses. */
export const TWO_SETTINGS: Record<string, string> = {
  'src/server/settings.ts': "export function loadSettings(path: string): Record<string, string> {\n  return { source: 'server', path };\n}\n",
  'src/client/settings.ts': "export function loadSettings(path: string): Record<string, string> {\n  return { source: 'client', path };\n}\n",
};

export const PARSE_LEVEL = { kind: 'symbol' as const, name: 'parseLevel' };

/** locate.implementation of parseLevel with its focused test required too. */
export function levelsNeed(r: Repo): CompiledNeed {
  return need(r, 'locate.implementation', PARSE_LEVEL, 'where is parseLevel and which test covers it', {
    required: [{ kind: 'focused_tests', facets: {} }],
  });
}
