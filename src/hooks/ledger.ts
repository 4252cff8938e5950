// The need ledger of one client session seen through hooks. Every hook call
// is its own process, so the ledger lives in the store: the client's session
// is an `mcp_sessions` row (its id derived from the client and its
// session_id), each resolved block a need step with the same lifecycle as a
// need_context call. Ordinals, relations, the need limit and the model-worker
// budget are computed from those rows.
import { blake3, canonical, type Digest } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import { classifyNeed, type PriorNeed, type Relation } from '../core/relation.js';
import { SEMANTIC_DIGEST } from '../core/definition.js';
import type { RouteId } from '../core/semantic.js';
import type { Db } from '../store/db.js';
import { insertSession } from '../store/sessions.js';
import { listSteps } from '../store/steps.js';
import type { Client } from './payload.js';

export interface HookSession {
  readonly id: string;
  readonly repositoryRoot: string;
  readonly lineage: Digest;
  readonly dataDir: string;
  readonly profileId: string;
  readonly profileDigest: Digest;
  readonly routes: readonly RouteId[];
  readonly maxNeeds: number;
  readonly maxWorkers: number;
}

export interface HookAdmission {
  readonly ordinal: number;
  readonly relation: Relation;
  readonly withinLimit: boolean;
  readonly modelWorkersLeft: number;
}

/** The store id of a client's session: never the client's id itself, which may be long or odd. */
export function hookSessionId(client: Client, clientSessionId: string): string {
  return `hook-${client}-${blake3(`${client}\n${clientSessionId}`).slice(3, 35)}`;
}

export function hookInterfaceDigest(routes: readonly RouteId[]): Digest {
  return canonical('hook-transport-interface')
    .text('@@need')
    .list(routes, (h, r) => h.text(r))
    .digest(SEMANTIC_DIGEST)
    .finish();
}

/** Records the session on its first need; later calls find it. */
export function ensureHookSession(db: Db, s: HookSession, client: Client): void {
  insertSession(
    db,
    {
      id: s.id,
      startedUnixMs: Date.now(),
      repositoryRoot: s.repositoryRoot,
      lineage: s.lineage,
      dataDir: s.dataDir,
      profileId: s.profileId,
      profileDigest: s.profileDigest,
      routes: s.routes,
      semanticDigest: SEMANTIC_DIGEST,
      interfaceDigest: hookInterfaceDigest(s.routes),
      mainModel: client,
      cacheOnly: false,
      maxNeeds: s.maxNeeds,
      maxWorkers: s.maxWorkers,
    },
    true,
  );
}

/** Admits the next need of the session against what its earlier steps resolved. */
export function admitHookNeed(db: Db, s: HookSession, need: CompiledNeed): HookAdmission {
  const steps = listSteps(db, { sessionId: s.id, limit: 64 });
  const ordinal = steps.reduce((m, st) => Math.max(m, st.ordinal), 0) + 1;
  const priors: PriorNeed[] = steps
    .filter((st) => st.ordinal <= s.maxNeeds && (st.status === 'hit' || st.status === 'generated'))
    .map((st) => {
      const prior = JSON.parse(st.needIr) as CompiledNeed;
      const covered = new Set(st.satisfied);
      const ids = [...prior.required, ...prior.preferred].filter((o) => covered.has(o.predicate)).map((o) => o.id);
      return { need: prior, satisfied: new Set(ids) };
    });
  // The store does not keep per-step worker counts; every step a worker
  // answered is counted as one model run, which never exceeds the budget.
  const generated = steps.filter((st) => st.status === 'generated').length;
  return {
    ordinal,
    relation: classifyNeed(priors, need),
    withinLimit: ordinal <= s.maxNeeds,
    modelWorkersLeft: Math.max(0, s.maxWorkers - generated),
  };
}
