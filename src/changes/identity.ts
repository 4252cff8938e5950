// Content-addressed identities of the change lifecycle. No model text enters
// a patch id; the change digest binds an apply to one exact reviewed state.
import { randomBytes } from 'node:crypto';
import { canonical, type Digest } from '../core/digest.js';
import { stableStringify } from '../core/schema.js';
import type { ChangeRequest, ChangeState, Operation, PatchFile, Verdict } from './model.js';

const OP_TAG: Record<Operation, number> = { create: 0, update: 1, delete: 2 };

export function requestDigest(base: Digest, req: ChangeRequest): Digest {
  const sorted = (xs: readonly string[]) => [...xs].sort();
  return canonical('needle-change-request')
    .digest(base)
    .lines(req.task)
    .list(sorted(req.acceptance_criteria), (h, c) => h.lines(c))
    .list(
      [...req.allowed_paths].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      (h, a) => h.text(a.path).u8(a.scope === 'exact' ? 0 : 1),
    )
    .list(sorted(req.artifact_ids), (h, d) => h.digest(d as Digest))
    .list(sorted(req.claim_ids), (h, d) => h.digest(d as Digest))
    .list(sorted(req.constraints), (h, c) => h.lines(c))
    .finish();
}

/** A fresh id per call: preparing the same request twice makes two changes. */
export function newChangeId(request: Digest): string {
  const d = canonical('needle-change-id').digest(request).u64(Date.now()).bytes(randomBytes(16)).finish();
  return `chg_${d.slice(3, 27)}`;
}

export const CHANGE_ID_RE = /^chg_[0-9a-f]{24}$/;

/** Accepts any hex case, as the MCP contract allows; returns null when malformed. */
export function parseChangeId(value: string): string | null {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return CHANGE_ID_RE.test(v) ? v : null;
}

export function patchId(base: Digest, files: readonly PatchFile[]): Digest {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
  return canonical('needle-patch-artifact')
    .digest(base)
    .list(sorted, (h, f) =>
      h
        .text(f.path)
        .u8(OP_TAG[f.operation])
        .optionalDigest(f.beforeDigest)
        .optionalDigest(f.afterDigest)
        .u64(f.before?.length ?? 0)
        .u64(f.after?.length ?? 0),
    )
    .finish();
}

/** Everything that decides how a verdict is reached; a cached verdict is reused only under the same one. */
export function verifierDefinition(verifierConfig: unknown, testExecution: string, verdictSchema: unknown): Digest {
  return canonical('needle-verifier-definition')
    .text(stableStringify(verifierConfig))
    .text(testExecution)
    .text(stableStringify(verdictSchema))
    .finish();
}

export function verificationId(fields: {
  changeId: string;
  patchId: Digest;
  verdict: Verdict;
  body: unknown;
  definition: Digest;
}): Digest {
  return canonical('needle-verification')
    .text(fields.changeId)
    .digest(fields.patchId)
    .text(fields.verdict)
    .text(stableStringify(fields.body))
    .digest(fields.definition)
    .finish();
}

export function changeDigest(fields: {
  changeId: string;
  request: Digest;
  base: Digest;
  patchId: Digest | null;
  revision: number;
  state: ChangeState;
  verification: { id: Digest; verdict: Verdict } | null;
}): Digest {
  const h = canonical('needle-change-state')
    .text(fields.changeId)
    .digest(fields.request)
    .digest(fields.base)
    .optionalDigest(fields.patchId)
    .u32(fields.revision)
    .text(fields.state);
  if (fields.verification) h.u8(1).digest(fields.verification.id).text(fields.verification.verdict);
  else h.u8(0);
  return h.finish();
}

export function applyId(changeId: string, patch: Digest, active: Digest, createdMs: number): Digest {
  return canonical('needle-change-apply').text(changeId).digest(patch).digest(active).u64(createdMs).finish();
}

export function testPlanDigest(runner: string, argv: readonly string[], cwd: string, identifier: string): Digest {
  return canonical('needle-test-plan-identity')
    .text(runner)
    .list(argv, (h, a) => h.text(a))
    .text(cwd)
    .text(identifier)
    .finish();
}

export function testEvidenceId(plan: Digest, patch: Digest, exitCode: number | null, output: Digest): Digest {
  return canonical('needle-test-evidence')
    .digest(plan)
    .digest(patch)
    .u32(exitCode === null ? 0xffffffff : exitCode >>> 0)
    .digest(output)
    .finish();
}
