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

export interface ExplorerDeps {
  /** Needle's data directory; model-worker run directories live in `<dataDir>/runs`. */
  readonly dataDir: string;
  /** Where every model-worker run is recorded. */
  readonly db: Db;
  readonly sandbox: SandboxInfo;
  /** Environment the provider key (`provider.env_key`) is read from at run time; default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Directory under the data dir that holds model workers' disposable checkouts. */
export function runsRootOf(dataDir: string): string {
  return join(dataDir, 'runs');
}

export function buildExplorers(profile: RoleProfile, deps: ExplorerDeps): Worker[] {
  const runs = new RunsStore(deps.db);
  return profile.explorer.map((entry) =>
    entry.adapter === 'static'
      ? staticWorkerOnFirstRun()
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
 * The embedded static analyzer, its modules (parsers, language rules, flow
 * tracer) loaded when it first runs: a hit needs none of them.
 */
function staticWorkerOnFirstRun(): Worker {
  let worker: Promise<Worker> | null = null;
  return {
    name: 'static',
    countsAgainstLimit: false,
    definition: staticAnalyzerDefinition,
    run: async (input) => {
      worker ??= import('../evidence/static-worker.js').then((m) => m.createStaticWorker());
      return (await worker).run(input);
    },
  };
}

/**
 * The Codex worker, its client (app-server protocol, checkouts, prompts)
 * loaded when it first runs: a server answers `initialize` and every hit
 * without it.
 */
function codexWorkerOnFirstRun(cfg: CodexWorkerConfig): Worker {
  let worker: Promise<Worker> | null = null;
  return {
    name: 'codex',
    countsAgainstLimit: true,
    run: async (input) => {
      worker ??= import('./codex/worker.js').then((m) => m.createCodexWorker(cfg));
      return (await worker).run(input);
    },
  };
}
