// Searches answered from one superset search (evidence/grep-derive.ts) must be
// exactly what git grep answers on its own: same lines, same order, same cut
// at the match limit. A real repository with the shapes where the rules
// differ — a spelling inside a longer word, several occurrences on one line
// of which only a later one stands alone, non-ASCII neighbours, paths whose
// extension only looks alike, an untracked file — is searched both ways.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisContext, type GrepOptions } from '../../src/evidence/context.js';
import { containsFixed, covers, suffixPathspecs } from '../../src/evidence/grep-derive.js';
import { createRepo } from './fixtures/repos.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const FILES = {
  'src/main.rs': 'let dry_run = args.dry_run;\nlet dry_runner = 1; // dry_run_extra dry_run\nfn x() { DryRun::new() }\n',
  'src/app.ts': "const dryRun = argv.includes('--dry-run');\nconst notdryRun = 1;\nconst é_dryRun = 2;\nexport { dryRun };\n",
  'src/app.tsx.bak': 'dryRun in a backup file\n',
  'docs/usage.md': 'Use --dry-run to preview. DRY_RUN=1 works too.\n',
  'lib/tool.py': 'DRY_RUN = os.environ.get("DRY_RUN")\nif dry_run: pass\nxdry_runx = 3\n',
  'cmd/main.go': 'var DryRun bool\nflag.BoolVar(&DryRun, "dry-run", false, "")\n',
};

const QUERIES: [string[], GrepOptions][] = [
  [['dry_run', 'DryRun', 'dryRun', 'DRY_RUN'], { word: true }],
  [['dry_run', 'DryRun', 'dryRun', 'DRY_RUN', 'dry-run'], { word: true, pathspecs: ['*.rs', '*.ts', '*.tsx', '*.py', '*.go'] }],
  [['dry_run', 'DryRun', 'dryRun', 'DRY_RUN', 'dry-run'], { pathspecs: ['*.rs', '*.ts', '*.py', '*.go'] }],
  [['dry_run', 'DryRun', 'dryRun', 'DRY_RUN', 'dry-run'], { maxMatches: 3 }],
  [['dry_run'], { word: true, maxMatches: 2 }],
  [['dry-run'], {}],
  [['args.dry_run'], { word: true }],
];

describe('searches derived from one superset search', () => {
  it('answer exactly what git grep answers, for words, substrings, pathspecs and match limits', () => {
    const root = createRepo(FILES);
    roots.push(root);
    writeFileSync(join(root, 'src/untracked.rs'), 'let dry_run = true;\n');
    const derived = new AnalysisContext(root);
    derived.prefetch(['dry_run', 'DryRun', 'dryRun', 'DRY_RUN', 'dry-run']);
    for (const [patterns, opts] of QUERIES) {
      const direct = new AnalysisContext(root).grep(patterns, opts);
      expect(derived.grep(patterns, opts), JSON.stringify([patterns, opts])).toEqual(direct);
    }
    // Each query above is answered without a new walk; the match limits are reported like git's.
    const alone = new AnalysisContext(root);
    for (const [patterns, opts] of QUERIES) alone.grep(patterns, opts);
    expect(derived.truncated).toBe(alone.truncated);
  });

  it('follow git grep -w: an occurrence counts only between non-word characters, any occurrence on the line', () => {
    expect(containsFixed('let dry_runner = 1; // dry_run', 'dry_run', true)).toBe(true);
    expect(containsFixed('dry_run_extra', 'dry_run', true)).toBe(false);
    expect(containsFixed('é_dryRun', 'dryRun', true)).toBe(false);
    expect(containsFixed('édryRun', 'dryRun', true)).toBe(true);
    expect(containsFixed('xdry_runx', 'dry_run', false)).toBe(true);
  });

  it('cover only what the superset can answer; other pathspecs and searches run on their own', () => {
    expect(covers(['dry_run', 'dry-run'], ['args.dry_run', '--dry-run'])).toBe(true);
    expect(covers(['dry_run'], ['dryRun'])).toBe(false);
    expect(covers(['dry_run'], [])).toBe(false);
    expect(suffixPathspecs(['*.rs', '*.d.ts'])).toBeNull();
    expect(suffixPathspecs(['src/*.rs'])).toBeNull();
    expect(suffixPathspecs(['*.rs', '*.go'])).toEqual(['.rs', '.go']);
  });
});
