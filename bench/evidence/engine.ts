// In-process measurements through the real engine and static worker: the
// first resolution of a need on a fresh data directory (cold), repeats of the
// same need once it is certified (warm), the FrontierView size delivered, and
// `git grep` of the subject over the same repository as the cold floor.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { RESOLVER } from '../../src/core/limits.js';
import { compileNeed, DEFAULT_WORLD, type CompiledNeed } from '../../src/core/need.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import type { Engine, EngineResult, ResolutionKind } from '../../src/core/resolution.js';
import type { Predicate, RouteId, SubjectKind } from '../../src/core/semantic.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { repositoryLineage } from '../../src/repo/snapshot.js';
import { WorktreeWatch } from '../../src/repo/worktree-watch.js';
import { createEngine } from '../../src/resolve/engine.js';
import { staticExplorer } from '../../src/workers/explorers.js';
import { openDataDir } from '../../src/store/datadir.js';
import { summarize, type Summary } from '../stats.js';

export interface BenchSubject {
  readonly kind: SubjectKind;
  readonly name: string;
}

export interface RouteMeasurement {
  readonly route: RouteId;
  readonly subject: BenchSubject;
  /** First resolution on a fresh data directory, one sample per directory (ms). */
  readonly cold: Summary;
  /** `git grep -n -w` of the subject, run right after each first resolution (the floor, on the same machine state), ms. */
  readonly grep: readonly number[];
  /** What the first resolution decided and covered. */
  readonly coldKind: ResolutionKind;
  readonly satisfied: readonly Predicate[];
  readonly missing: readonly Predicate[];
  /** FrontierView size of the first resolution, at RESOLVER.bytesPerToken bytes per token. */
  readonly tokens: number;
  /** Repeats of the same need: timings when every repeat was a zero-worker hit, else why not. */
  readonly warm: { readonly kind: ResolutionKind; readonly summary: Summary } | { readonly notHit: string };
}

export interface RouteBenchOptions {
  readonly root: string;
  readonly subject: BenchSubject;
  readonly routes: readonly RouteId[];
  /** Scratch directory for the fresh data directories. */
  readonly scratch: string;
  readonly coldRepeats: number;
  readonly warmRepeats: number;
}

const RESOLVE_OPTIONS = () => ({ cacheOnly: false, modelWorkersLeft: 0, signal: new AbortController().signal });

/**
 * Loads the tree-sitter grammars (once per process; returns how long it took,
 * in ms) and runs one untimed resolution, so that the first measured
 * resolution is not also the process's first (module loading, JIT).
 */
export async function warmUpProcess(root: string, subject: BenchSubject, scratch: string): Promise<number> {
  const t0 = performance.now();
  await loadLanguages();
  const grammarMs = performance.now() - t0;
  const { engine, close } = await freshEngine(root, scratch);
  try {
    const need = compileNeed({ route: 'trace.state-flow', subject, required: [], preferred: [], world: DEFAULT_WORLD, task: 'warm-up' }, repositoryLineage(root));
    await engine.resolve(need, RESOLVE_OPTIONS());
  } finally {
    close();
  }
  return grammarMs;
}

const isWarmHit = (r: EngineResult): boolean => r.cacheHit && !r.workerSpawned && r.satisfied.length > 0;

/** Bound on waiting for a worktree watch to report its first snapshot. */
const WATCH_READY_MS = 120_000;

/**
 * One engine on a brand-new data directory, as a server connection opens it:
 * with its worktree watch, whose first snapshot (taken at server start, before
 * any need arrives) is awaited outside the timed resolution.
 */
async function freshEngine(root: string, scratch: string) {
  const data = openDataDir(mkdtempSync(join(scratch, 'data-')));
  const watch = new WorktreeWatch(root).start();
  const deadline = Date.now() + WATCH_READY_MS;
  while (watch.current() === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const engine = createEngine({ db: data.db, repoRoot: root, explorers: [staticExplorer()], profile: BUILTIN_LOCAL_PROFILE, worktree: watch });
  return {
    engine,
    close: () => {
      watch.close();
      data.db.close();
    },
  };
}

/** Repeats of an already resolved need; stops at the first repeat that is not a zero-worker hit. */
async function measureWarm(engine: Engine, need: CompiledNeed, repeats: number): Promise<RouteMeasurement['warm']> {
  const samples: number[] = [];
  let kind: ResolutionKind | null = null;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    const repeat = await engine.resolve(need, RESOLVE_OPTIONS());
    samples.push(performance.now() - t0);
    kind = repeat.resolution.kind;
    if (!isWarmHit(repeat)) return { notHit: `repeat is ${kind}${repeat.workerSpawned ? ' with a worker run' : ''}` };
  }
  if (kind === null) return { notHit: 'no repeats requested' };
  return { kind, summary: summarize(samples) };
}

async function measureRoute(o: RouteBenchOptions, route: RouteId): Promise<RouteMeasurement> {
  const need = compileNeed({ route, subject: o.subject, required: [], preferred: [], world: DEFAULT_WORLD, task: `benchmark ${route}` }, repositoryLineage(o.root));
  const cold: number[] = [];
  const grep: number[] = [];
  let first: { result: EngineResult; warm: RouteMeasurement['warm'] } | null = null;
  for (let i = 0; i < o.coldRepeats; i++) {
    const { engine, close } = await freshEngine(o.root, o.scratch);
    try {
      const t0 = performance.now();
      const result = await engine.resolve(need, RESOLVE_OPTIONS());
      cold.push(performance.now() - t0);
      grep.push(timeGitGrep(o.root, o.subject.name, 1).summary.p50);
      first ??= { result, warm: await measureWarm(engine, need, o.warmRepeats) };
    } finally {
      close();
    }
  }
  if (!first) throw new Error('coldRepeats must be at least 1');
  const { result, warm } = first;
  return {
    route,
    subject: o.subject,
    cold: summarize(cold),
    grep,
    coldKind: result.resolution.kind,
    satisfied: result.satisfied,
    missing: result.missing,
    tokens: Math.ceil(Buffer.byteLength(result.context) / RESOLVER.bytesPerToken),
    warm,
  };
}

export async function measureRoutes(o: RouteBenchOptions): Promise<RouteMeasurement[]> {
  const out: RouteMeasurement[] = [];
  for (const route of o.routes) out.push(await measureRoute(o, route));
  return out;
}

/** The argv of the grep floor for a subject name. */
export function gitGrepArgv(name: string): string[] {
  return ['grep', '-n', '-w', '-e', name];
}

/** Wall time of `git grep -n -w -e NAME` over the repository (ms per run). */
export function timeGitGrep(root: string, name: string, repeats: number): { summary: Summary; matches: number } {
  const samples: number[] = [];
  let matches = 0;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    const r = spawnSync('git', gitGrepArgv(name), { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    samples.push(performance.now() - t0);
    // git grep exits 1 when nothing matches; anything else is a broken floor.
    if (r.status !== 0 && r.status !== 1) throw new Error(`git grep failed: ${r.stderr.split('\n', 1)[0]}`);
    matches = r.stdout.split('\n').filter(Boolean).length;
  }
  return { summary: summarize(samples), matches };
}
