// Searches answered from one superset search (evidence/grep-derive.ts) must be
// exactly what git grep answers on its own: same lines, same order, same cut
// at the match limit. A real repository with the shapes where the rules
// differ — a spelling inside a longer word, several occurrences on one line
// of which only a later one stands alone, non-ASCII neighbours, paths whose
// extension only looks alike, an untracked file — is searched both ways.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisContext, type GrepOptions } from '../../src/evidence/context.js';
import { containsFixed, covers, ereToRegExp, suffixPathspecs } from '../../src/evidence/grep-derive.js';
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
  'src/opts.py': "p.add_argument('--dry-run')\nq = '--dry-runner'\nsettings = {dry_run: 1, xdry_run: 2}\nalso = {dry_run\t: 3, édry_run: 4}\nstill = \"dry-run\"\nflags = `--dry-run,`\n",
};

// The expressions the option locator builds for --dry-run (evidence/locate-options.ts), with the literals each match contains.
const NOT_NAME = '([^A-Za-z0-9_-]|$)';
const OPTION_EXPRESSIONS = [`["'\`](--)?dry-run${NOT_NAME}`, `--dry-run${NOT_NAME}`, '(^|[^A-Za-z0-9_])dry_run[[:space:]]*:'];
const REGEX_QUERIES: [string[], GrepOptions][] = [
  [OPTION_EXPRESSIONS, { regex: true, literals: ['dry-run', 'dry_run'] }],
  [OPTION_EXPRESSIONS, { regex: true, literals: ['dry-run', 'dry_run'], pathspecs: ['*.py', '*.go'] }],
  [OPTION_EXPRESSIONS, { regex: true, literals: ['dry-run', 'dry_run'], maxMatches: 2 }],
  [['dry_run[[:space:]]*[]:]'], { regex: true, literals: ['dry_run'] }],
];

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
    expect(derived.walks).toBe(1);
    expect(alone.walks).toBe(QUERIES.length);
  });

  it('answer extended expressions whose every match holds a prefetched literal exactly as git grep -E does', () => {
    const root = createRepo(FILES);
    roots.push(root);
    const derived = new AnalysisContext(root);
    derived.prefetch(['dry_run', 'DryRun', 'dryRun', 'DRY_RUN', 'dry-run']);
    let compared = 0;
    for (const [patterns, opts] of REGEX_QUERIES) {
      const direct = new AnalysisContext(root).grep(patterns, opts);
      expect(derived.grep(patterns, opts), JSON.stringify([patterns, opts])).toEqual(direct);
      compared += direct.length;
    }
    expect(compared).toBeGreaterThan(8);
    expect(derived.walks).toBe(1);
  });

  it('translate only the expressions they read as git does; anything else is left to git', () => {
    const re = (p: string) => ereToRegExp(p);
    expect(re('(^|[^A-Za-z0-9_])dry_run[[:space:]]*:')!.test('x = {\tdry_run\t: 1}')).toBe(true);
    expect(re('(^|[^A-Za-z0-9_])dry_run[[:space:]]*:')!.test('xdry_run: 1')).toBe(false);
    expect(re('a[]b]c')!.test('a]c')).toBe(true);
    expect(re('a[\\]c')!.test('a\\c')).toBe(true);
    expect(re('f\\(x\\)')!.test('f(x)')).toBe(true);
    expect(re('\\w+')).toBeNull();
    expect(re('(a)\\1')).toBeNull();
    expect(re('[[:nope:]]')).toBeNull();
    expect(re('[abc')).toBeNull();
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
