// verify_change (SPEC §14): everything is loaded from SQLite; a fresh checkout
// of the same base gets the stored patch materialised with base checks; an
// independent read-only verifier judges it; certified tests run when the
// profile trusts them; the verdict is normalised fail-closed and recorded. A
// first `repairable` consumes the change's single repair and one new
// verification, in the same call.
import { CHANGE_RUN } from '../core/limits.js';
import type { Digest } from '../core/digest.js';
import type { ChangeRoleConfig } from '../core/profile.js';
import { applyPatchToCheckout, createCheckout, diffCheckout, disposeCheckout, type Checkout } from '../repo/checkout.js';
import type { SandboxInfo } from '../workers/sandbox.js';
import { sandboxOf, type ChangeDeps } from './deps.js';
import { parseChangeId, verificationId, verifierDefinition } from './identity.js';
import { normalizeVerdict, type VerificationFacts } from './normalize.js';
import { asChangeError, implementRevision, toFileChanges } from './prepare.js';
import { verifierPrompt } from './prompts.js';
import { configuredRole, runRole, type AdaptedRoleRun } from './roles.js';
import { executeTestPlan, notExecuted, selectTestPlans, type TestSelection } from './testplans.js';
import {
  beginRepair,
  latestVerification,
  loadChange,
  loadPatch,
  recordAttempt,
  recordVerification,
  type ChangeRow,
  type StoredPatch,
  type StoredVerification,
} from './store.js';
import { ChangeError, oneLine, verifierVerdictSchema, type TestPlanResult, type VerifyChangeArgs, type VerifyChangeResult } from './model.js';

interface Verifying {
  readonly deps: ChangeDeps;
  readonly sandbox: SandboxInfo;
  readonly verifier: ChangeRoleConfig;
  readonly definition: Digest;
  readonly signal: AbortSignal;
}

function sameFileSet(observed: ReturnType<typeof diffCheckout>, patch: StoredPatch): string | null {
  const expected = new Map(patch.files.map((f) => [f.path, f]));
  for (const c of observed) {
    const f = expected.get(c.path);
    if (!f) return `${c.path} (${c.op})`;
    if (c.op !== f.operation || c.kind !== 'file' || (c.after === null) !== (f.after === null) || (c.after && f.after && !c.after.equals(f.after)))
      return `${c.path} (${c.op})`;
    expected.delete(c.path);
  }
  const missing = [...expected.keys()][0];
  return missing === undefined ? null : `${missing} (restored)`;
}

async function runTests(v: Verifying, checkout: Checkout, patch: StoredPatch, selection: TestSelection, change: ChangeRow): Promise<TestPlanResult[]> {
  const results: TestPlanResult[] = [];
  for (const t of selection.plans) {
    if (!t.available || selection.overCap) {
      results.push(notExecuted(t, t.reason ?? 'not executed: the plans exceed the bound'));
      continue;
    }
    const run = await executeTestPlan(t, { checkout, patchId: patch.patchId, sandbox: v.sandbox, signal: v.signal });
    recordAttempt(v.deps.db, {
      changeId: change.changeId,
      revision: patch.revision,
      role: 'test',
      adapter: t.plan.runner,
      outcome: run.outcome,
      exitCode: run.exitCode,
      durationMs: run.durationMs,
      usage: null,
      outputDigest: run.outputDigest,
      cleanup: { removed: true, error: null },
      test: { evidenceId: run.result.evidence_id as Digest | null, outputExcerpt: run.outputExcerpt },
    });
    results.push(run.result);
  }
  return results;
}

/** One verification of the latest revision, recorded; never throws for the verifier's failures. */
async function verifyRevision(v: Verifying, change: ChangeRow, patch: StoredPatch, repairAvailable: boolean): Promise<StoredVerification> {
  const criteria = change.request.acceptance_criteria;
  let facts: VerificationFacts = {
    criteria,
    materializationFailure: null,
    run: null,
    verifierModified: null,
    overCap: false,
    testResults: [],
    repairAvailable,
  };
  let run: AdaptedRoleRun | null = null;
  const checkout = await createCheckout(change.repositoryRoot, v.deps.runsRoot, 'verify');
  try {
    if (checkout.snapshot.sourceDigest !== change.base) {
      facts = { ...facts, materializationFailure: 'snapshot drift: the worktree changed since preparation, so its base cannot be reproduced' };
    } else {
      await applyPatchToCheckout(checkout, toFileChanges(patch.files));
      const selection = selectTestPlans(
        change.context.testPlans,
        checkout.manifest,
        new Set(patch.files.map((f) => f.path)),
        v.deps.profile.test_execution === 'trusted',
      );
      run = await runRole(v.verifier, 'verifier', checkout, verifierPrompt(change.request, patch.files), {
        deps: v.deps,
        sandbox: v.sandbox,
        signal: v.signal,
        defaultTimeoutMs: CHANGE_RUN.defaultVerifierTimeoutMs,
        certifiedTests: selection.overCap ? [] : selection.plans.filter((t) => t.available).map((t) => t.plan.argv),
      });
      if (run.outcome === 'cancelled') throw new ChangeError('cancelled', 'verify_change was cancelled');
      // Re-diff against the base: anything beyond the stored patch was the verifier's doing.
      let modified: string | null;
      try {
        modified = sameFileSet(diffCheckout(checkout), patch);
      } catch (e) {
        modified = `its checkout can no longer be compared with the base (${asChangeError(e).message})`;
      }
      const testResults = modified === null ? await runTests(v, checkout, patch, selection, change) : selection.plans.map((t) => notExecuted(t, 'not executed: the verifier modified the checkout'));
      if (v.signal.aborted) throw new ChangeError('cancelled', 'verify_change was cancelled');
      facts = { ...facts, run, verifierModified: modified, overCap: selection.overCap, testResults };
    }
  } catch (e) {
    const err = asChangeError(e);
    if (err.rule === 'cancelled') throw err;
    facts = { ...facts, materializationFailure: `the stored patch does not materialise on its base: ${err.message}` };
  } finally {
    const cleanup = disposeCheckout(checkout);
    recordAttempt(v.deps.db, {
      changeId: change.changeId,
      revision: patch.revision,
      role: 'verifier',
      adapter: v.verifier.adapter,
      outcome: run?.outcome ?? 'not_started',
      exitCode: run?.exitCode ?? null,
      durationMs: run?.durationMs ?? 0,
      usage: run?.usage ?? null,
      outputDigest: null,
      cleanup: { removed: cleanup.removed, error: cleanup.error === null ? null : oneLine(cleanup.error) },
    });
  }
  return record(v, change, patch, normalizeVerdict(facts), run !== null);
}

function record(
  v: Verifying,
  change: ChangeRow,
  patch: StoredPatch,
  n: { verdict: StoredVerification['verdict']; body: StoredVerification['body'] },
  verifierStarted: boolean,
  settlesRepair = false,
): StoredVerification {
  const id = verificationId({ changeId: change.changeId, patchId: patch.patchId, verdict: n.verdict, body: n.body, definition: v.definition });
  const stored = { verificationId: id, revision: patch.revision, patchId: patch.patchId, definition: v.definition, verdict: n.verdict, verifierStarted, body: n.body };
  recordVerification(v.deps.db, change.changeId, stored, settlesRepair);
  return { ...stored, createdMs: Date.now() };
}

function result(
  change: ChangeRow,
  s: StoredVerification,
  extra: { verifierStarted: boolean; repairAttempted: boolean; repairPerformed: boolean; attempts: 1 | 2 },
): VerifyChangeResult {
  return {
    status: s.verdict,
    change_id: change.changeId,
    patch_id: s.patchId,
    verification_id: s.verificationId,
    ...s.body,
    verifier_started: extra.verifierStarted,
    repair_attempted: extra.repairAttempted,
    repair_performed: extra.repairPerformed,
    verification_attempts: extra.attempts,
  };
}

function loadVerifiable(deps: ChangeDeps, rawId: string): { change: ChangeRow; patch: StoredPatch } {
  const id = parseChangeId(rawId);
  if (id === null) throw new ChangeError('invalid_request', 'change_id: must match chg_<24 hex>');
  const change = loadChange(deps.db, id);
  if (!change) throw new ChangeError('unknown_change', `unknown change ${id}`);
  if (change.state === 'failed') throw new ChangeError('change_failed', `change ${id} failed (${change.failureRule ?? 'unknown rule'}) and cannot be verified`, id);
  if (change.state === 'repairing') throw new ChangeError('repair_in_progress', `change ${id} is being repaired; verify it again afterwards`, id);
  if (change.state === 'requested') throw new ChangeError('not_prepared', `change ${id} is still being prepared`, id);
  const patch = loadPatch(deps.db, id, change.latestRevision);
  if (!patch) throw new ChangeError('corrupt_store', `change ${id} has no stored patch for revision ${change.latestRevision}`, id);
  return { change, patch };
}

export async function verifyChange(deps: ChangeDeps, args: VerifyChangeArgs, signal: AbortSignal): Promise<VerifyChangeResult> {
  const { change, patch } = loadVerifiable(deps, args.change_id);
  const verifier = configuredRole(deps.profile.verifier, 'verifier');
  const definition = verifierDefinition(verifier, deps.profile.test_execution, verifierVerdictSchema.json);
  const cached = latestVerification(deps.db, change.changeId, change.latestRevision);
  if (cached && cached.definition === definition && cached.patchId === patch.patchId && (cached.verdict === 'verified' || cached.verdict === 'rejected'))
    return result(change, cached, { verifierStarted: false, repairAttempted: change.repairAttempted, repairPerformed: false, attempts: 1 });
  if (change.state === 'applying' || change.state === 'applied')
    throw new ChangeError('already_applied', `change ${change.changeId} is ${change.state}`, change.changeId);

  const v: Verifying = { deps, sandbox: sandboxOf(deps), verifier, definition, signal };
  const repairAvailable = change.latestRevision === 1 && !change.repairAttempted;
  const first = await verifyRevision(v, change, patch, repairAvailable);
  if (first.verdict !== 'repairable') return result(change, first, { verifierStarted: first.verifierStarted, repairAttempted: change.repairAttempted, repairPerformed: false, attempts: 1 });
  if (!beginRepair(deps.db, change.changeId))
    return result(change, first, { verifierStarted: true, repairAttempted: true, repairPerformed: false, attempts: 1 });
  return repairAndReverify(v, change, patch, first);
}

async function repairAndReverify(v: Verifying, change: ChangeRow, previous: StoredPatch, first: StoredVerification): Promise<VerifyChangeResult> {
  const done = { verifierStarted: true, repairAttempted: true };
  let checkout: Checkout | null = null;
  try {
    checkout = await createCheckout(change.repositoryRoot, v.deps.runsRoot, 'change');
    if (checkout.snapshot.sourceDigest !== change.base) {
      disposeCheckout(checkout);
      throw new ChangeError('snapshot_drift', 'the worktree changed since preparation, so the repair cannot start from the original base');
    }
    await implementRevision({
      deps: v.deps,
      sandbox: v.sandbox,
      implementer: configuredRole(v.deps.profile.implementer, 'implementer'),
      checkout,
      changeId: change.changeId,
      base: change.base,
      request: change.request,
      context: change.context,
      revision: 2,
      previous,
      findings: first.body.findings,
      signal: v.signal,
    });
  } catch (e) {
    const err = asChangeError(e);
    // The repair failed (or was cancelled): the change keeps revision 1 with a
    // synthetic inconclusive verdict, so it never stays stuck in `repairing`.
    const failed = record(v, change, previous, {
      verdict: 'inconclusive',
      body: {
        acceptance_coverage: [],
        findings: [oneLine(`repair failed (${err.rule}): ${err.message}`, CHANGE_RUN.findingMaxBytes)],
        test_evidence_ids: [],
        test_plan_results: [],
        test_plans_over_cap: false,
      },
    }, false, true);
    if (err.rule === 'cancelled') throw err;
    return result(change, failed, { ...done, repairPerformed: false, attempts: 1 });
  }
  const repaired = loadChange(v.deps.db, change.changeId)!;
  const patch = loadPatch(v.deps.db, change.changeId, 2)!;
  const second = await verifyRevision(v, repaired, patch, false);
  return result(repaired, second, { ...done, repairPerformed: true, attempts: 2 });
}
