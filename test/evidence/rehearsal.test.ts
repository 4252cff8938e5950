// Readying the static analyzer (src/evidence/rehearsal.ts): the languages a
// repository holds, and a rehearsal that leaves no query for a real analysis
// to compile — the cost a server's first cold need would otherwise pay.
import { afterAll, describe, expect, it } from 'vitest';
import { compileNeed, DEFAULT_WORLD, lineageDigest } from '../../src/core/need.js';
import type { SubjectKind } from '../../src/core/semantic.js';
import { compiledQueries, LANGUAGES } from '../../src/evidence/parse/treesitter.js';
import { languagesOf, rehearse, repositoryFiles } from '../../src/evidence/rehearsal.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { cleanupAll } from '../mcp/fixtures.js';
import { createFixtureRepo, type FixtureLanguage } from './fixtures/repos.js';

afterAll(cleanupAll);

describe('readying the static analyzer', () => {
  it('knows the analyzed languages of a listing: declaration files and other files are not parsed', () => {
    expect(new Set(languagesOf(['src/a.ts', 'types/b.d.ts', 'c.py', 'README.md', 'ui/x.tsx', 'cmd/m.go', 'src/lib.rs', 'bin/y.mjs', 'Makefile']))).toEqual(
      new Set(['typescript', 'python', 'tsx', 'go', 'rust', 'javascript']),
    );
    expect(languagesOf(['README.md', 'types/only.d.ts'])).toEqual([]);
  });

  it("lists a repository's languages from git, untracked files included", async () => {
    const root = createFixtureRepo('python');
    expect(languagesOf(await repositoryFiles(root))).toEqual(['python']);
  });

  it('compiles every query the analysis of each language then uses', async () => {
    await rehearse(LANGUAGES);
    const readied = compiledQueries();
    expect(new Set(readied.map((q) => q.split(':')[0]))).toEqual(new Set(LANGUAGES));
    const worker = createStaticWorker();
    for (const language of ['typescript', 'python', 'go', 'rust'] satisfies FixtureLanguage[]) {
      const root = createFixtureRepo(language);
      for (const [kind, name] of [['cli_option', '--dry-run'], ['configuration_key', 'timeout_secs'],] as [SubjectKind, string][]) {
        const need = compileNeed({ route: 'trace.state-flow', subject: { kind, name }, required: [], preferred: [], world: DEFAULT_WORLD, task: 'rehearsal check' }, lineageDigest(['0'.repeat(40)]));
        const out = await worker.run({ need, missing: [...need.required, ...need.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal });
        // Analysed for real: the option's and the key's files were parsed.
        expect(out.observed.length, `${language} ${kind} ${name}`).toBeGreaterThan(0);
      }
    }
    expect(compiledQueries()).toEqual(readied);
  }, 60_000);
});
