// prepare_change (SPEC §14): a disposable checkout, the implementer run in it,
// the patch taken from the filesystem and admitted or rejected as a whole,
// then stored with its blobs. The user's worktree is never written.
import type { Digest } from '../core/digest.js';
import type { ChangeRoleConfig } from '../core/profile.js';
import { CHANGE_RUN } from '../core/limits.js';
import { applyPatchToCheckout, createCheckout, diffCheckout, disposeCheckout, type Checkout, type FileChange } from '../repo/checkout.js';
import type { SandboxInfo } from '../workers/sandbox.js';
import { admitPatch } from './admission.js';
import { lastJsonDocument, type RoleRun } from './command-adapter.js';
import { EMPTY_CONTEXT, sandboxOf, type ChangeDeps } from './deps.js';
import { newChangeId, patchId, requestDigest } from './identity.js';
import { implementerPrompt } from './prompts.js';
import { normalizeRequest } from './request.js';
import { configuredRole, roleSecrets, runRole, type AdaptedRoleRun } from './roles.js';
import { appendEvent, insertRequest, markFailed, recordAttempt, savePatch, type StoredPatch } from './store.js';
import {
  ChangeError,
  implementerReportSchema,
  oneLine,
  type CertifiedContext,
  type ChangeRequest,
  type CoverageItem,
  type PatchFile,
  type PrepareChangeArgs,
  type PrepareChangeResult,
} from './model.js';

export function toFileChanges(files: readonly PatchFile[]): FileChange[] {
  return files.map((f) => ({ path: f.path, op: f.operation, before: f.before, after: f.after, kind: 'file' as const }));
}

/** Maps anything thrown during a run to a rule and a message of our own. */
export function asChangeError(e: unknown): ChangeError {
  if (e instanceof ChangeError) return e;
  const err = e as Error;
  if (err?.name === 'RepoError') return new ChangeError('checkout_error', oneLine(err.message));
  return new ChangeError('internal_error', oneLine(`internal error: ${err?.message ?? String(e)}`));
}

interface Report {
  summary: string;
  coverage: CoverageItem[];
  residualRisks: string[];
  discrepancies: string[];
}

/** The implementer's optional account, kept only when it is well-formed; the patch never depends on it. */
function readReport(run: RoleRun, req: ChangeRequest, files: readonly PatchFile[]): Report {
  let report = null;
  try {
    report = run.truncated ? null : implementerReportSchema.parse(lastJsonDocument(run.stdout));
  } catch {
    report = null;
  }
  const criteria = new Set(req.acceptance_criteria);
  const named = report?.acceptance_coverage.map((c) => c.criterion) ?? [];
  if (report && named.length === criteria.size && new Set(named).size === named.length && named.every((c) => criteria.has(c))) {
    const observed = new Set(files.map((f) => f.path));
    const declared = new Set(report.changed_files.map((f) => f.path));
    const discrepancies = [
      ...[...declared].filter((p) => !observed.has(p)).map((p) => oneLine(`declared but not observed: ${p}`)),
      ...[...observed].filter((p) => !declared.has(p)).map((p) => `observed but not declared: ${p}`),
    ];
    return { summary: report.summary, coverage: report.acceptance_coverage, residualRisks: report.residual_risks, discrepancies };
  }
  return {
    summary: oneLine(`The implementer gave no usable report; the observed patch touches ${files.length} file(s): ${files.map((f) => f.path).join(', ')}`, CHANGE_RUN.summaryMaxBytes),
    coverage: req.acceptance_criteria.map((criterion) => ({ criterion, status: 'unaddressed' as const, evidence: 'not reported by the implementer' })),
    residualRisks: ['Acceptance coverage was not reported; rely on verify_change.'],
    discrepancies: ['implementer printed no valid report'],
  };
}

export interface RevisionRun {
  readonly deps: ChangeDeps;
  readonly sandbox: SandboxInfo;
  readonly implementer: ChangeRoleConfig;
  readonly checkout: Checkout;
  readonly changeId: string;
  readonly base: Digest;
  readonly request: ChangeRequest;
  readonly context: CertifiedContext;
  readonly revision: 1 | 2;
  /** For a repair: the revision it starts from, already materialised before the implementer runs. */
  readonly previous: StoredPatch | null;
  readonly findings: readonly string[] | null;
  readonly signal: AbortSignal;
}

/**
 * Runs the implementer in `checkout` and stores the admitted patch as a new
 * revision. Always disposes the checkout and records the attempt with its
 * cleanup. A first revision that fails marks the change failed (rule and our
 * own message only); a failed repair leaves the state to the caller.
 */
export async function implementRevision(o: RevisionRun): Promise<Omit<StoredPatch, 'revision'>> {
  const { deps, checkout } = o;
  let run: AdaptedRoleRun | null = null;
  let outcome = 'failed';
  try {
    if (o.previous) await applyPatchToCheckout(checkout, toFileChanges(o.previous.files));
    const prompt = implementerPrompt(o.request, o.context.items, o.findings);
    run = await runRole(o.implementer, 'implementer', checkout, prompt, {
      deps,
      sandbox: o.sandbox,
      signal: o.signal,
      defaultTimeoutMs: CHANGE_RUN.defaultImplementerTimeoutMs,
    });
    if (run.outcome !== 'ok') throw new ChangeError(run.outcome === 'cancelled' ? 'cancelled' : (`implementer_${run.outcome}` as const), run.failure!);
    const files = admitPatch(await diffCheckout(checkout), o.request.allowed_paths, roleSecrets(o.implementer, deps));
    const report = readReport(run, o.request, files);
    const patch = { patchId: patchId(o.base, files), files, ...report };
    savePatch(deps.db, o.changeId, o.revision, patch, o.base);
    outcome = 'prepared';
    return patch;
  } catch (e) {
    const err = asChangeError(e);
    outcome = err.rule;
    if (o.revision === 1) markFailed(deps.db, o.changeId, err.rule, err.message, o.revision);
    else appendEvent(deps.db, o.changeId, 'repair_failed', { rule: err.rule });
    throw new ChangeError(err.rule, `change ${o.changeId}: ${err.message}`, o.changeId);
  } finally {
    const cleanup = await disposeCheckout(checkout);
    recordAttempt(deps.db, {
      changeId: o.changeId,
      revision: o.revision,
      role: 'implementer',
      adapter: o.implementer.adapter,
      outcome,
      exitCode: run?.exitCode ?? null,
      durationMs: run?.durationMs ?? 0,
      usage: run?.usage ?? null,
      outputDigest: null,
      cleanup: { removed: cleanup.removed, error: cleanup.error === null ? null : oneLine(cleanup.error) },
    });
  }
}

async function loadContext(deps: ChangeDeps, req: ChangeRequest): Promise<CertifiedContext> {
  if (req.artifact_ids.length === 0 && req.claim_ids.length === 0) return EMPTY_CONTEXT;
  if (!deps.context) throw new ChangeError('invalid_request', 'artifact_ids and claim_ids need the certified evidence store, which is not available here');
  const ctx = await deps.context.load({ artifactIds: req.artifact_ids, claimIds: req.claim_ids });
  const oversized = ctx.items.find((i) => Buffer.byteLength(i.json) > CHANGE_RUN.maxContextItemBytes);
  if (oversized) throw new ChangeError('invalid_request', `certified context ${oversized.id} exceeds ${CHANGE_RUN.maxContextItemBytes} bytes`);
  return ctx;
}

export async function prepareChange(deps: ChangeDeps, args: PrepareChangeArgs, signal: AbortSignal): Promise<PrepareChangeResult> {
  const request = normalizeRequest(args);
  const implementer = configuredRole(deps.profile.implementer, 'implementer');
  const sandbox = sandboxOf(deps);
  const context = await loadContext(deps, request);
  if (signal.aborted) throw new ChangeError('cancelled', 'prepare_change was cancelled before it started');
  const checkout = await createCheckout(deps.repoRoot, deps.runsRoot, 'change');
  let changeId: string;
  const base = checkout.snapshot.sourceDigest;
  try {
    const digest = requestDigest(base, request);
    changeId = newChangeId(digest);
    insertRequest(deps.db, {
      changeId,
      requestDigest: digest,
      repositoryRoot: checkout.snapshot.root,
      lineage: checkout.snapshot.lineage,
      base,
      baseHead: checkout.snapshot.head ?? '',
      request,
      context,
    });
  } catch (e) {
    await disposeCheckout(checkout);
    throw asChangeError(e);
  }
  const patch = await implementRevision({
    deps,
    sandbox,
    implementer,
    checkout,
    changeId,
    base,
    request,
    context,
    revision: 1,
    previous: null,
    findings: null,
    signal,
  });
  return {
    status: 'prepared',
    change_id: changeId,
    patch_id: patch.patchId,
    summary: patch.summary,
    changed_files: patch.files.map((f) => ({ path: f.path, operation: f.operation })),
    acceptance_coverage: patch.coverage,
    residual_risks: patch.residualRisks,
    verification_status: 'not_requested',
  };
}

