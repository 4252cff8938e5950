// What a connection fixes at startup (SPEC §4): repository and lineage, data
// dir, role-profile revision, enabled routes, semantic-definition digest,
// main model, limits and policy. Configuration changed later affects new
// connections only.
import { randomUUID } from 'node:crypto';
import { blake3, canonical, type Digest } from '../core/digest.js';
import { LEDGER, MCP } from '../core/limits.js';
import type { RoleProfile } from '../core/profile.js';
import { SEMANTIC_DIGEST } from '../core/definition.js';
import type { RouteId } from '../core/semantic.js';
import { locateRepository } from '../repo/snapshot.js';
import type { Db } from '../store/db.js';
import { getActiveProfile } from '../store/profiles.js';
import { enabledRoutes } from '../store/settings.js';
import { CHANGE_TOOL_NAMES } from './tools/catalog.js';

export interface FrozenSession {
  readonly sessionId: string;
  readonly sessionDigest: Digest;
  readonly startedUnixMs: number;
  readonly repositoryRoot: string;
  readonly lineage: Digest;
  readonly dataDir: string;
  readonly profileId: string;
  readonly profileDigest: Digest;
  readonly profile: RoleProfile;
  readonly routes: readonly RouteId[];
  readonly semanticDigest: Digest;
  readonly interfaceDigest: Digest;
  readonly mainModel: string;
  readonly cacheOnly: boolean;
  /** Change tools are listed and callable (not cache-only, implementer and verifier configured, handlers present). */
  readonly changesEnabled: boolean;
  readonly limits: { readonly maxNeeds: number; readonly maxWorkers: number };
}

export class FreezeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FreezeError';
  }
}

export interface FreezeOptions {
  readonly db: Db;
  readonly dataDir: string;
  readonly repository: FrozenRepository;
  readonly profileId: string;
  readonly mainModel: string;
  readonly cacheOnly: boolean;
  /** Whether this build has change-tool handlers to route calls to. */
  readonly changeToolsAvailable: boolean;
}

export { SEMANTIC_DIGEST };

export function interfaceDigest(routes: readonly RouteId[], changesEnabled: boolean, semantic: Digest): Digest {
  return canonical('mcp-public-tools-interface')
    .list(MCP.supportedProtocolVersions, (h, v) => h.text(v))
    .text('need_context')
    .u8(changesEnabled ? 1 : 0)
    .list(changesEnabled ? CHANGE_TOOL_NAMES : [], (h, n) => h.text(n))
    .list(routes, (h, r) => h.text(r))
    .digest(semantic)
    .finish();
}

export interface FrozenRepository {
  readonly root: string;
  readonly lineage: Digest;
}

/** The work tree containing `path` and its lineage; checked before anything is created. */
export function freezeRepository(path: string): FrozenRepository {
  try {
    return locateRepository(path);
  } catch (e) {
    throw new FreezeError(`repository ${path} is not inside a git work tree (${firstLine(e)})`);
  }
}

export function freezeSession(o: FreezeOptions): FrozenSession {
  const active = getActiveProfile(o.db, o.profileId);
  if (!active) throw new FreezeError(`role profile ${o.profileId} does not exist or has no active revision; see needle profile list`);
  const routes = enabledRoutes(o.db);
  if (routes.length === 0) throw new FreezeError('no route is enabled in this data directory');
  const profile = active.document;
  const changesEnabled = !o.cacheOnly && profile.implementer !== null && profile.verifier !== null && o.changeToolsAvailable;
  const sessionId = randomUUID();
  return {
    sessionId,
    sessionDigest: blake3(sessionId),
    startedUnixMs: Date.now(),
    repositoryRoot: o.repository.root,
    lineage: o.repository.lineage,
    dataDir: o.dataDir,
    profileId: o.profileId,
    profileDigest: active.digest,
    profile,
    routes,
    semanticDigest: SEMANTIC_DIGEST,
    interfaceDigest: interfaceDigest(routes, changesEnabled, SEMANTIC_DIGEST),
    mainModel: o.mainModel,
    cacheOnly: o.cacheOnly,
    changesEnabled,
    limits: {
      maxNeeds: profile.limits?.max_needs ?? LEDGER.defaultMaxNeeds,
      maxWorkers: profile.limits?.max_workers ?? LEDGER.defaultMaxWorkers,
    },
  };
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n', 1)[0]!.slice(0, 200);
}
