// Test fixtures for the resolver and validators: a small generated git
// repository, a scripted in-process worker, and need compilation.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Proposal } from '../../src/core/contracts.js';
import { blake3 } from '../../src/core/digest.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed, type NeedRequest } from '../../src/core/need.js';
import { BUILTIN_LOCAL_PROFILE, type RoleProfile } from '../../src/core/profile.js';
import type { Engine, ResolveOptions } from '../../src/core/resolution.js';
import type { RouteId, SubjectKind } from '../../src/core/semantic.js';
import type { Worker, WorkerInput, WorkerOutput } from '../../src/core/worker.js';
import { flushBookkeeping } from '../../src/store/bookkeeping.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createEngine } from '../../src/resolve/engine.js';
import { git as gitIn } from '../support/git.js';

export const TS_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'demo', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '1.0.0' } }, null, 2) + '\n',
  'src/config.ts': [
    'export interface Options {',
    '  dryRun: boolean;',
    '}',
    '',
    'export function parseOptions(argv: string[]): Options {',
    "  const dryRun = argv.includes('--dry-run');",
    '  return { dryRun };',
    '}',
    '',
  ].join('\n'),
  'src/deploy.ts': [
    "import { parseOptions } from './config.js';",
    '',
    'export function deploy(argv: string[]): string {',
    '  const opts = parseOptions(argv);',
    "  if (opts.dryRun) return 'skipped';",
    "  return 'uploaded';",
    '}',
    '',
  ].join('\n'),
  'src/unrelated.ts': 'export const answer = 42;\n',
  'test/deploy.test.ts': [
    "import { describe, it, expect } from 'vitest';",
    "import { deploy } from '../src/deploy.js';",
    '',
    "describe('deploy', () => {",
    "  it('skips upload in dry run', () => {",
    "    expect(deploy(['--dry-run'])).toBe('skipped');",
    '  });',
    '});',
    '',
  ].join('\n'),
};

export interface Repo {
  readonly root: string;
  readonly dataDir: string;
  write(path: string, text: string): void;
  read(path: string): string;
  remove(path: string): void;
  git(...args: string[]): string;
  cleanup(): void;
}

export function makeRepo(files: Record<string, string> = TS_FILES): Repo {
  const base = mkdtempSync(join(tmpdir(), 'needle-resolve-'));
  const root = join(base, 'repo');
  mkdirSync(root);
  const git = (...args: string[]) => gitIn(root, ...args);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  git('init', '-q', '-b', 'main');
  for (const [p, t] of Object.entries(files)) write(p, t);
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  return {
    root,
    dataDir: join(base, 'data'),
    write,
    read: (p) => readFileSync(join(root, p), 'utf8'),
    remove: (p) => rmSync(join(root, p)),
    git,
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

export function lineageOf(repo: Repo): ReturnType<typeof lineageDigest> {
  return lineageDigest(repo.git('rev-list', '--max-parents=0', 'HEAD').split('\n').filter(Boolean));
}

export function need(
  repo: Repo,
  route: RouteId,
  subject: { kind: SubjectKind; name: string },
  task = 'find it',
  extra: Partial<Pick<NeedRequest, 'required' | 'preferred'>> = {},
): CompiledNeed {
  return compileNeed(
    { route, subject, required: extra.required ?? [], preferred: extra.preferred ?? [], world: DEFAULT_WORLD, task },
    lineageOf(repo),
  );
}

export type Script = (input: WorkerInput, observe: (path: string) => void) => Proposal[] | Promise<Proposal[]>;

/** A worker that proposes what the script returns and records each file the script observes. */
export function scriptedWorker(
  repo: Repo,
  script: Script,
  opts: { name?: string; model?: boolean; outcome?: WorkerOutput['outcome']; observationComplete?: boolean } = {},
): Worker & { calls: WorkerInput[] } {
  const calls: WorkerInput[] = [];
  return {
    name: opts.name ?? 'scripted',
    countsAgainstLimit: opts.model ?? false,
    calls,
    async run(input) {
      calls.push(input);
      const observed = new Map<string, ReturnType<typeof blake3>>();
      const observe = (p: string) => observed.set(p, blake3(readFileSync(join(repo.root, p))));
      const proposals = await script(input, observe);
      return {
        outcome: opts.outcome ?? { kind: 'proposed' },
        proposals,
        observed: [...observed].map(([path, digest]) => ({ path, digest })),
        observationComplete: opts.observationComplete ?? true,
        usage: opts.model ? { model: 'test-model', inputTokens: 1000, cachedInputTokens: 200, outputTokens: 100 } : null,
      };
    },
  };
}

export const IL_PARSE_OPTIONS: Proposal = {
  predicate: 'implementation_location',
  payload: {
    locations: [
      { role: 'primary', path: 'src/config.ts', symbol: 'parseOptions', start_line: 5, end_line: 8 },
      { role: 'supporting', path: 'src/deploy.ts', symbol: 'parseOptions', start_line: 4, end_line: 4 },
    ],
    gaps: [],
  },
};

export const IL_DRY_RUN: Proposal = {
  predicate: 'implementation_location',
  payload: {
    locations: [
      { role: 'primary', path: 'src/config.ts', symbol: 'parseOptions', start_line: 5, end_line: 8 },
      { role: 'supporting', path: 'src/deploy.ts', symbol: 'dryRun', start_line: 5, end_line: 5 },
    ],
    gaps: [],
  },
};

export const RF_DRY_RUN: Proposal = {
  predicate: 'runtime_flow',
  payload: {
    scenario: 'default',
    steps: [
      { role: 'producer', location: { role: 'primary', path: 'src/config.ts', symbol: null, start_line: 6, end_line: 6 }, description: 'flag read from argv' },
      { role: 'carrier', location: { role: 'supporting', path: 'src/config.ts', symbol: 'dryRun', start_line: 2, end_line: 2 }, description: 'Options.dryRun field' },
      { role: 'transformation', location: { role: 'supporting', path: 'src/config.ts', symbol: null, start_line: 7, end_line: 7 }, description: 'copied into Options' },
      { role: 'precedence', location: { role: 'supporting', path: 'src/deploy.ts', symbol: 'parseOptions', start_line: 4, end_line: 4 }, description: 'parsed once per deploy' },
      { role: 'consumer', location: { role: 'supporting', path: 'src/deploy.ts', symbol: null, start_line: 5, end_line: 5 }, description: 'skips the upload' },
    ],
    gaps: [],
  },
};

export const FT_DRY_RUN: Proposal = {
  predicate: 'focused_tests',
  payload: {
    runner: 'npx',
    argv: ['npx', 'vitest', 'run', 'test/deploy.test.ts', '-t', 'skips upload in dry run'],
    cwd_relative: '.',
    identifier: 'skips upload in dry run',
    selection: 'representative',
    location: { role: 'primary', path: 'test/deploy.test.ts', symbol: null, start_line: 5, end_line: 7 },
    evidence_paths: ['test/deploy.test.ts', 'src/deploy.ts'],
  },
};

/** Observes every file a proposal cites, as a careful worker would. */
export function citing(...proposals: Proposal[]): Script {
  return (_input, observe) => {
    for (const p of proposals) for (const path of citedPaths(p)) observe(path);
    return proposals;
  };
}

export function citedPaths(p: Proposal): string[] {
  if (p.predicate === 'implementation_location') return p.payload.locations.map((l) => l.path);
  if (p.predicate === 'runtime_flow') return p.payload.steps.map((s) => s.location.path);
  return [p.payload.location.path, ...p.payload.evidence_paths];
}

export function options(over: Partial<ResolveOptions> = {}): ResolveOptions {
  return { cacheOnly: false, modelWorkersLeft: 3, signal: new AbortController().signal, ...over };
}

/** The engine, with each resolution's bookkeeping rows committed before its result is seen (as after a reply). */
export function settled(db: Db, engine: Engine): Engine {
  return {
    ...engine,
    async resolve(n, o) {
      const r = await engine.resolve(n, o);
      flushBookkeeping(db);
      return r;
    },
  };
}

export interface Harness {
  readonly db: Db;
  engine(workers: Worker[], profile?: RoleProfile): Engine;
}

export function harness(repo: Repo, file = join(repo.dataDir, 'needle.sqlite3')): Harness {
  const db = openDb(file);
  return {
    db,
    engine: (workers, profile = BUILTIN_LOCAL_PROFILE) => settled(db, createEngine({ db, repoRoot: repo.root, explorers: workers, profile })),
  };
}
