// The explorer ladder (SPEC §7): workers run in profile order, each only for
// the obligations still missing, with earlier certified results as input.
// Every proposal is validated against the worktree bytes; a file that changed
// while the worker ran means nothing from that run is certified. Certified
// artifacts, their claims and manifests are stored in one transaction.
// A deterministic worker that already ran on the same bytes and evidence and
// could not satisfy what is missing is not run again: its certified negative
// outcome stands in for it (negative.ts), and the next worker runs.
import { repoFileDigest } from '../repo/paths.js';
import type { SnapshotListing } from '../repo/snapshot.js';
import { checkpoint } from '../core/abort.js';
import type { Digest } from '../core/digest.js';
import { EVIDENCE_STORE, WORKER } from '../core/limits.js';
import type { CompiledNeed, Obligation } from '../core/need.js';
import type { RoleProfile } from '../core/profile.js';
import type { ResolveOptions } from '../core/resolution.js';
import { stableStringify } from '../core/schema.js';
import type { CoveredEvidence, Usage, Worker, WorkerOutput } from '../core/worker.js';
import type { Db } from '../store/db.js';
import { recordRejection } from '../store/evidence/accounting.js';
import { deferWrite } from '../store/bookkeeping.js';
import { recordWorkerRun } from '../store/worker-runs.js';
import { storeCertified } from '../store/evidence/certificates.js';
import { storeNegative, type NegativeOutcomeBody, type NegativeRow, type NegativeVerdict } from '../store/evidence/negatives.js';
import { certify, type CertifiedArtifact } from '../validate/certificate.js';
import { SnapshotReader, type Dependency, type Membership } from '../validate/snapshot-reader.js';
import { citedByProposals, validateProposal, type ValidatedProposal } from '../validate/validate.js';
import { priceMicroUsd } from '../workers/runs-store.js';
import { planFromCache, type CacheContext, type CachePlan } from './cache-plan.js';
import { basisOf, draftNegative, findNegative } from './negative.js';
import { clipUtf8 } from '../core/text.js';

export interface LadderInput {
  readonly db: Db;
  readonly root: string;
  readonly need: CompiledNeed;
  readonly explorers: readonly Worker[];
  readonly profile: RoleProfile;
  readonly opts: ResolveOptions;
  readonly missing: readonly Obligation[];
  readonly covered: readonly CoveredEvidence[];
  readonly now: () => number;
  readonly snapshotDigest: () => Digest;
  /**
   * The source snapshot digest now, or null when it cannot be taken: the
   * worktree watch's when it knows it (no git), else git's. Taken before a
   * deterministic worker runs and again before its negative outcome is
   * certified; the checkpoint between them lets pending file events arrive.
   */
  readonly snapshotNow: () => Digest | null;
  /** The files of the current snapshot when the worktree watch knows them (no git), else null. */
  readonly listingNow: () => SnapshotListing | null;
  /** The cache as a repeat would see it (nothing counted as issued now), with a fresh snapshot memo per call. */
  readonly cache: () => CacheContext;
  /** basisOf() the plan the ladder starts from. */
  readonly basis: Digest;
}

export interface LadderOutcome {
  readonly workersRun: number;
  readonly modelWorkersStarted: number;
  /** Certificates issued by this ladder. */
  readonly issued: ReadonlySet<string>;
  readonly ambiguous: readonly string[] | null;
  /** Files that changed while a worker ran (nothing from that run was certified). */
  readonly drift: readonly string[];
  readonly rejections: readonly string[];
  readonly unresolved: readonly string[];
  /** Model workers that did not run because of the limit. */
  readonly skipped: readonly string[];
  /** Certified negative outcomes that stood in for a deterministic worker (it did not run). */
  readonly reused: readonly NegativeRow[];
}

/**
 * Price of a run in micro-USD from the profile's table, by the same rule as the
 * model-worker run records (a needed rate that is unknown makes the price
 * unknown, null); a worker without a model, i.e. the static worker, is free.
 */
export function priceOf(profile: RoleProfile, worker: Worker, usage: Usage | null): number | null {
  if (!worker.countsAgainstLimit && (usage === null || usage.model === null)) return 0;
  if (usage === null || usage.model === null) return null;
  return priceMicroUsd(profile.pricing, usage.model, usage);
}

/** Usage a worker attached to the error it threw (see CodexWorkerError.usage), if any. */
function spentBy(e: unknown): Usage | null {
  if (!(e instanceof Error) || !('usage' in e)) return null;
  const u = (e as { usage: unknown }).usage;
  if (typeof u !== 'object' || u === null) return null;
  const { model, inputTokens, cachedInputTokens, outputTokens, recordedRunId } = u as Record<string, unknown>;
  const counts = [inputTokens, cachedInputTokens, outputTokens];
  if ((model !== null && typeof model !== 'string') || !counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return null;
  if (recordedRunId !== undefined && !Number.isSafeInteger(recordedRunId)) return null;
  return { model, inputTokens, cachedInputTokens, outputTokens, ...(recordedRunId === undefined ? {} : { recordedRunId }) } as Usage;
}

/** Paths whose bytes moved between what the worker read, what the validator checked and what is there now. */
function driftOf(root: string, output: WorkerOutput, cited: readonly Dependency[]): string[] {
  const seen = new Map<string, Digest>();
  const drift = new Set<string>();
  for (const o of output.observed) seen.set(o.path, o.digest);
  for (const c of cited) {
    const o = seen.get(c.path);
    if (o !== undefined && o !== c.digest) drift.add(c.path);
    seen.set(c.path, c.digest);
  }
  for (const [path, digest] of seen) if (repoFileDigest(root, path) !== digest) drift.add(path);
  return [...drift].sort();
}

function coveredSummary(v: ValidatedProposal): CoveredEvidence {
  const text = stableStringify(v.payload);
  return { predicate: v.predicate, summary: clipUtf8(text, WORKER.maxCoveredEntryBytes, '…') };
}

interface NegativeRun {
  readonly worker: Worker;
  readonly definition: Digest | null;
  /** Source snapshot taken just before the worker started. */
  readonly before: Digest | null;
  readonly deadline: number;
  readonly output: WorkerOutput;
}

/**
 * What a negative outcome of this run rests on, or null when it may not be
 * certified: only a deterministic worker that attempted every obligation
 * (not aborted, deadline not reached), whose every read file still has the
 * bytes it and the validators read, on a source snapshot that did not move
 * while it ran.
 */
function negativeBasis(
  root: string,
  snapshotNow: () => Digest | null,
  run: NegativeRun,
  reads: readonly Dependency[],
  signal: AbortSignal,
): { snapshot: Digest; deps: Dependency[] } | null {
  if (run.definition === null || run.before === null || signal.aborted || Date.now() >= run.deadline) return null;
  const deps = new Map<string, Digest>();
  for (const o of run.output.observed) deps.set(o.path, o.digest);
  for (const r of reads) {
    if (deps.has(r.path) && deps.get(r.path) !== r.digest) return null;
    deps.set(r.path, r.digest);
  }
  for (const [path, digest] of deps) if (repoFileDigest(root, path) !== digest) return null;
  if (snapshotNow() !== run.before) return null;
  return { snapshot: run.before, deps: [...deps].map(([path, digest]) => ({ path, digest })) };
}

/**
 * The ladder's outcome when no worker has to run: every deterministic explorer
 * is stood in for by a certified negative outcome covering what is missing,
 * and every other explorer could not run anyway (cache-only session, no
 * model-worker runs left). Null when some worker would run.
 */
export function reuseNegatives(ctx: CacheContext, need: CompiledNeed, plan: CachePlan, explorers: readonly Worker[], opts: ResolveOptions): LadderOutcome | null {
  const missing = plan.obligations.filter((_, i) => ((plan.coveredMask >> i) & 1) === 0);
  if (missing.length === 0) return null;
  const basis = basisOf(plan);
  const reused: NegativeRow[] = [];
  const rejections: string[] = [];
  const unresolved: string[] = [];
  const skipped: string[] = [];
  const done = (ambiguous: readonly string[] | null): LadderOutcome | null =>
    reused.length === 0
      ? null
      : { workersRun: 0, modelWorkersStarted: 0, issued: new Set(), ambiguous, drift: [], rejections, unresolved, skipped, reused };
  for (const worker of explorers) {
    const definition = worker.definition?.() ?? null;
    const found = definition ? findNegative(ctx, need, definition, basis, missing) : null;
    if (found) {
      reused.push(found);
      if (found.outcome.ambiguous) return done([...found.outcome.ambiguous]);
      rejections.push(...found.outcome.rejections);
      unresolved.push(...found.outcome.unresolved);
      continue;
    }
    if (!opts.cacheOnly && !(worker.countsAgainstLimit && opts.modelWorkersLeft <= 0)) return null;
    if (!opts.cacheOnly) skipped.push(worker.name);
  }
  return done(null);
}

export async function runLadder(input: LadderInput): Promise<LadderOutcome> {
  const { db, need, opts } = input;
  let missing = [...input.missing];
  const covered = [...input.covered];
  // Verdicts certified by an earlier worker, summarized for the next one only
  // if one runs: a summary serializes the whole payload (ms on a trace).
  const toSummarize: ValidatedProposal[] = [];
  const issued = new Set<string>();
  const rejections: string[] = [];
  const unresolved: string[] = [];
  const skipped: string[] = [];
  const reused: NegativeRow[] = [];
  let drift: string[] = [];
  let workersRun = 0;
  let modelWorkersStarted = 0;
  // The certified evidence covered for this need, as a repeat would plan it; recomputed after each certification.
  let basis: Digest | null = input.basis;
  const basisNow = (ctx: CacheContext = input.cache()): Digest => (basis ??= basisOf(planFromCache(ctx, need)));
  const outcome = (ambiguous: readonly string[] | null): LadderOutcome => ({
    workersRun,
    modelWorkersStarted,
    issued,
    ambiguous,
    drift,
    rejections,
    unresolved,
    skipped,
    reused,
  });
  /** Stores the negative outcome of `run` for `unsatisfied`, when it may be certified. */
  const certifyNegative = (
    run: NegativeRun,
    runId: number,
    reads: readonly Dependency[],
    unsatisfied: readonly Obligation[],
    verdict: NegativeVerdict,
    body: NegativeOutcomeBody,
    positives: readonly CertifiedArtifact[],
  ): void => {
    const held = unsatisfied.length > 0 ? negativeBasis(input.root, input.snapshotNow, run, reads, opts.signal) : null;
    // The step's certification is one transaction: its artifacts, then the negative outcome for what
    // remains (its basis is the plan those artifacts make), its certification row last.
    db.transaction(() => {
      if (positives.length > 0) {
        storeCertified(db, positives, { needId: need.id, requestDigest: need.requestDigest, workerRunId: runId }, input.now());
        basis = null;
      }
      if (held === null || run.definition === null) return;
      const negative = draftNegative({
        worker: run.worker.name,
        definition: run.definition,
        need,
        basis: basisNow({ ...input.cache(), snapshotDigest: () => held.snapshot }),
        unsatisfied,
        verdict,
        outcome: body,
        snapshotDigest: held.snapshot,
        dependencies: held.deps,
      });
      storeNegative(db, negative, { needId: need.id, workerRunId: runId }, input.now());
    })();
  };
  for (const [index, worker] of input.explorers.entries()) {
    if (missing.length === 0) break;
    if (worker.countsAgainstLimit && opts.modelWorkersLeft - modelWorkersStarted <= 0) {
      skipped.push(worker.name);
      continue;
    }
    const definition = worker.definition?.() ?? null;
    if (definition) {
      const found = findNegative(input.cache(), need, definition, basisNow(), missing);
      if (found) {
        reused.push(found);
        if (found.outcome.ambiguous) return outcome([...found.outcome.ambiguous]);
        rejections.push(...found.outcome.rejections);
        unresolved.push(...found.outcome.unresolved);
        continue;
      }
    }
    const before = definition ? input.snapshotNow() : null;
    opts.onProgress?.({ progress: index, total: input.explorers.length, message: `${worker.name}: resolving ${missing.map((o) => o.predicate).join(', ')}` });
    workersRun++;
    if (worker.countsAgainstLimit) modelWorkersStarted++;
    const started = input.now();
    const deadline = started + EVIDENCE_STORE.workerDeadlineMs;
    // A model worker already wrote its run (with its turns) to the one run table: refer to that row, never a second one.
    const record = (outcome: string, usage: Usage | null): number =>
      usage?.recordedRunId ??
      recordWorkerRun(
        db,
        {
          needId: need.id,
          route: need.route,
          worker: worker.name,
          model: usage?.model ?? null,
          outcome,
          inputTokens: usage?.inputTokens ?? 0,
          cachedInputTokens: usage?.cachedInputTokens ?? 0,
          outputTokens: usage?.outputTokens ?? 0,
          priceMicroUsd: priceOf(input.profile, worker, usage),
          startedUnixMs: started,
          durationMs: Math.max(0, input.now() - started),
        },
        input.now(),
      );
    covered.push(...toSummarize.splice(0).map(coveredSummary));
    let output: WorkerOutput;
    try {
      output = await worker.run({
        need,
        missing,
        root: input.root,
        covered: [...covered],
        deadline,
        snapshot: before,
        signal: opts.signal,
        onProgress: opts.onProgress ? (message) => opts.onProgress!({ progress: index, total: input.explorers.length, message }) : undefined,
        ...(opts.onStage ? { onStage: opts.onStage } : {}),
      });
    } catch (e) {
      // A cancelled or crashed model run still spent tokens; it is accounted when the worker says what it spent.
      const spent = spentBy(e);
      if (spent) record(opts.signal.aborted ? 'cancelled' : 'failed', spent);
      throw e;
    }
    const runId = record(output.outcome.kind, output.usage);
    // A rejection is bookkeeping (the reasons travel in the outcome): committed after the answer, never fsynced on its path.
    const reject = (predicate: string | null, reasons: readonly string[], payload: unknown): void => {
      const rejected = { needId: need.id, workerRunId: runId, predicate, reasons, payload };
      deferWrite(db, () => recordRejection(db, rejected, input.now()));
    };
    // A cancel that arrived while the worker finished wins: nothing of this run is validated or certified.
    await checkpoint(opts.signal);
    const run: NegativeRun = { worker, definition, before, deadline, output };
    if (output.outcome.kind === 'ambiguous') {
      const candidates = output.outcome.candidates.slice(0, EVIDENCE_STORE.maxAmbiguousCandidates);
      certifyNegative(run, runId, [], missing, 'ambiguous', { ambiguous: candidates, rejections: [], unresolved: [] }, []);
      return outcome(candidates);
    }
    const stepUnresolved = output.outcome.kind === 'unresolved' ? [`${worker.name}: ${output.outcome.reason}`] : [];
    const stepRejections: string[] = [];
    const rejectedReads: Dependency[] = [];

    const accepted: { verdict: ValidatedProposal; cited: Dependency[] }[] = [];
    opts.onStage?.('validate');
    // Which cited paths belong to the snapshot, for every proposal at once (from the watch's
    // listing, or one git call). The checkpoint above let pending file events arrive.
    const members: Membership = new Map();
    const listing = input.listingNow();
    new SnapshotReader(input.root, members, listing).prime(citedByProposals(output.proposals));
    for (const proposal of output.proposals) {
      const reader = new SnapshotReader(input.root, members, listing);
      const verdict = validateProposal(reader, need, missing, proposal);
      if (verdict.ok) accepted.push({ verdict, cited: reader.reads() });
      else {
        stepRejections.push(`${worker.name} ${verdict.predicate ?? 'proposal'}: ${verdict.reasons.join('; ')}`);
        rejectedReads.push(...reader.reads());
        reject(verdict.predicate, verdict.reasons, proposal.payload);
      }
    }
    // Validation reads every cited file; a cancel that arrived meanwhile wins over certification.
    await checkpoint(opts.signal);
    unresolved.push(...stepUnresolved);
    rejections.push(...stepRejections);
    drift = driftOf(input.root, output, accepted.flatMap((a) => a.cited));
    if (drift.length > 0) {
      const reason = `changed during resolution: ${drift.join(', ')}`;
      for (const a of accepted) reject(a.verdict.predicate, [reason], a.verdict.payload);
      return outcome(null);
    }
    const certified: CertifiedArtifact[] = accepted.map((a) =>
      certify({
        need,
        validated: a.verdict,
        cited: a.cited,
        observed: output.observed,
        observationComplete: output.observationComplete,
        snapshotDigest: input.snapshotDigest,
      }),
    );
    const done = new Set(accepted.flatMap((a) => a.verdict.obligations.map((o) => o.id)));
    missing = missing.filter((o) => !done.has(o.id));
    const reads = [...accepted.flatMap((a) => a.cited), ...rejectedReads];
    certifyNegative(run, runId, reads, missing, 'unsatisfied', { ambiguous: null, rejections: stepRejections, unresolved: stepUnresolved }, certified);
    for (const c of certified) issued.add(c.certificateId);
    toSummarize.push(...accepted.map((a) => a.verdict));
  }
  return outcome(null);
}
