// Smoke test of the evidence benchmark's parts on a small generated
// repository: what they report must be real hits, real matches and a real
// README edit, or the published figures would mean nothing.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureRoutes, timeGitGrep } from '../../bench/evidence/engine.js';
import { generateRepository, GENERATED_SUBJECT, type GeneratedRepository } from '../../bench/evidence/generate.js';
import { writeEvidenceSection } from '../../bench/evidence/readme-section.js';
import { measureServerCold } from '../../bench/evidence/server-cold.js';
import { measureStdio, measureStdioSideBySide, type StdioMeasurement } from '../../bench/evidence/stdio.js';
import { languageForPath } from '../../src/evidence/parse/treesitter.js';
import { NEEDLE_BIN } from '../../src/mcp/version.js';
import { git as gitIn } from '../support/git.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = NEEDLE_BIN;
const ECHO = join(ROOT, 'dist/bench/echo.js');

let scratch: string;
let repo: GeneratedRepository;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'needle-bench-test-'));
  repo = generateRepository(join(scratch, 'repo'), 150);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const git = (...args: string[]) => gitIn(repo.root, ...args);

describe('generated benchmark repository', () => {
  it('has exactly the requested number of committed files and a clean worktree', () => {
    expect(git('ls-files').split('\n').filter(Boolean)).toHaveLength(150);
    expect(git('status', '--porcelain')).toBe('');
    expect(git('log', '--format=%s')).toBe('benchmark repository of 150 files\n');
  });

  it('dates its files an hour back, older than the index, as in a working repository (outside the racy-timestamp window)', () => {
    const index = statSync(join(repo.root, '.git/index')).mtimeMs;
    for (const path of git('ls-files').split('\n').filter(Boolean)) {
      const mtime = statSync(join(repo.root, path)).mtimeMs;
      expect(index - mtime, path).toBeGreaterThan(3_500_000);
    }
  });

  it('gives git grep the subject in its declaration and its test only', () => {
    const grep = timeGitGrep(repo.root, GENERATED_SUBJECT.name, 2);
    expect(grep.matches).toBe(2);
    expect(grep.summary.n).toBe(2);
  });
});

describe('in-process measurements', () => {
  it('times cold resolutions and warm repeats that really are zero-worker hits', async () => {
    const [locate, tests] = await measureRoutes({
      root: repo.root,
      subject: GENERATED_SUBJECT,
      routes: ['locate.implementation', 'tests.relevant'],
      scratch,
      coldRepeats: 2,
      warmRepeats: 3,
    });
    expect(locate).toMatchObject({ route: 'locate.implementation', coldKind: 'miss', satisfied: ['implementation_location'], missing: [] });
    expect(locate!.cold.n).toBe(2);
    // The grep floor is sampled next to each first resolution, one run each.
    expect(locate!.grep).toHaveLength(2);
    for (const ms of locate!.grep) expect(ms).toBeGreaterThan(0);
    expect(locate!.warm).toMatchObject({ kind: 'exact_hit', summary: { n: 3 } });
    expect(tests).toMatchObject({ route: 'tests.relevant', satisfied: ['focused_tests'], warm: { kind: 'exact_hit' } });
    // The FrontierView is a few pointers, far below the default budget.
    for (const m of [locate!, tests!]) expect(m.tokens).toBeGreaterThan(20);
    for (const m of [locate!, tests!]) expect(m.tokens).toBeLessThan(400);
  });
});

describe('stdio measurements', () => {
  it('warms the cache once, then times hits across connections next to the echo floor', async () => {
    expect(existsSync(CLI), 'run npm run build first').toBe(true);
    // 1 warming call, 7 repeats on that same connection (reported apart), then
    // 9 warm hits: the 8-need limit per connection forces two more connections.
    const m = await measureStdio({
      cliPath: CLI,
      echoPath: ECHO,
      root: repo.root,
      dataDir: join(scratch, 'stdio-data'),
      route: 'locate.implementation',
      subject: GENERATED_SUBJECT,
      samples: 9,
    });
    expect(m.firstStatus).toBe('generated, miss');
    expect(m.hits).toMatchObject({ summary: { n: 9 }, connections: 3, afterCold: { n: 7 } });
    // Two floors per hit: its answer line echoed, then its request line.
    expect(m.echo.n).toBe(9);
    expect(m.requestEcho.n).toBe(9);
    expect(m.coldAfterPause).toBeNull();
  });

  it('times the same in a fresh process of its own, and says in one line why it could not', async () => {
    // The benchmark's build, as `npm run bench` runs it (the child is the compiled script).
    const { measureStdioInChild } = (await import(join(ROOT, 'dist/bench/evidence/stdio-child.js'))) as typeof import('../../bench/evidence/stdio-child.js');
    const options = { cliPath: CLI, echoPath: ECHO, root: repo.root, route: 'locate.implementation' as const, subject: GENERATED_SUBJECT, samples: 3 };
    const [m] = (await measureStdioInChild([{ ...options, dataDir: join(scratch, 'stdio-child-data') }])) as [StdioMeasurement];
    expect(m.firstStatus).toBe('generated, miss');
    expect(m.hits).toMatchObject({ summary: { n: 3 }, connections: 2, afterCold: { n: 7 } });
    expect(m.echo.n).toBe(3);
    expect(m.requestEcho.n).toBe(3);
    const missing = join(scratch, 'no-such-repository');
    await expect(measureStdioInChild([{ ...options, root: missing, dataDir: join(scratch, 'stdio-child-bad') }])).rejects.toThrow(/^[^\n]*no-such-repository is not inside a git work tree[^\n]*$/);
  });

  it('measures rows side by side: each gets its own samples, floors and connections, and one bad row fails in one line', async () => {
    const small = generateRepository(join(scratch, 'repo-side'), 60);
    const rows = (dataDir: string, roots: string[]) =>
      roots.map((root, i) => ({ cliPath: CLI, echoPath: ECHO, root, dataDir: join(scratch, `${dataDir}-${i}`), route: 'locate.implementation' as const, subject: GENERATED_SUBJECT, samples: 4 }));
    const [a, b] = await measureStdioSideBySide(rows('side', [repo.root, small.root]));
    for (const m of [a!, b!]) {
      expect(m.firstStatus).toBe('generated, miss');
      // 4 samples need one warming connection and one more (7 repeats each).
      expect(m.hits).toMatchObject({ summary: { n: 4 }, connections: 2 });
      expect(m.echo.n).toBe(4);
      expect(m.requestEcho.n).toBe(4);
    }
    await expect(measureStdioSideBySide(rows('side-bad', [repo.root, join(scratch, 'no-such-repository')]))).rejects.toThrow(/no-such-repository is not inside a git work tree/);
  });

  it('paces repeats and echoes alike with a think time, and they are still warm hits; a cold need after a think time on a fresh server', async () => {
    const m = await measureStdio({
      cliPath: CLI,
      echoPath: ECHO,
      root: repo.root,
      dataDir: join(scratch, 'stdio-paced'),
      route: 'locate.implementation',
      subject: GENERATED_SUBJECT,
      samples: 3,
      pauseMs: 5,
      coldAfterMs: 50,
    });
    expect(m.hits).toMatchObject({ summary: { n: 3 }, connections: 2 });
    expect(m.echo.n).toBe(3);
    // The cold need after a think time runs on a server of its own with a fresh data directory.
    expect(m.coldAfterPause).toMatchObject({ pauseMs: 50, status: 'generated, miss' });
    expect(m.coldAfterPause!.ms).toBeGreaterThan(0);
  });
});

describe('cold needs of a running server', () => {
  it('waits for the server to index the repository, asks its first need, then times a need no certificate covers, per route', async () => {
    const m = await measureServerCold({
      cliPath: CLI,
      root: repo.root,
      scratch,
      subject: GENERATED_SUBJECT,
      firstSubject: { kind: 'symbol', name: 'publish' },
      routes: ['locate.implementation', 'tests.relevant'],
      samples: 2,
    });
    // The server's own line: every file of the generated repository the analyzer parses.
    const analyzed = git('ls-files').split('\n').filter((p) => p && languageForPath(p) !== null).length;
    expect(analyzed).toBeGreaterThan(100);
    expect(m.indexed).toMatch(new RegExp(`^static analyzer indexed ${analyzed} files \\(0\\.\\d MB\\) in \\d+ ms$`));
    expect(m.warmedUp).toMatch(/^warmed up on (\d+) of \1 needs about the repository's own code in \d+ ms$/);
    expect(m.indexedAfter.n).toBe(4);
    expect(m.first.n).toBe(4);
    expect(m.routes.map((r) => [r.route, r.cold.n, r.status])).toEqual([
      ['locate.implementation', 2, 'generated, miss'],
      ['tests.relevant', 2, 'generated, miss'],
    ]);
  }, 120_000);
});

describe('README section', () => {
  it('appends the markers once, then replaces only the section', () => {
    const file = join(scratch, 'README.md');
    writeFileSync(file, '# Project\n\nIntro.\n');
    writeEvidenceSection(file, '| a |\n|---|\n| 1 |');
    writeEvidenceSection(file, '| a |\n|---|\n| 2 |');
    expect(readFileSync(file, 'utf8')).toBe('# Project\n\nIntro.\n\n<!-- bench:evidence -->\n| a |\n|---|\n| 2 |\n<!-- /bench:evidence -->\n');
  });
});
