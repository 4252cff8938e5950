// The one Codex run lifecycle (issue "Code health" 5), used by the evidence
// worker and by the change roles alike: open a supervised session in a
// disposable checkout, let the caller drive its turns, then kill or close the
// app server, total the usage, price it and record the run with its attempts.
// Callers decide only what their turns mean.
import { randomBytes } from 'node:crypto';
import { WORKER } from '../../core/limits.js';
import { priceMicroUsd, type AttemptRecord, type PricingTable, type RunOutcome, type RunsStore } from '../runs-store.js';
import type { TurnResult } from './app-server.js';
import { CodexSessionError, openCodexSession, type CodexSession, type CodexSessionSpec } from './session.js';
import { clipUtf8 } from '../../core/text.js';

export interface Tokens {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

export interface CodexRunSpec extends CodexSessionSpec {
  readonly runs?: RunsStore;
  readonly pricing?: PricingTable;
  readonly needId: string | null;
  readonly route: string | null;
  /** Redacts text of the run (reasons) before it is recorded. */
  readonly redact?: (text: string) => string;
  /** Disposes the checkout and reports the cleanup for the run row; null when the caller disposes it later. */
  readonly dispose: (() => Promise<{ removed: boolean; error: string | null }> | { removed: boolean; error: string | null }) | null;
  /** Told what a run that throws consumed (null when no app server was started), before the error is rethrown. */
  readonly onFailure?: (error: unknown, tokens: Tokens | null, recordedRunId: number | null) => void;
  /** Set when the run cannot start at all (e.g. no executable): recorded as an unsupported session. */
  readonly unavailable?: string;
}

/** What the caller's turns came to. */
export interface DriveResult {
  readonly outcome: RunOutcome;
  readonly reason: string | null;
  readonly proposals: number;
}

export interface TurnSpec {
  readonly text: string;
  readonly outputSchema: Record<string, unknown>;
  readonly deadline: number;
}

export interface RunDriver {
  readonly session: CodexSession;
  /** Runs one turn on the session's thread in the checkout. */
  turn(spec: TurnSpec): Promise<TurnResult>;
  /** Records an attempt (a turn and whether its output was valid). */
  attempt(kind: AttemptRecord['kind'], turn: TurnResult, outputValid: boolean, error: string | null): void;
}

export interface CodexRunResult {
  readonly runId: string;
  /** The run's row in the one table of worker runs; null when no store was given. */
  readonly recordedRunId: number | null;
  /** Null when the caller's driver ran; the session's start failure otherwise. */
  readonly sessionError: CodexSessionError | null;
  readonly outcome: RunOutcome;
  readonly reason: string | null;
  readonly tokens: Tokens;
  readonly priceMicroUsd: number | null;
  readonly durationMs: number;
  /** Whether an app server was started (it then consumed tokens, perhaps). */
  readonly started: boolean;
}

const NO_TOKENS: Tokens = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };

/** How a session that did not start ends the run. */
function outcomeOfSession(e: CodexSessionError): RunOutcome {
  return e.code === 'timeout' ? 'timeout' : e.code === 'cancelled' ? 'cancelled' : e.code === 'unsupported' ? 'unsupported' : 'failed';
}

/**
 * Runs one supervised Codex thread. A session that cannot start comes back as
 * `sessionError` (recorded); an exception from `drive` is recorded as a failed
 * (or cancelled) run and rethrown. The app server is closed only when the last
 * turn completed and nothing threw; otherwise its process group is killed.
 */
export async function runCodexThread(spec: CodexRunSpec, drive: (d: RunDriver) => Promise<DriveResult>): Promise<CodexRunResult> {
  const started = Date.now();
  const runId = `run_${randomBytes(12).toString('hex')}`;
  const attempts: AttemptRecord[] = [];
  let session: CodexSession | null = null;
  let lastTurn: TurnResult | null = null;
  let sessionError: CodexSessionError | null = null;
  let result: DriveResult = { outcome: 'failed', reason: null, proposals: 0 };
  let failure: unknown = null;
  try {
    try {
      if (spec.unavailable !== undefined) throw new CodexSessionError('unsupported', spec.unavailable);
      session = await openCodexSession(spec);
    } catch (e) {
      if (!(e instanceof CodexSessionError)) throw e;
      sessionError = e;
      result = { outcome: outcomeOfSession(e), reason: e.message, proposals: 0 };
    }
    if (session) {
      const live = session;
      result = await drive({
        session: live,
        turn: async (t) =>
          (lastTurn = await live.server.runTurn({ threadId: live.threadId, text: t.text, cwd: spec.checkout.dir, outputSchema: t.outputSchema, deadline: t.deadline, signal: spec.signal })),
        attempt: (kind, turn, outputValid, error) =>
          attempts.push({
            kind,
            status: turn.status,
            outputValid,
            error,
            approvalsAccepted: turn.approvals.filter((a) => a.verdict.decision === 'accept').length,
            approvalsDeclined: turn.approvals.filter((a) => a.verdict.decision === 'decline').length,
          }),
      });
    }
  } catch (e) {
    failure = e;
    result = { outcome: spec.signal.aborted ? 'cancelled' : 'failed', reason: (e as Error).message, proposals: 0 };
  }
  if (session) {
    if (failure === null && (lastTurn as TurnResult | null)?.status === 'completed') await session.server.close();
    else await session.server.kill();
  }
  const cleanup = spec.dispose ? await spec.dispose() : null;
  const tokens = session?.server.usage.total() ?? NO_TOKENS;
  const price = priceMicroUsd(spec.pricing, spec.config.model, tokens);
  const durationMs = Date.now() - started;
  const redact = spec.redact ?? ((t: string) => t);
  const recordedRunId = spec.runs?.record({
    runId,
    worker: 'codex',
    model: spec.config.model,
    needId: spec.needId,
    route: spec.route,
    startedUnixMs: started,
    durationMs,
    ...tokens,
    priceMicroUsd: price,
    outcome: result.outcome,
    reason: result.reason === null ? null : clipUtf8(redact(result.reason), WORKER.maxDiagnosticBytes),
    proposals: result.proposals,
    sandboxed: spec.sandbox.active,
    runDir: spec.checkout.runDir,
    cleanupRemoved: cleanup?.removed ?? null,
    cleanupError: cleanup?.error ?? null,
    attempts: attempts.map((a) => (a.error === null ? a : { ...a, error: redact(a.error) })),
  }) ?? null;
  if (failure !== null) {
    spec.onFailure?.(failure, session ? tokens : null, recordedRunId);
    throw failure;
  }
  return { runId, recordedRunId, sessionError, outcome: result.outcome, reason: result.reason, tokens, priceMicroUsd: price, durationMs, started: session !== null };
}
