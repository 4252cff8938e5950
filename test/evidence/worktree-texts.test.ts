// The worktree's searchable text held in memory (src/evidence/worktree-texts.ts):
// an analysis's searches answered from it are the lines git grep prints, on a
// worktree with every case git treats specially, before and after it changes;
// over its bounds it steps aside and git answers.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Digest } from '../../src/core/digest.js';
import { AnalysisContext, type GrepOptions } from '../../src/evidence/context.js';
import { LIST_SEARCHED_FILES, WorktreeTexts } from '../../src/evidence/worktree-texts.js';
import { gitBytes } from '../../src/repo/git.js';
import { createRepo } from './fixtures/repos.js';

const noPause = async (): Promise<void> => {};
// Source snapshot digests as the resolver hands them to a run (the analysis only compares them).
const S1: Digest = `b3:${'1'.repeat(64)}`;
const S2: Digest = `b3:${'2'.repeat(64)}`;

/** A worktree holding what git grep --untracked treats specially. */
function quirkyRepo(): string {
  const root = createRepo({
    'src/app.ts': 'export function runTask(dryRun: boolean) {\n  return dryRun ? plan() : runTask_now();\n}\r\nconst dry_run = 1; // runTask\n',
    'src/util.py': 'def run_task(dry_run):\n    return dry_run\n',
    'lib/main.go': 'package main\n\nfunc runTask() {}\nfunc main() { runTask() }',
    'docs/usage.md': 'Pass --dry-run to runTask without side effects.\n',
    'tracked.log': 'runTask in a tracked file the ignore rules name\n',
    'marked.txt': 'runTask in a file the attributes call binary\n',
    '.gitattributes': 'marked.txt binary\n',
    'gone.ts': 'runTask()\n',
    'naïve/ü.ts': 'export const runTask = 1;\n',
    'latin.txt': 'x',
  });
  writeFileSync(join(root, '.gitignore'), '*.log\nbuild/\n');
  // Bytes that are not UTF-8 around a match; a NUL past git's first 8000 bytes (text) and within them (binary).
  writeFileSync(join(root, 'latin.txt'), Buffer.concat([Buffer.from('caf\xe9 runTask \xff\xfe\n', 'latin1'), Buffer.from('end runTask')]));
  writeFileSync(join(root, 'late-nul.txt'), Buffer.concat([Buffer.alloc(9000, 0x61), Buffer.from('\0\nrunTask late\n')]));
  writeFileSync(join(root, 'early-nul.ts'), Buffer.from('runTask\0\n'));
  writeFileSync(join(root, 'untracked.ts'), 'import { runTask } from "./src/app";\nrunTask(true);\n');
  writeFileSync(join(root, 'ignored.log'), 'runTask\n');
  mkdirSync(join(root, 'build'));
  writeFileSync(join(root, 'build/out.js'), 'runTask()\n');
  symlinkSync('src/app.ts', join(root, 'link.ts'));
  mkdirSync(join(root, 'nested'));
  execFileSync('git', ['init', '-q'], { cwd: join(root, 'nested') });
  writeFileSync(join(root, 'nested/inner.ts'), 'runTask()\n');
  rmSync(join(root, 'gone.ts'));
  return root;
}

const QUERIES: [string[], GrepOptions][] = [
  [['runTask'], {}],
  [['runTask'], { word: true }],
  [['runTask'], { word: true, pathspecs: ['*.ts', '*.go'] }],
  [['dry_run', 'dryRun', 'dry-run'], {}],
  [['dry_run', 'dryRun'], { word: true, pathspecs: ['*.py', '*.ts'] }],
  [['runTask'], { maxMatches: 3 }],
  [['caf\u00e9'], {}],
  [['late'], { word: true }],
  [['no such text'], {}],
];

/**
 * Every query's lines from git, and from the held texts: of an analysis
 * without a snapshot after its first walk, of one with a snapshot at once.
 */
function answers(root: string, texts: WorktreeTexts | null, snapshot: Digest | null = null): { results: unknown[]; walks: number } {
  const ctx = new AnalysisContext(root, { texts, snapshot });
  // The first walk is always git's (evidence/context.ts); the rest may be held texts'.
  ctx.grep(['first walk'], {});
  const results = QUERIES.map(([patterns, opts]) => ctx.grep(patterns, opts));
  return { results, walks: ctx.walks };
}

/** Files of a fixture are seconds old at most: a clock a minute ahead lets their stat vouch for what was read. */
const aMinuteAhead = (): number => Date.now() + 60_000;

async function filled(root: string, bounds?: ConstructorParameters<typeof WorktreeTexts>[0], clock?: () => number): Promise<WorktreeTexts> {
  const texts = new WorktreeTexts(bounds, clock);
  const listing = gitBytes(root, LIST_SEARCHED_FILES, { okCodes: [0, 1] }).toString('utf8').split('\0').filter(Boolean);
  await texts.fill(root, listing, noPause);
  return texts;
}

describe('held worktree texts', () => {
  it('answer every search as git grep does, with one listing walk for all of them', async () => {
    const root = quirkyRepo();
    const texts = await filled(root);
    const git = answers(root, null);
    const held = answers(root, texts);
    expect(held.results).toEqual(git.results);
    // The first walk and the listing; without texts, one walk per search.
    expect(held.walks).toBe(2);
    expect(git.walks).toBe(QUERIES.length + 1);
    // Some answers are not empty, and git's special cases are left out or kept as git does.
    const paths = new Set((git.results[0] as { path: string }[]).map((m) => m.path));
    expect([...paths].sort()).toEqual(['docs/usage.md', 'late-nul.txt', 'latin.txt', 'lib/main.go', 'naïve/ü.ts', 'src/app.ts', 'untracked.ts']);
    expect(texts.files).toBeGreaterThan(5);
  });

  it('read a file again only when its stat no longer vouches for the text held', async () => {
    const root = quirkyRepo();
    const texts = await filled(root, undefined, aMinuteAhead);
    const read = texts.reads;
    expect(read).toBe(texts.files);
    expect(answers(root, texts).results).toEqual(answers(root, null).results);
    expect(texts.reads).toBe(read);
    // Files just written are not vouched for by their stat: each analysis reads them.
    const now = await filled(root);
    answers(root, now);
    expect(now.reads).toBe(2 * now.files);
  });

  it('follow the worktree as it changes: same-size edits behind an old mtime, new, deleted and newly ignored files', async () => {
    const root = quirkyRepo();
    const texts = await filled(root, undefined, aMinuteAhead);
    const app = join(root, 'src/app.ts');
    const before = statSync(app);
    // Same size, mtime set back: only the ctime and the bytes tell.
    writeFileSync(app, (execFileSync('cat', [app]).toString('utf8')).replace('runTask(dryRun', 'runJobs(dryRun'));
    utimesSync(app, before.atime, before.mtime);
    expect(statSync(app).size).toBe(before.size);
    writeFileSync(join(root, 'lib/new.go'), 'package main\n\nfunc later() { runTask() }\n');
    rmSync(join(root, 'docs/usage.md'));
    writeFileSync(join(root, '.gitignore'), '*.log\nbuild/\nuntracked.ts\n');
    const held = answers(root, texts);
    expect(held.results).toEqual(answers(root, null).results);
    const paths = (held.results[0] as { path: string }[]).map((m) => m.path);
    expect(paths).toContain('lib/new.go');
    expect(paths).not.toContain('docs/usage.md');
    expect(paths).not.toContain('untracked.ts');
    expect((held.results[0] as { path: string; text: string }[]).filter((m) => m.path === 'src/app.ts').map((m) => m.text)).not.toContain(
      'export function runTask(dryRun: boolean) {',
    );
  });

  it('reuse git’s listing for later analyses of the same snapshot while git’s settings outside the worktree stay as they were', async () => {
    const root = quirkyRepo();
    const texts = await filled(root, undefined, aMinuteAhead);
    const git = answers(root, null);
    // The first analysis of a snapshot lists the files (its only walk) and checks each one's stat;
    // later ones of it walk nothing and look at no file.
    const checks = texts.checks;
    expect(answers(root, texts, S1)).toEqual({ results: git.results, walks: 1 });
    expect(texts.checks).toBe(checks + 1);
    expect(answers(root, texts, S1)).toEqual({ results: git.results, walks: 0 });
    expect(texts.checks).toBe(checks + 1);
    expect(answers(root, texts, S2).walks).toBe(1);
    expect(answers(root, texts, S2).walks).toBe(0);
    // Attributes from .git/info are not part of the snapshot, yet change what git searches.
    writeFileSync(join(root, '.git', 'info', 'attributes'), 'src/app.ts binary\n');
    const after = answers(root, null);
    expect(after.results).not.toEqual(git.results);
    expect(answers(root, texts, S2)).toEqual({ results: after.results, walks: 1 });
    expect(answers(root, texts, S2)).toEqual({ results: after.results, walks: 0 });
    // Without a snapshot nothing is reused.
    expect(answers(root, texts).walks).toBe(2);
  });

  it('keep no listing when a settings file was written within the racy window', async () => {
    const root = quirkyRepo();
    const texts = await filled(root);
    expect(answers(root, texts, S1).walks).toBe(1);
    expect(answers(root, texts, S1).walks).toBe(1);
  });

  it('step aside past their bounds, for good, and git answers the searches', async () => {
    const root = quirkyRepo();
    const tooMany = await filled(root, { maxFiles: 3, maxBytes: 1 << 20 });
    expect(tooMany.disabled).toBe('more than 3 searchable files');
    const tooBig = await filled(root, { maxFiles: 100, maxBytes: 200 });
    expect(tooBig.disabled).toBe('more than 200 bytes of searchable text');
    expect(tooBig.files).toBe(0);
    const git = answers(root, null);
    for (const texts of [tooMany, tooBig]) {
      const held = answers(root, texts);
      expect(held.results).toEqual(git.results);
      expect(held.walks).toBe(git.walks);
    }
  });

  it('hold one worktree: another root is searched by git', async () => {
    const root = quirkyRepo();
    const other = quirkyRepo();
    const texts = await filled(root);
    const held = answers(other, texts);
    expect(held.results).toEqual(answers(other, null).results);
    expect(held.walks).toBe(QUERIES.length + 1);
  });
});
