// Generated benchmark repositories: a small TypeScript project whose
// `--dry-run` option is produced from argv, carried in a settings record,
// overridden by an environment variable, consumed by `publish` and exercised
// by a vitest test, padded with unrelated modules up to the requested file count. Files
// are written directly and committed with one `git add` and one commit, so
// even 50 000 files take seconds rather than minutes. They are dated an hour
// back, as the files of a working repository are: a file written within the
// last seconds is re-read on every check by design (the racy-timestamp rule
// of the freshness check and of git's index), and a repository generated
// just before a measurement would measure that window, not a warm hit.
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The evidence-bearing files; everything else in the repository is filler. */
const PROJECT: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'bench-app', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '1.0.0' } }, null, 2)}\n`,
  'src/settings.ts': [
    'export interface Settings {',
    '  dryRun: boolean;',
    '  target: string;',
    '}',
    '',
    'export function readSettings(argv: string[], env: Record<string, string | undefined> = {}): Settings {',
    "  let dryRun = argv.includes('--dry-run');",
    "  if (env.PUBLISH_DRY_RUN === '1') dryRun = true;",
    "  const target = argv.find((a) => !a.startsWith('--')) ?? 'default';",
    '  return { dryRun, target };',
    '}',
    '',
  ].join('\n'),
  'src/publish.ts': [
    "import { readSettings } from './settings.js';",
    '',
    'export function publish(argv: string[]): string {',
    '  const settings = readSettings(argv);',
    "  if (settings.dryRun) return `would publish ${settings.target}`;",
    '  return `published ${settings.target}`;',
    '}',
    '',
  ].join('\n'),
  'test/publish.test.ts': [
    "import { describe, expect, it } from 'vitest';",
    "import { publish } from '../src/publish.js';",
    '',
    "describe('publish', () => {",
    "  it('only reports the target in a dry run', () => {",
    "    expect(publish(['site', '--dry-run'])).toBe('would publish site');",
    '  });',
    '});',
    '',
  ].join('\n'),
};

/** The subject every generated-repository need asks about. */
export const GENERATED_SUBJECT = { kind: 'cli_option', name: '--dry-run' } as const;

const FILES_PER_DIR = 100;

function fillerModule(i: number): string {
  return [
    `// Inventory module ${i}.`,
    `export interface Item${i} {`,
    '  id: number;',
    '  label: string;',
    '}',
    '',
    `export function makeItem${i}(id: number): Item${i} {`,
    `  return { id, label: \`item-${i}-\${id}\` };`,
    '}',
    '',
    `export function weigh${i}(item: Item${i}): number {`,
    `  return item.id * ${(i % 13) + 1} + item.label.length;`,
    '}',
    '',
  ].join('\n');
}

const GIT_ENV = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@localhost' };

function git(root: string, args: string[]): void {
  execFileSync('git', args, { cwd: root, env: { ...process.env, ...GIT_ENV }, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

export interface GeneratedRepository {
  readonly root: string;
  readonly files: number;
  /** Wall time to write, stage and commit every file. */
  readonly seconds: number;
}

/** How far back the generated files are dated. */
const AGE_MS = 3_600_000;

/** Creates a committed repository of exactly `files` tracked files at `root`, its files dated AGE_MS back. */
export function generateRepository(root: string, files: number): GeneratedRepository {
  const project = Object.entries(PROJECT);
  if (files < project.length) throw new Error(`a generated repository needs at least ${project.length} files`);
  const started = performance.now();
  mkdirSync(root, { recursive: true });
  git(root, ['init', '-q', '-b', 'main']);
  // A commit of thousands of loose objects would start a detached `git gc`
  // that competes with the measurements and races the scratch cleanup.
  git(root, ['config', 'gc.auto', '0']);
  const written = (Date.now() - AGE_MS) / 1000;
  const write = (path: string, text: string): void => {
    writeFileSync(path, text);
    utimesSync(path, written, written);
  };
  for (const [path, text] of project) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    write(join(root, path), text);
  }
  for (let i = 0; i < files - project.length; i++) {
    const dir = join(root, 'src', 'inventory', `part${String(Math.floor(i / FILES_PER_DIR)).padStart(4, '0')}`);
    if (i % FILES_PER_DIR === 0) mkdirSync(dir, { recursive: true });
    write(join(dir, `item${i}.ts`), fillerModule(i));
  }
  // Staged after the dating, so the index records the dated times and is newer than every file.
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '--no-gpg-sign', '-m', `benchmark repository of ${files} files`]);
  return { root, files, seconds: (performance.now() - started) / 1000 };
}
