// The engine (SPEC §2, §10): cache first; on a miss or partial, the explorer
// ladder runs — under single flight — for the missing obligations only; then
// the cache is planned again and projected. The resolver is the only place
// that decides hit or miss; workers never write to the store.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blake3, canonical, type Digest } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import type { RoleProfile } from '../core/profile.js';
import { UNSAFE_KINDS, type Engine, type EngineResult, type ResolveOptions } from '../core/resolution.js';
import { stableStringify } from '../core/schema.js';
import type { Predicate } from '../core/semantic.js';
import type { CoveredEvidence, Worker } from '../core/worker.js';
import { captureSnapshot } from '../repo/snapshot.js';
import type { WorktreeState } from '../repo/worktree-watch.js';
import { deferWrite, flushBookkeeping } from '../store/bookkeeping.js';
import type { Db } from '../store/db.js';
import { recordResolution, storeSufficiency } from '../store/evidence/accounting.js';
import { splitLines } from '../validate/snapshot-reader.js';
import { planFromCache, type AuthorityMode, type CacheContext, type CachePlan, type ServedUnit } from './cache-plan.js';
import { FreshnessChecker } from './freshness.js';
import { renderFrontierView } from './frontier-view.js';
import { HitMemo, sameSnapshot } from './hit-memo.js';
import { reuseNegatives, runLadder, type LadderOutcome } from './ladder.js';
import { basisOf, worktreeSnapshot } from './negative.js';
import { decideOutcome, viewEntries } from './outcome.js';
import { singleFlight } from './single-flight.js';
import { avoidedRuns, engineResult, isCacheHit, resolutionRow, sufficiencyFor, viewKey } from './result.js';

export interface EngineDeps {
  readonly db: Db;
  readonly repoRoot: string;
  readonly explorers: readonly Worker[];
  readonly profile: RoleProfile;
  readonly now?: () => number;
  /** FrontierView budget in tokens (default RESOLVER.defaultTokenBudget). */
  readonly tokenBudget?: number;
  /** The team cache, when one is configured (src/team/ implements it; the CLI wires it). */
  readonly team?: TeamLink;
  /** A watched worktree (long-lived servers): the snapshot digest without running git. */
  readonly worktree?: WorktreeState;
}

/**
 * The team cache as the resolver sees it. `consume` runs on a local miss,
 * before any worker, and resolves within its own bounded wait: what it returns
 * has already been re-validated on the local bytes and stored as locally
 * certified, so the next cache plan serves it like any certified evidence.
 * `publish` returns at once; publishing happens after the answer.
 */
export interface TeamLink {
  consume(need: CompiledNeed, signal: AbortSignal): Promise<readonly Digest[]>;
  publish(need: CompiledNeed, certificateIds: Iterable<Digest>): void;
  /** A need was answered with zero workers from evidence imported for it. */
  noteHit(): void;
}

/** Hits decided before the worktree watch knew the snapshot, kept to be decided again once it does. */
const REHEARSALS_MAX = 32;
/**
 * After a worker certified what a need asked, its repeat is decided from the
 * cache once the process has been quiet this long (off any request), so that
 * the first repeat is already a remembered hit.
 */
const REHEARSE_AFTER_WORKER_MS = 25;

/** Rendered views kept per engine (a few KiB each). */
const VIEW_MEMO_ENTRIES = 256;

/** Lazily computed, at most once per resolution pass. */
function memo<T>(f: () => T): () => T {
  let value: { v: T } | null = null;
  return () => (value ??= { v: f() }).v;
}

function servedDigests(units: readonly ServedUnit[]): Map<string, Digest> {
  const out = new Map<string, Digest>();
  for (const u of units) {
    const deps = u.unit === 'artifact' ? u.certificate.dependencies : u.claims.flatMap((c) => c.dependencies);
    for (const d of deps) out.set(d.path, d.digest);
  }
  return out;
}

function coveredInputs(plan: CachePlan): CoveredEvidence[] {
  return plan.units.map((u) => ({
    predicate: u.predicate,
    summary: stableStringify(u.unit === 'artifact' ? u.certificate.payload : u.claims.map((c) => c.payload)).slice(0, 2_048),
  }));
}

export function createEngine(deps: EngineDeps): Engine {
  const now = deps.now ?? Date.now;
  const freshness = new FreshnessChecker(deps.repoRoot);
  const authority = (p: Predicate): AuthorityMode => deps.profile.authority?.[p] ?? 'authoritative';

  // Hits are remembered by their inputs only where the snapshot is known without git.
  const hits = deps.worktree ? new HitMemo(deps.db, freshness, deps.worktree) : null;

  const contextFor = (issuedNow: ReadonlySet<string>): CacheContext => ({
    db: deps.db,
    freshness,
    snapshotDigest: memo(() => deps.worktree?.current() ?? captureSnapshot(deps.repoRoot).sourceDigest),
    ...(deps.worktree ? { worktree: deps.worktree } : {}),
    authority,
    issuedNow,
  });

  /**
   * Lines of a served file, only while its bytes are still the certified ones.
   * Each file is read and hashed once per view, however many locations cite it.
   */
  const excerptReader = (digests: ReadonlyMap<string, Digest>) => {
    const files = new Map<string, string[] | null>();
    const linesOf = (path: string): string[] | null => {
      const expected = digests.get(path);
      if (!expected) return null;
      try {
        const bytes = readFileSync(join(deps.repoRoot, path));
        return blake3(bytes) === expected ? splitLines(bytes.toString('utf8')) : null;
      } catch {
        return null;
      }
    };
    const read = (path: string, start: number, end: number) => {
      if (!files.has(path)) files.set(path, linesOf(path));
      return files.get(path)?.slice(start - 1, end) ?? null;
    };
    /** Whether some cited file no longer had its certified bytes (such a view is not remembered). */
    const missed = () => [...files.values()].some((l) => l === null);
    return { read, missed };
  };

  const views = new Map<string, { readonly context: string; readonly resultDigest: Digest }>();
  const remember = (key: string, view: { readonly context: string; readonly resultDigest: Digest; readonly reusable: boolean }) => {
    if (!view.reusable) return view;
    if (views.size >= VIEW_MEMO_ENTRIES) views.delete(views.keys().next().value!);
    views.set(key, view);
    return view;
  };

  function render(need: CompiledNeed, outcome: ReturnType<typeof decideOutcome>, kind: EngineResult['resolution']['kind']) {
    let context = '';
    const excerpts = excerptReader(servedDigests(outcome.served));
    if (!UNSAFE_KINDS.has(kind)) {
      context =
        outcome.served.length > 0
          ? renderFrontierView({
              route: need.route,
              subject: need.subject,
              resolution: kind,
              satisfied: outcome.satisfied,
              missing: outcome.missing,
              entries: viewEntries(outcome.served),
              residual: need.residual?.anchors ?? [],
              excerpt: excerpts.read,
              tokenBudget: deps.tokenBudget,
            }).text
          : `Needle bypassed this request: ${'reason' in outcome.resolution ? outcome.resolution.reason : kind}.`;
    }
    return {
      context,
      resultDigest: canonical('engine-result').text(stableStringify(outcome.resolution)).text(context).finish(),
      reusable: !excerpts.missed(),
    };
  }

  /** The engine's answer for a plan; `record` false decides without queuing bookkeeping rows (a rehearsal). */
  function finish(
    need: CompiledNeed,
    plan: CachePlan,
    issued: ReadonlySet<string>,
    ladder: LadderOutcome | null,
    opts: ResolveOptions,
    started: number,
    record = true,
  ): EngineResult {
    const sufficiency = sufficiencyFor(need, plan);
    const sufficiencyId = sufficiency?.id ?? null;
    const outcome = decideOutcome(need, plan, issued, { ladder, cacheOnly: opts.cacheOnly, sufficiencyId });
    const key = viewKey(need, outcome, deps.tokenBudget ?? null);
    const rendered = views.get(key) ?? remember(key, render(need, outcome, outcome.resolution.kind));
    const cacheHit = isCacheHit(outcome, ladder);
    const nowMs = now();
    // Bookkeeping, not certification: committed in the group commit after the
    // reply is written (store/bookkeeping.ts), never on the answer's path. A
    // remembered hit queues the same rows each time it is served again.
    const db = deps.db;
    const book = (nowMs: number, durationMs: number) =>
      deferWrite(db, () => {
        if (sufficiency) storeSufficiency(db, { ...sufficiency, kind: outcome.resolution.kind }, nowMs);
        const avoided = avoidedRuns(outcome, issued, ladder);
        recordResolution(
          db,
          resolutionRow(need, outcome, { repositoryRoot: deps.repoRoot, context: rendered.context, ladder, cacheHit, sufficiencyId, durationMs, avoided }),
          nowMs,
        );
      });
    if (record) book(nowMs, Math.max(0, nowMs - started));
    lastBook = book;
    return engineResult(outcome, rendered, ladder, cacheHit);
  }

  /** The bookkeeping of the result finish() returned last (read synchronously after it). */
  let lastBook: (nowMs: number, durationMs: number) => void = () => {};

  /** The free workers, when a missing preferred obligation has stale certified evidence; none otherwise. */
  function freeForStalePreferred(plan: CachePlan): readonly Worker[] {
    const missingPreferred = plan.obligations.filter((o, i) => ((plan.requiredMask >> i) & 1) === 0 && ((plan.coveredMask >> i) & 1) === 0);
    if (!missingPreferred.some((o) => plan.stalePredicates.includes(o.predicate))) return [];
    return deps.explorers.filter((w) => !w.countsAgainstLimit);
  }

  /** What a remembered answer is kept under: the request, and what the options change about its decision. */
  function memoKeyOf(need: CompiledNeed, opts: Pick<ResolveOptions, 'cacheOnly' | 'modelWorkersLeft'>): string {
    return `${need.requestDigest}:${need.id}:${opts.cacheOnly ? 1 : 0}:${opts.modelWorkersLeft > 0 ? 1 : 0}`;
  }

  async function resolve(need: CompiledNeed, opts: ResolveOptions): Promise<EngineResult> {
    // A watched worktree knows its snapshot without git, once the loop has
    // delivered every change made before this request (repo/worktree-watch.ts).
    if (deps.worktree) await new Promise((settle) => setImmediate(settle));
    const started = now();
    const memoKey = hits && memoKeyOf(need, opts);
    if (hits && memoKey) {
      const again = hits.reuse(memoKey, started, () => Math.max(0, now() - started));
      if (again) return again;
    }
    // Everything this decision reads is observed, so that a zero-worker hit can
    // be remembered with its inputs (resolve/hit-memo.ts).
    // The whole snapshot counts, not only the files cited: a new file may be the
    // candidate a certified negative outcome said did not exist.
    const generation = hits?.generation() ?? 0;
    const snapshot = hits?.snapshot() ?? null;
    const observed = freshness.observe();
    let teamAsked = false;
    const decided = (result: EngineResult): EngineResult => {
      observed.stop();
      if (hits && memoKey && !teamAsked && result.cacheHit && !result.workerSpawned) {
        if (snapshot !== null && sameSnapshot(snapshot, hits.snapshot())) hits.remember(memoKey, { generation, snapshot, files: observed.seen }, result, lastBook);
        else if (snapshot === null) rehearseLater(memoKey, need, opts);
      }
      return result;
    };
    try {
      const result = await resolveFrom(need, opts, started, contextFor(new Set<string>()), decided, () => (teamAsked = true));
      if (hits && memoKey && result.workerSpawned) rehearseSoon(memoKey, need, opts);
      return result;
    } finally {
      observed.stop();
    }
  }

  /** Decides `need` again from the cache alone shortly after a worker ran for it (see REHEARSE_AFTER_WORKER_MS). */
  function rehearseSoon(memoKey: string, need: CompiledNeed, opts: ResolveOptions): void {
    const quiet = offRequest(opts);
    setTimeout(() => {
      // A repeat that came first has already remembered its answer: it stays the one served.
      if (hits?.has(memoKey)) return;
      try {
        rehearse(memoKey, need, quiet);
      } catch {
        // Only an optimisation: the repeat is then decided when it comes.
      }
    }, REHEARSE_AFTER_WORKER_MS).unref();
  }

  // A server's first needs arrive before its worktree watch can vouch for the
  // worktree, so their hits cannot be remembered then. They are decided again
  // from the cache alone once the watch first knows the snapshot — off any
  // request, recording nothing and running nothing — so that the session's
  // first repeat is already a remembered hit.
  const rehearsals = new Map<string, { need: CompiledNeed; opts: ResolveOptions }>();
  const rehearsed: (() => void)[] = [];
  deps.worktree?.onKnown?.(() => {
    for (const [memoKey, r] of rehearsals) rehearse(memoKey, r.need, r.opts);
    rehearsals.clear();
    for (const l of rehearsed) l();
  });
  function rehearseLater(memoKey: string, need: CompiledNeed, opts: ResolveOptions): void {
    if (!deps.worktree?.onKnown || rehearsals.size >= REHEARSALS_MAX) return;
    rehearsals.set(memoKey, { need, opts: offRequest(opts) });
  }

  /** What a rehearsal keeps of a request's options: what changes the decision, not the request's signal or callbacks. */
  function offRequest(opts: ResolveOptions): ResolveOptions {
    return { cacheOnly: opts.cacheOnly, modelWorkersLeft: opts.modelWorkersLeft, signal: new AbortController().signal };
  }

  /** Decides `need` from the cache alone and remembers a zero-worker answer; no worker, no team, no bookkeeping. */
  function rehearse(memoKey: string, need: CompiledNeed, opts: ResolveOptions): void {
    const snapshot = hits?.snapshot() ?? null;
    if (!hits || snapshot === null) return;
    const generation = hits.generation();
    const observed = freshness.observe();
    try {
      const noIssued = new Set<string>();
      const ctx = contextFor(noIssued);
      const plan = planFromCache(ctx, need);
      const requiredDone = (plan.coveredMask & plan.requiredMask) === plan.requiredMask;
      if (plan.contradiction || (deps.team && !requiredDone)) return;
      const explorers = requiredDone ? freeForStalePreferred(plan) : deps.explorers;
      const reused = explorers.length === 0 ? null : reuseNegatives(ctx, need, plan, explorers, opts);
      if (explorers.length > 0 && !reused) return;
      const result = finish(need, plan, noIssued, reused, opts, now(), false);
      if (result.cacheHit && !result.workerSpawned && sameSnapshot(snapshot, hits.snapshot()))
        hits.remember(memoKey, { generation, snapshot, files: observed.seen }, result, lastBook);
    } finally {
      observed.stop();
    }
  }

  async function resolveFrom(
    need: CompiledNeed,
    opts: ResolveOptions,
    started: number,
    initial: CacheContext,
    decided: (result: EngineResult) => EngineResult,
    askingTeam: () => void,
  ): Promise<EngineResult> {
    const noIssued = new Set<string>();
    let plan = planFromCache(initial, need);
    const requiredDone = () => (plan.coveredMask & plan.requiredMask) === plan.requiredMask;
    if (plan.contradiction) return finish(need, plan, noIssued, null, opts, started);
    // A local miss: before any worker runs, evidence the team already certified,
    // re-validated here on the local bytes (src/team/revalidate.ts).
    if (deps.team && !requiredDone()) {
      askingTeam();
      const imported = new Set<string>(await deps.team.consume(need, opts.signal));
      if (imported.size > 0) {
        plan = planFromCache(contextFor(noIssued), need);
        if (plan.contradiction || requiredDone()) {
          const result = finish(need, plan, noIssued, null, opts, started);
          if (result.cacheHit && plan.units.some((u) => imported.has(u.certificate.certificateId))) deps.team.noteHit();
          return result;
        }
      }
    }
    // Required obligations alone start model workers. A preferred one whose
    // certified evidence went stale is recomputed by the free workers (the
    // static one) only: they cost nothing, and a stale facet left missing would
    // otherwise stay missing until a required one changes too.
    const explorers = requiredDone() ? freeForStalePreferred(plan) : deps.explorers;
    if (explorers.length === 0) return decided(finish(need, plan, noIssued, null, opts, started));
    // What the free workers already could not do on these bytes is not redone: when
    // certified negative outcomes stand in for every worker that would run, no worker runs.
    const reused = reuseNegatives(initial, need, plan, explorers, opts);
    if (reused) return decided(finish(need, plan, noIssued, reused, opts, started));
    if (opts.cacheOnly) return finish(need, plan, noIssued, null, opts, started);
    // Workers take a while: the caller's queued step rows are committed now, so
    // a crash while they run leaves the unfinished step visible.
    flushBookkeeping(deps.db);

    const flightKey = canonical('single-flight').text(deps.repoRoot).digest(need.id).finish();
    // A follower re-reads what the leader certified; if the leader produced
    // nothing usable, the follower takes its own turn (bounded by the ladder).
    for (let attempt = 0; attempt < 3; attempt++) {
      const flight = await singleFlight(deps.db, flightKey, now, opts.signal, async () => {
        opts.onStage?.('lead');
        const current = planFromCache(contextFor(noIssued), need);
        const missing = current.obligations.filter((_, i) => ((current.coveredMask >> i) & 1) === 0);
        const ladder = await runLadder({
          db: deps.db,
          root: deps.repoRoot,
          need,
          explorers,
          profile: deps.profile,
          opts,
          missing,
          covered: coveredInputs(current),
          now,
          snapshotDigest: memo(() => deps.worktree?.current() ?? captureSnapshot(deps.repoRoot).sourceDigest),
          snapshotNow: () => deps.worktree?.current() ?? worktreeSnapshot(deps.repoRoot, need),
          listingNow: () => deps.worktree?.listing?.() ?? null,
          cache: () => contextFor(noIssued),
          basis: basisOf(current),
        });
        return { ladder, after: planFromCache(contextFor(ladder.issued), need) };
      });
      if (flight.led) {
        const result = finish(need, flight.value.after, flight.value.ladder.issued, flight.value.ladder, opts, started);
        // Off the answer's path: the team cache client publishes after this returns.
        if (flight.value.ladder.issued.size > 0) deps.team?.publish(need, [...flight.value.ladder.issued] as Digest[]);
        return result;
      }
      const ctx = contextFor(noIssued);
      plan = planFromCache(ctx, need);
      if (plan.contradiction || (requiredDone() && freeForStalePreferred(plan).length === 0)) return finish(need, plan, noIssued, null, opts, started);
      const followed = reuseNegatives(ctx, need, plan, explorers, opts);
      if (followed) return finish(need, plan, noIssued, followed, opts, started);
    }
    return finish(need, plan, noIssued, null, opts, started);
  }

  return {
    resolve,
    remembered: (need, opts) => hits?.peek(memoKeyOf(need, opts)) ?? null,
    onRehearsed: (listener) => void rehearsed.push(listener),
  };
}
