// Shared pieces of the ladder tests: a role profile with `[static, codex]`,
// the engine built from it exactly as a session builds it, and queries that
// tell what the store would serve and what it recorded for each worker run.
import { join } from 'node:path';
import { roleProfileSchema, type RoleProfile } from '../../src/core/profile.js';
import type { Engine } from '../../src/core/resolution.js';
import type { Predicate } from '../../src/core/semantic.js';
import { createEngine } from '../../src/resolve/engine.js';
import { openDb, type Db } from '../../src/store/db.js';
import { listCertificates } from '../../src/store/evidence/certificates.js';
import { buildExplorers } from '../../src/workers/explorers.js';
import type { SandboxInfo } from '../../src/workers/sandbox.js';
import { settled, type Repo } from '../resolve/fixture.js';

export const NO_SANDBOX: SandboxInfo = { bwrap: null, active: false, reason: 'not used by this test' };

type CodexEntry = Extract<RoleProfile['explorer'][number], { adapter: 'codex' }>;

/** A checked profile document: static first, then the given Codex explorer. */
export function ladderProfile(codex: Omit<CodexEntry, 'adapter'>, over: Partial<RoleProfile> = {}): RoleProfile {
  return roleProfileSchema.parse(
    {
      explorer: [{ adapter: 'static' }, { adapter: 'codex', ...codex }],
      implementer: null,
      verifier: null,
      test_execution: 'untrusted',
      require_sandbox: false,
      pricing: [{ model: 'gpt-sim-mini', input_usd_per_mtok: 1, cached_input_usd_per_mtok: 0.1, output_usd_per_mtok: 4 }],
      ...over,
    },
    'profile',
  );
}

export interface Ladder {
  readonly db: Db;
  readonly engine: Engine;
}

export function ladderEngine(repo: Repo, profile: RoleProfile, sandbox: SandboxInfo = NO_SANDBOX, env?: NodeJS.ProcessEnv): Ladder {
  const db = openDb(join(repo.dataDir, 'needle.sqlite3'));
  const explorers = buildExplorers(profile, { dataDir: repo.dataDir, db, sandbox, env });
  return { db, engine: settled(db, createEngine({ db, repoRoot: repo.root, explorers, profile })) };
}

/** Predicates of every certificate the store holds for a subject (what could ever be served for it). */
export function certifiedPredicates(db: Db, subjectName: string): Predicate[] {
  return listCertificates(db, 1_000)
    .filter((c) => c.subjectName === subjectName && c.invalidatedUnixMs === null)
    .map((c) => c.predicate)
    .sort();
}

export interface EvidenceRunRow {
  id: number;
  worker: string;
  model: string | null;
  outcome: string;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  price_microusd: number | null;
  duration_ms: number;
}

/** The rows of the one worker-run table, oldest first. */
export function evidenceRuns(db: Db): EvidenceRunRow[] {
  return db
    .prepare('SELECT id, worker, model, outcome, input_tokens, cached_input_tokens, output_tokens, price_microusd, duration_ms FROM worker_runs ORDER BY id')
    .all() as EvidenceRunRow[];
}
