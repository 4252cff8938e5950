// The composition root of a session: the role profile's explorers become
// workers, the resolver gets them, and the change tools get the profile's
// implementer and verifier. Also the startup housekeeping every entry point
// shares (interrupted applies, orphaned run directories).
import { join } from 'node:path';
import type { RoleProfile } from '../core/profile.js';
import type { Engine } from '../core/resolution.js';
import { recoverInterruptedApplies } from '../changes/apply.js';
import type { CertifiedContextSource } from '../changes/deps.js';
import { ChangeError, oneLine } from '../changes/model.js';
import { createChangeTools, type ChangeTools } from '../changes/tools.js';
import { sweepOrphanRuns } from '../repo/checkout.js';
import type { WorktreeState } from '../repo/worktree-watch.js';
import { CertifiedEvidenceError, loadCertifiedEvidence } from '../resolve/certified-context.js';
import { createEngine, type TeamLink } from '../resolve/engine.js';
import type { Db } from '../store/db.js';
import { TeamCache } from '../team/client.js';
import { TeamCacheConfigError, teamCacheFrom } from '../team/config.js';
import { buildExplorers, runsRootOf } from '../workers/explorers.js';
import { detectSandbox, type SandboxInfo } from '../workers/sandbox.js';
import type { AnalyzerThreadSetup } from '../workers/static-thread.js';
import type { Digest } from '../core/digest.js';
import { ANALYZER_THREAD } from '../core/limits.js';
import type { Worker } from '../core/worker.js';
import type { SampleSubject } from '../evidence/fact-index.js';
import { createWarmUp, type WarmUp } from './warm-up.js';

export interface SessionParts {
  readonly db: Db;
  readonly dataDir: string;
  readonly repositoryRoot: string;
  readonly profile: RoleProfile;
  readonly env: NodeJS.ProcessEnv;
  /** The team cache client, when --team-cache or NEEDLE_TEAM_CACHE names one. */
  readonly team?: TeamLink | null;
  /** A long-lived server's watched worktree (snapshot digests without git on hits). */
  readonly worktree?: WorktreeState;
  /** A server's: the static analyzer runs in its own thread, readied after start (workers/static-thread.ts); its notes go to `log`. */
  readonly analyzerThread?: Omit<AnalyzerThreadSetup, 'root'>;
}

let sandboxInfo: SandboxInfo | null = null;
function sandbox(): SandboxInfo {
  sandboxInfo ??= detectSandbox();
  return sandboxInfo;
}

/** What the static worker is given: it never reads it. */
const NOT_PROBED: SandboxInfo = { bwrap: null, active: false, reason: 'not probed: the role profile runs no model worker' };

export function createSessionEngine(p: SessionParts): Engine {
  return buildSession(p).engine;
}

/**
 * A server's engine, and its warm-up (cli/warm-up.ts), started once the
 * analyzer thread has indexed the repository; null without an analyzer thread.
 */
export function createServerEngine(p: SessionParts & { readonly lineage: Digest }): { engine: Engine; warmUp: WarmUp | null } {
  let warmUp: WarmUp | null = null;
  const { engine, explorers } = buildSession(p, (samples) => warmUp?.start(samples));
  // Explorers follow the profile's entries one to one.
  const explorer = explorers[p.profile.explorer.findIndex((e) => e.adapter === 'static')];
  if (p.analyzerThread && explorer) {
    warmUp = createWarmUp({
      repoRoot: p.repositoryRoot,
      lineage: p.lineage,
      profile: p.profile,
      explorer,
      ...(p.worktree ? { worktree: p.worktree } : {}),
      log: p.analyzerThread.log,
      quietMs: ANALYZER_THREAD.quietMs,
    });
  }
  return { engine, warmUp };
}

function buildSession(p: SessionParts, onIndexed?: (samples: readonly SampleSubject[]) => void): { engine: Engine; explorers: readonly Worker[] } {
  // Probing bubblewrap spawns a process: done only when a model worker may need it.
  const modelWorkers = p.profile.explorer.some((e) => e.adapter !== 'static');
  const explorers = buildExplorers(p.profile, {
    dataDir: p.dataDir,
    db: p.db,
    sandbox: modelWorkers ? sandbox() : NOT_PROBED,
    env: p.env,
    ...(p.analyzerThread ? { analyzerThread: { root: p.repositoryRoot, ...p.analyzerThread, ...(onIndexed ? { onIndexed } : {}) } } : {}),
  });
  const engine = createEngine({ db: p.db, repoRoot: p.repositoryRoot, explorers, profile: p.profile, ...(p.team ? { team: p.team } : {}), ...(p.worktree ? { worktree: p.worktree } : {}) });
  return { engine, explorers };
}

/**
 * The team cache of a session from --team-cache or NEEDLE_TEAM_CACHE, or null
 * (local only). Nothing connects yet: the first need does, within its bounded
 * wait. A malformed URL, or one carrying a password, is a usage error whose
 * message never echoes the URL.
 */
export function openTeamCache(
  flag: string | undefined,
  p: Omit<SessionParts, 'team' | 'dataDir'>,
  log: (line: string) => void,
  usage: (message: string) => Error,
): TeamCache | null {
  let config;
  try {
    config = teamCacheFrom(flag, p.env);
  } catch (e) {
    if (e instanceof TeamCacheConfigError) throw usage(e.message);
    throw e;
  }
  if (config === null) return null;
  return new TeamCache({
    config,
    db: p.db,
    repoRoot: p.repositoryRoot,
    env: p.env,
    log,
    publishModelResults: p.profile.team_cache?.publish_model_results ?? true,
  });
}

/** Certified artifact and claim ids for prepare_change; an id that cannot be served is invalid input (-32602). */
function certifiedContext(p: SessionParts): CertifiedContextSource {
  return {
    load(ids) {
      try {
        return loadCertifiedEvidence(p.db, p.repositoryRoot, ids);
      } catch (e) {
        if (e instanceof CertifiedEvidenceError) throw new ChangeError('invalid_request', oneLine(e.message));
        throw e;
      }
    },
  };
}

/** The change tools, or undefined when the profile has no implementer or verifier. */
export function createSessionChangeTools(p: SessionParts): ChangeTools | undefined {
  if (p.profile.implementer === null || p.profile.verifier === null) return undefined;
  return createChangeTools({
    db: p.db,
    repoRoot: p.repositoryRoot,
    runsRoot: join(p.dataDir, 'change-runs'),
    profile: p.profile,
    env: p.env,
    context: certifiedContext(p),
    sandbox: sandbox(),
  });
}

/** Finishes what a killed process left behind; returns one line per action for stderr. */
export function startupRecovery(db: Db, dataDir: string, repositoryRoot: string): string[] {
  const notes: string[] = [];
  for (const r of recoverInterruptedApplies(db, repositoryRoot)) notes.push(
      r.status === 'rolled_back'
        ? `rolled back interrupted apply of ${r.change_id}`
        : `could not roll back interrupted apply of ${r.change_id}: ${r.problems.join('; ')}`,
    );
  for (const root of [runsRootOf(dataDir), join(dataDir, 'change-runs')]) {
    const { removed } = sweepOrphanRuns(root);
    if (removed.length > 0) notes.push(`removed ${removed.length} orphaned run director${removed.length === 1 ? 'y' : 'ies'} under ${root}`);
  }
  return notes;
}
