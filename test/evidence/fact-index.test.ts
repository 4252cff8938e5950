// Facts extracted ahead of time (src/evidence/fact-index.ts), as a server's
// analyzer thread does while it is quiet: they are the facts a resolution
// would extract itself, are taken only for the very bytes they came from, and
// the static worker answers exactly as without them.
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { blake3, type Digest } from '../../src/core/digest.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest } from '../../src/core/need.js';
import type { RouteId, SubjectKind } from '../../src/core/semantic.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { buildFactIndex, FactIndex, indexOrder } from '../../src/evidence/fact-index.js';
import { factsOf } from '../../src/evidence/languages/index.js';
import { languageForPath, loadLanguages, parse } from '../../src/evidence/parse/treesitter.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { LIST_SEARCHED_FILES, WorktreeTexts } from '../../src/evidence/worktree-texts.js';
import { TreeCache } from '../../src/evidence/tree-cache.js';
import { gitBytes } from '../../src/repo/git.js';
import { createFixtureRepo, createRepo, type FixtureLanguage } from './fixtures/repos.js';

const LANGUAGES: FixtureLanguage[] = ['typescript', 'python', 'go', 'rust'];
const noPause = async (): Promise<void> => {};

function listed(root: string): string[] {
  return execFileSync('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard']).toString('utf8').split('\0').filter(Boolean);
}

async function indexed(root: string, trees?: TreeCache): Promise<FactIndex> {
  const index = new FactIndex();
  await buildFactIndex(root, indexOrder(listed(root)), index, noPause, trees ? { keep: (path, digest, file) => trees.offer(path, digest, file) } : {});
  return index;
}

/** Every fact of a file as a resolution extracts it, the lazily extracted ones included. */
function extractedNow(root: string, path: string) {
  const text = readFileSync(join(root, path), 'utf8');
  const language = languageForPath(path)!;
  const tree = parse(language, text);
  try {
    const f = factsOf({ path, language, text, tree });
    return { definitions: f.definitions, options: f.options, configKeys: f.configKeys };
  } finally {
    tree.delete();
  }
}

beforeAll(async () => {
  await loadLanguages();
});

describe('the fact index', () => {
  it('orders code before tests and leaves out files the analyzer does not parse', () => {
    expect(indexOrder(['README.md', 'tests/cli.rs', 'src/main.rs', 'src/main_test.go', 'cmd/run.go', 'types/x.d.ts', 'test_app.py', 'app.py'])).toEqual([
      'src/main.rs',
      'cmd/run.go',
      'app.py',
      'tests/cli.rs',
      'src/main_test.go',
      'test_app.py',
    ]);
  });

  it.each(LANGUAGES)('holds, for each %s file, the facts a resolution extracts from its bytes', async (language) => {
    const root = createFixtureRepo(language);
    const index = await indexed(root);
    const analyzed = listed(root).filter((p) => languageForPath(p) !== null);
    expect(analyzed.length).toBeGreaterThan(1);
    expect(index.size).toBe(analyzed.length);
    for (const path of analyzed) {
      const digest = blake3(readFileSync(join(root, path)));
      expect(index.get(path, digest), path).toEqual(extractedNow(root, path));
    }
  });

  it('is not taken for a file edited since: its new bytes are parsed', async () => {
    const root = createFixtureRepo('typescript');
    const index = await indexed(root);
    const path = listed(root).find((p) => p.endsWith('.ts') && !p.includes('test'))!;
    const before = blake3(readFileSync(join(root, path)));
    appendFileSync(join(root, path), '\nexport function addedAfterIndexing(): number {\n  return 1;\n}\n');
    const ctx = new AnalysisContext(root, { facts: index });
    try {
      const facts = ctx.facts(path)!;
      expect(facts.definitions.map((d) => d.name)).toContain('addedAfterIndexing');
      expect(index.get(path, before)?.definitions.map((d) => d.name)).not.toContain('addedAfterIndexing');
      // What the resolution relies on is the bytes it read now.
      expect(ctx.observed()).toEqual([{ path, digest: blake3(readFileSync(join(root, path))) }]);
    } finally {
      ctx.dispose();
    }
  });

  it('skips binary and unreadable-as-text files and stops at its bounds, saying where', async () => {
    const root = createRepo({ 'a.py': 'def a():\n    return 1\n', 'b.py': 'def b():\n    return 2\n', 'c.py': 'def c():\n    return 3\n' });
    writeFileSync(join(root, 'bin.py'), Buffer.from([0x64, 0x65, 0x66, 0x00, 0x01]));
    const all = new FactIndex();
    expect(await buildFactIndex(root, ['bin.py', 'a.py', 'b.py', 'c.py', 'gone.py'], all, noPause)).toEqual({ files: 3, bytes: 66, stopped: null });
    expect(all.size).toBe(3);
    const bounded = new FactIndex();
    expect(await buildFactIndex(root, ['a.py', 'b.py', 'c.py'], bounded, noPause, { bounds: { maxFiles: 2, maxBytes: 1024, maxFileBytes: 1024 } })).toEqual({
      files: 2,
      bytes: 44,
      stopped: '2 files',
    });
    expect(await buildFactIndex(root, ['a.py', 'b.py', 'c.py'], new FactIndex(), noPause, { bounds: { maxFiles: 10, maxBytes: 22, maxFileBytes: 1024 } })).toMatchObject({
      files: 1,
      stopped: '22 bytes',
    });
    expect(await buildFactIndex(root, ['a.py', 'b.py'], new FactIndex(), noPause, { bounds: { maxFiles: 10, maxBytes: 1024, maxFileBytes: 21 } })).toMatchObject({ files: 0, stopped: null });
  });

  it('waits between files for what the caller runs in between', async () => {
    const root = createRepo({ 'a.py': 'def a():\n    pass\n', 'b.py': 'def b():\n    pass\n' });
    const index = new FactIndex();
    const seen: number[] = [];
    await buildFactIndex(root, ['a.py', 'b.py'], index, async () => {
      seen.push(index.size);
    });
    expect(seen).toEqual([0, 1]);
  });
});

const SNAPSHOT: Digest = `b3:${'5'.repeat(64)}`;

/** The worktree's searchable text, held as the analyzer thread holds it (evidence/worktree-texts.ts). */
async function heldTexts(root: string): Promise<WorktreeTexts> {
  const texts = new WorktreeTexts();
  await texts.fill(root, gitBytes(root, LIST_SEARCHED_FILES, { okCodes: [0, 1] }).toString('utf8').split('\0').filter(Boolean), noPause);
  return texts;
}

describe('the static worker with a fact index, held worktree text and kept trees', () => {
  /** Needs on every definition of the fixture, and on its option and key, over every route. */
  function needsOf(root: string): { kind: SubjectKind; name: string; route: RouteId }[] {
    const names = new Set<string>();
    for (const path of listed(root).filter((p) => languageForPath(p) !== null)) for (const d of extractedNow(root, path).definitions) names.add(d.name);
    const routes: RouteId[] = ['locate.implementation', 'trace.state-flow', 'tests.relevant'];
    return [
      ...[...names].map((name) => ({ kind: 'symbol' as const, name, route: 'locate.implementation' as const })),
      ...routes.flatMap((route) => [
        { kind: 'cli_option' as const, name: '--dry-run', route },
        { kind: 'configuration_key' as const, name: 'timeout_secs', route },
      ]),
    ];
  }

  it.each(LANGUAGES)('answers every need on the %s fixture exactly as without them', async (language) => {
    const root = createFixtureRepo(language);
    // A small tree cache, filled by the index with the trees it parsed: trees
    // are reused across needs and evicted between them.
    const trees = new TreeCache(8_000);
    const index = await indexed(root, trees);
    expect(trees.size).toBeGreaterThan(0);
    expect(trees.parses).toBe(0);
    const plain = createStaticWorker();
    const withIndex = createStaticWorker({ facts: index, texts: await heldTexts(root), trees });
    const needs = needsOf(root);
    expect(needs.length).toBeGreaterThan(10);
    for (const { kind, name, route } of needs) {
      const need = compileNeed({ route, subject: { kind, name }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'index check' }, lineageDigest(['0'.repeat(40)]));
      // One snapshot for every need: the held texts' listing is taken once and reused.
      const input = () => ({ need, missing: [...need.required, ...need.preferred], root, covered: [], deadline: Date.now() + 60_000, snapshot: SNAPSHOT, signal: new AbortController().signal });
      expect(await withIndex.run(input()), `${route} ${kind} ${name}`).toEqual(await plain.run(input()));
    }
    expect(trees.reused).toBeGreaterThan(0);
    // Every analysis has let go of its trees: what stays is within the bound.
    await new Promise((resolve) => setImmediate(resolve));
    expect(trees.chars).toBeLessThanOrEqual(8_000);
  }, 120_000);
});
