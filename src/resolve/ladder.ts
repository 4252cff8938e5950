// The explorer ladder (SPEC §7): workers run in profile order, each only for
// the obligations still missing, with earlier certified results as input.
// Every proposal is validated against the worktree bytes; a file that changed
// while the worker ran means nothing from that run is certified. Certified
// artifacts, their claims and manifests are stored in one transaction.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blake3, type Digest } from '../core/digest.js';
import { EVIDENCE_STORE, WORKER } from '../core/limits.js';
import type { CompiledNeed, Obligation } from '../core/need.js';
import type { RoleProfile } from '../core/profile.js';
import type { ResolveOptions } from '../core/resolution.js';
import { stableStringify } from '../core/schema.js';
import type { CoveredEvidence, Usage, Worker, WorkerOutput } from '../core/worker.js';
import type { Db } from '../store/db.js';
import { recordRejection, recordWorkerRun } from '../store/evidence/accounting.js';
import { storeCertified } from '../store/evidence/certificates.js';
import { certify, type CertifiedArtifact } from '../validate/certificate.js';
import { SnapshotReader, type Dependency } from '../validate/snapshot-reader.js';
import { validateProposal, type ValidatedProposal } from '../validate/validate.js';
import { priceMicroUsd } from '../workers/runs-store.js';

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
}

/**
 * Price of a run in USD from the profile's table, by the same rule as the
 * model-worker run records (a needed rate that is unknown makes the price
 * unknown, null); a worker without a model, i.e. the static worker, is free.
 */
export function priceOf(profile: RoleProfile, worker: Worker, usage: Usage | null): number | null {
  if (!worker.countsAgainstLimit && (usage === null || usage.model === null)) return 0;
  if (usage === null || usage.model === null) return null;
  const micro = priceMicroUsd(profile.pricing, usage.model, usage);
  return micro === null ? null : micro / 1_000_000;
}

/** Usage a worker attached to the error it threw (see CodexWorkerError.usage), if any. */
function spentBy(e: unknown): Usage | null {
  if (!(e instanceof Error) || !('usage' in e)) return null;
  const u = (e as { usage: unknown }).usage;
  if (typeof u !== 'object' || u === null) return null;
  const { model, inputTokens, cachedInputTokens, outputTokens } = u as Record<string, unknown>;
  const counts = [inputTokens, cachedInputTokens, outputTokens];
  if ((model !== null && typeof model !== 'string') || !counts.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return null;
  return { model, inputTokens, cachedInputTokens, outputTokens } as Usage;
}

function currentDigest(root: string, path: string): Digest | null {
  try {
    return blake3(readFileSync(join(root, path)));
  } catch {
    return null;
  }
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
  for (const [path, digest] of seen) if (currentDigest(root, path) !== digest) drift.add(path);
  return [...drift].sort();
}

function coveredSummary(v: ValidatedProposal): CoveredEvidence {
  const text = stableStringify(v.payload);
  return { predicate: v.predicate, summary: text.length > WORKER.maxCoveredEntryBytes ? `${text.slice(0, WORKER.maxCoveredEntryBytes - 1)}…` : text };
}

export async function runLadder(input: LadderInput): Promise<LadderOutcome> {
  const { db, need, opts } = input;
  let missing = [...input.missing];
  const covered = [...input.covered];
  const issued = new Set<string>();
  const rejections: string[] = [];
  const unresolved: string[] = [];
  const skipped: string[] = [];
  let drift: string[] = [];
  let workersRun = 0;
  let modelWorkersStarted = 0;
  for (const [index, worker] of input.explorers.entries()) {
    if (missing.length === 0) break;
    if (worker.countsAgainstLimit && opts.modelWorkersLeft - modelWorkersStarted <= 0) {
      skipped.push(worker.name);
      continue;
    }
    opts.onProgress?.({ progress: index, total: input.explorers.length, message: `${worker.name}: resolving ${missing.map((o) => o.predicate).join(', ')}` });
    workersRun++;
    if (worker.countsAgainstLimit) modelWorkersStarted++;
    const started = input.now();
    const record = (outcome: string, usage: Usage | null): number =>
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
          costUsd: priceOf(input.profile, worker, usage),
          durationMs: Math.max(0, input.now() - started),
        },
        input.now(),
      );
    let output: WorkerOutput;
    try {
      output = await worker.run({
        need,
        missing,
        root: input.root,
        covered: [...covered],
        deadline: started + EVIDENCE_STORE.workerDeadlineMs,
        signal: opts.signal,
        onProgress: opts.onProgress ? (message) => opts.onProgress!({ progress: index, total: input.explorers.length, message }) : undefined,
      });
    } catch (e) {
      // A cancelled or crashed model run still spent tokens; it is accounted when the worker says what it spent.
      const spent = spentBy(e);
      if (spent) record(opts.signal.aborted ? 'cancelled' : 'failed', spent);
      throw e;
    }
    const runId = record(output.outcome.kind, output.usage);
    if (output.outcome.kind === 'ambiguous') {
      const candidates = output.outcome.candidates.slice(0, EVIDENCE_STORE.maxAmbiguousCandidates);
      return { workersRun, modelWorkersStarted, issued, ambiguous: candidates, drift, rejections, unresolved, skipped };
    }
    if (output.outcome.kind === 'unresolved') unresolved.push(`${worker.name}: ${output.outcome.reason}`);

    const accepted: { verdict: ValidatedProposal; cited: Dependency[] }[] = [];
    for (const proposal of output.proposals) {
      const reader = new SnapshotReader(input.root);
      const verdict = validateProposal(reader, need, missing, proposal);
      if (verdict.ok) accepted.push({ verdict, cited: reader.reads() });
      else {
        rejections.push(`${worker.name} ${verdict.predicate ?? 'proposal'}: ${verdict.reasons.join('; ')}`);
        recordRejection(db, { needId: need.id, workerRunId: runId, predicate: verdict.predicate, reasons: verdict.reasons, payload: proposal.payload }, input.now());
      }
    }
    drift = driftOf(input.root, output, accepted.flatMap((a) => a.cited));
    if (drift.length > 0) {
      const reason = `changed during resolution: ${drift.join(', ')}`;
      for (const a of accepted)
        recordRejection(db, { needId: need.id, workerRunId: runId, predicate: a.verdict.predicate, reasons: [reason], payload: a.verdict.payload }, input.now());
      return { workersRun, modelWorkersStarted, issued, ambiguous: null, drift, rejections, unresolved, skipped };
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
    if (certified.length > 0) {
      storeCertified(db, certified, { needId: need.id, requestDigest: need.requestDigest, workerRunId: runId }, input.now());
      for (const c of certified) issued.add(c.certificateId);
    }
    const done = new Set(accepted.flatMap((a) => a.verdict.obligations.map((o) => o.id)));
    missing = missing.filter((o) => !done.has(o.id));
    covered.push(...accepted.map((a) => coveredSummary(a.verdict)));
  }
  return { workersRun, modelWorkersStarted, issued, ambiguous: null, drift, rejections, unresolved, skipped };
}
