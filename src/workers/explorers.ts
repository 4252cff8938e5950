// The explorer ladder of a role profile as runnable workers (SPEC §7, §13), in
// the order the profile lists them (`static` first by convention: it is free
// and deterministic, so model workers only see what it leaves missing). The
// static worker carries its analyzer's identity, which lets the resolver
// certify what it could not satisfy instead of running it again.
// Nothing here holds a credential: a Codex worker reads its provider's key
// from `env` when a run starts, so a rotated key applies to the next run and
// no key is ever part of a profile, a row or a worker's configuration.
import { join } from 'node:path';
import type { RoleProfile } from '../core/profile.js';
import type { Worker } from '../core/worker.js';
import type { Db } from '../store/db.js';
import { RunsStore } from './runs-store.js';
import type { SandboxInfo } from './sandbox.js';
import type { CodexWorkerConfig } from './codex/worker.js';
import { staticAnalyzerDefinition } from './static-definition.js';
import { analyzerThreadEntry, createThreadedStaticWorker, type AnalyzerThreadSetup } from './static-thread.js';

export interface ExplorerDeps {
  /** Needle's data directory; model-worker run directories live in `<dataDir>/runs`. */
  readonly dataDir: string;
  /** Where every model-worker run is recorded. */
  readonly db: Db;
  readonly sandbox: SandboxInfo;
  /** Environment the provider key (`provider.env_key`) is read from at run time; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * A server's: run the static analyzer in its own thread, readied for `root`
   * once `startWhen` says so (workers/static-thread.ts); in process when absent,
   * or where the thread's module is not built (tests on the sources).
   */
  readonly analyzerThread?: AnalyzerThreadSetup;
}

/** Directory under the data dir that holds model workers' disposable checkouts. */
export function runsRootOf(dataDir: string): string {
  return join(dataDir, 'runs');
}

export function buildExplorers(profile: RoleProfile, deps: ExplorerDeps): Worker[] {
  const runs = new RunsStore(deps.db);
  return profile.explorer.map((entry) =>
    entry.adapter === 'static'
      ? staticExplorer(deps.analyzerThread)
      : codexWorkerOnFirstRun({
          explorer: entry,
          runsRoot: runsRootOf(deps.dataDir),
          sandbox: deps.sandbox,
          requireSandbox: profile.require_sandbox,
          pricing: profile.pricing,
          runs,
          parentEnv: deps.env,
        }),
  );
}

/**
 * A worker whose modules are loaded when it first runs: a server answers
 * `initialize` and every hit without the static analyzer (parsers, language
 * rules, flow tracer) or the Codex client (app-server protocol, checkouts,
 * prompts).
 */
function onFirstRun(shape: Omit<Worker, 'run'>, load: () => Promise<Worker>): Worker {
  let worker: Promise<Worker> | null = null;
  return {
    ...shape,
    run: async (input) => (await (worker ??= load())).run(input),
  };
}

/**
 * The embedded static analyzer as every command runs it: under its identity
 * (workers/static-definition.ts), so that what it could not satisfy is
 * certified as a negative outcome; in its thread where one is set up.
 */
export function staticExplorer(thread?: ExplorerDeps['analyzerThread']): Worker {
  const inProcess = onFirstRun({ name: 'static', countsAgainstLimit: false, definition: staticAnalyzerDefinition }, async () => (await import('../evidence/static-worker.js')).createStaticWorker());
  const entry = thread ? analyzerThreadEntry() : null;
  if (!thread || !entry) return inProcess;
  // The analyzer's identity (a digest of its code files) is computed on first
  // use — ~4 ms of a server's first need: when the thread starts instead.
  const startWhen = (start: () => void): void => thread.startWhen(() => (staticAnalyzerDefinition(), start()));
  return createThreadedStaticWorker({ ...thread, startWhen, entry, inProcess });
}

function codexWorkerOnFirstRun(cfg: CodexWorkerConfig): Worker {
  return onFirstRun({ name: 'codex', countsAgainstLimit: true }, async () => (await import('./codex/worker.js')).createCodexWorker(cfg));
}
