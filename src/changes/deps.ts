// What the change workflow needs from its host (the MCP server or the CLI).
import type { CertifiedEvidenceIds } from '../core/certified.js';
import type { RoleProfile } from '../core/profile.js';
import type { Db } from '../store/db.js';
import { detectSandbox, type SandboxInfo } from '../workers/sandbox.js';
import { ChangeError, type CertifiedContext } from './model.js';

/** Resolves certified artifact and claim ids; throws for unknown or stale ids. */
export interface CertifiedContextSource {
  load(ids: CertifiedEvidenceIds): Promise<CertifiedContext> | CertifiedContext;
}

export interface ChangeDeps {
  readonly db: Db;
  /** The user's repository (its work tree is never written by prepare or verify). */
  readonly repoRoot: string;
  /** Where disposable run directories are created (inside the data directory). */
  readonly runsRoot: string;
  readonly profile: RoleProfile;
  /** Source of variables named by a profile's env_allowlist; defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
  readonly context?: CertifiedContextSource;
  /** Defaults to the probed bubblewrap availability. */
  readonly sandbox?: SandboxInfo;
}

export function sandboxOf(deps: ChangeDeps): SandboxInfo {
  const info = deps.sandbox ?? detectSandbox();
  if (deps.profile.require_sandbox && !info.active)
    throw new ChangeError('sandbox_required', `the role profile requires the sandbox, which is not active: ${info.reason}`);
  return info;
}

export const EMPTY_CONTEXT: CertifiedContext = { items: [], testPlans: [] };
