// The Codex evidence worker (SPEC §7): for the obligations the static worker
// left missing, one supervised `codex app-server` run in a disposable checkout
// of the snapshot, a turn with the closed output contract of only those
// predicates, at most one repair turn, and accounting of the run.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { focusedTestsSchema, type Proposal } from '../../core/contracts.js';
import { WORKER } from '../../core/limits.js';
import type { ObservedFile, Usage, Worker, WorkerInput, WorkerOutput } from '../../core/worker.js';
import { createCheckout, disposeCheckout } from '../../repo/checkout.js';
import { workerEnv } from '../env.js';
import { redactDeep, redactText, secretNames, secretsOf } from '../redact.js';
import { priceMicroUsd, type AttemptRecord, type PricingTable, type RunOutcome, type RunsStore } from '../runs-store.js';
import type { SandboxInfo } from '../sandbox.js';
import { AppServer, type TurnResult } from './app-server.js';
import { detectCodex } from './detect.js';
import type { CodexExplorer } from './launch.js';
import { outputContract, parseOutput } from './output-contract.js';
import { DEVELOPER_INSTRUCTIONS, repairPrompt, turnPrompt } from './prompt.js';
import { CodexSessionError, openCodexSession } from './session.js';

export interface CodexWorkerConfig {
  /** The role profile's explorer entry. */
  readonly explorer: CodexExplorer;
  /** Where disposable checkouts (run directories) are created. */
  readonly runsRoot: string;
  readonly sandbox: SandboxInfo;
  /** The profile refuses to run model workers without bubblewrap isolation. */
  readonly requireSandbox?: boolean;
  readonly pricing?: PricingTable;
  /** Accounting; every run is recorded when given. */
  readonly runs?: RunsStore;
  readonly clientVersion?: string;
  /** Extra read-only paths the sandboxed app server needs (e.g. what a wrapper script at codex_path execs). */
  readonly readablePaths?: readonly string[];
  /** Environment the provider's API key is read from when a run starts (default process.env); never stored. */
  readonly parentEnv?: NodeJS.ProcessEnv;
}

export type CodexWorkerErrorCode = 'unsupported' | 'start_failed' | 'cancelled';

/** Infrastructure failures and cancellation; a bad turn is an `unresolved` outcome instead. */
export class CodexWorkerError extends Error {
  /** What the run consumed before it ended this way; null when no app server was started. */
  usage: Usage | null = null;

  constructor(
    readonly code: CodexWorkerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CodexWorkerError';
  }
}

/** node_modules/.bin/codex of the Needle installation (src/ and dist/src/ both resolve it). */
export function bundledCodexPath(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'node_modules', '.bin', 'codex');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return null;
}

/** Test commands certified earlier in the ladder: the only commands the model may run. */
function certifiedTests(input: WorkerInput): string[][] {
  const out: string[][] = [];
  for (const c of input.covered) {
    if (c.predicate !== 'focused_tests') continue;
    try {
      out.push(focusedTestsSchema.parse(JSON.parse(c.summary)).argv);
    } catch {
      // A summary that is not a full plan certifies no command.
    }
  }
  return out;
}

function citedPaths(proposals: readonly Proposal[]): string[] {
  const paths = new Set<string>();
  for (const p of proposals) {
    if (p.predicate === 'implementation_location') p.payload.locations.forEach((l) => paths.add(l.path));
    else if (p.predicate === 'runtime_flow') p.payload.steps.forEach((s) => paths.add(s.location.path));
    else {
      paths.add(p.payload.location.path);
      p.payload.evidence_paths.forEach((e) => paths.add(e));
    }
  }
  return [...paths].sort();
}

export function createCodexWorker(cfg: CodexWorkerConfig): Worker {
  const exe = cfg.explorer.codex_path ?? bundledCodexPath();
  return {
    name: 'codex',
    countsAgainstLimit: true,
    run: (input) => runCodex(cfg, exe, input),
  };
}

interface RunState {
  outcome: RunOutcome;
  reason: string | null;
  proposals: Proposal[];
  attempts: AttemptRecord[];
}

function attemptOf(kind: AttemptRecord['kind'], turn: TurnResult, outputValid: boolean, error: string | null): AttemptRecord {
  return {
    kind,
    status: turn.status,
    outputValid,
    error,
    approvalsAccepted: turn.approvals.filter((a) => a.verdict.decision === 'accept').length,
    approvalsDeclined: turn.approvals.filter((a) => a.verdict.decision === 'decline').length,
  };
}

const TURN_OUTCOME: Partial<Record<TurnResult['status'], RunOutcome>> = { timeout: 'timeout', cancelled: 'cancelled', crashed: 'failed', failed: 'failed', interrupted: 'failed' };

async function runCodex(cfg: CodexWorkerConfig, exe: string | null, input: WorkerInput): Promise<WorkerOutput> {
  const progress = (m: string) => input.onProgress?.(m);
  const model = cfg.explorer.model;
  if (!exe) throw new CodexWorkerError('unsupported', 'no codex executable: set codex_path in the role profile or install @openai/codex');
  if (cfg.requireSandbox && !cfg.sandbox.active)
    throw new CodexWorkerError('unsupported', `the role profile requires sandboxing but it is not active: ${cfg.sandbox.reason}`);
  if (input.missing.length === 0) return { outcome: { kind: 'unresolved', reason: 'nothing is missing' }, proposals: [], observed: [], observationComplete: true, usage: null };
  if (input.signal.aborted) throw new CodexWorkerError('cancelled', 'worker cancelled before it started');

  mkdirSync(cfg.runsRoot, { recursive: true });
  const probeEnv = workerEnv({ home: cfg.runsRoot, tmp: cfg.runsRoot });
  let binary;
  try {
    binary = await detectCodex(exe, probeEnv, cfg.runsRoot);
  } catch (e) {
    throw new CodexWorkerError('unsupported', (e as Error).message);
  }

  const started = Date.now();
  const deadline = Math.min(input.deadline, started + (cfg.explorer.timeout_ms ?? WORKER.defaultTimeoutMs));
  const runId = `run_${randomBytes(12).toString('hex')}`;
  const checkout = await createCheckout(input.root, cfg.runsRoot, 'worker');
  const state: RunState = { outcome: 'failed', reason: null, proposals: [], attempts: [] };
  // The provider key's value is cut out of everything the model hands back, before validation.
  const secrets = secretsOf(cfg.parentEnv ?? process.env, secretNames(cfg.explorer));
  let server: AppServer | null = null;
  let failure: unknown = null;
  try {
    const policy = { root: checkout.dir, certifiedTests: certifiedTests(input) };
    let session;
    try {
      session = await openCodexSession({
        config: cfg.explorer,
        exe,
        checkout,
        mode: 'read-only',
        sandbox: cfg.sandbox,
        policy,
        developerInstructions: DEVELOPER_INSTRUCTIONS,
        deadline,
        signal: input.signal,
        parentEnv: cfg.parentEnv ?? process.env,
        clientVersion: cfg.clientVersion ?? '0.1.0',
        onProgress: progress,
        binary,
        ...(cfg.readablePaths ? { readablePaths: cfg.readablePaths } : {}),
      });
    } catch (e) {
      if (!(e instanceof CodexSessionError)) throw e;
      if (e.code === 'timeout') {
        state.outcome = 'timeout';
        state.reason = 'codex app server did not start before the deadline';
        return finish();
      }
      throw new CodexWorkerError(e.code, e.message);
    }
    server = session.server;
    const { threadId } = session;
    const live = session.server;

    const contract = outputContract(input.missing.map((o) => o.predicate));
    const turn = (kind: AttemptRecord['kind'], text: string, turnDeadline: number) =>
      live.runTurn({ threadId, text, cwd: checkout.dir, outputSchema: contract.json, deadline: turnDeadline, signal: input.signal });
    const prompt = turnPrompt({ subject: input.need.subject, missing: input.missing, covered: input.covered, certifiedTests: policy.certifiedTests });
    let result = await turn('initial', prompt, deadline);
    let kind: AttemptRecord['kind'] = 'initial';
    for (;;) {
      if (result.status !== 'completed') {
        state.attempts.push(attemptOf(kind, result, false, result.error));
        state.outcome = TURN_OUTCOME[result.status] ?? 'failed';
        state.reason = `codex turn ${result.status}: ${result.error ?? 'no detail'}`;
        break;
      }
      const parsed = parseOutput(contract, result.finalText === null ? null : redactText(result.finalText, secrets));
      state.attempts.push(attemptOf(kind, result, parsed.ok, parsed.ok ? null : redactText(parsed.error, secrets)));
      if (parsed.ok) {
        state.proposals = redactDeep(parsed.proposals, secrets);
        state.outcome = parsed.proposals.length ? 'proposed' : 'unresolved';
        state.reason = parsed.proposals.length ? null : 'the model could not establish any missing obligation';
        break;
      }
      state.outcome = 'invalid';
      state.reason = `output violates the contract: ${parsed.error}`;
      if (kind === 'repair') break;
      if (deadline - Date.now() < WORKER.minRepairMs) {
        state.reason += ' (no time left for a repair turn)';
        break;
      }
      progress('repairing invalid model output');
      kind = 'repair';
      result = await turn('repair', repairPrompt(parsed.error), deadline);
    }
    if (state.outcome === 'cancelled') throw new CodexWorkerError('cancelled', 'worker cancelled while resolving a need');
    return finish();
  } catch (e) {
    failure = e;
    if (e instanceof CodexWorkerError && e.code === 'cancelled') state.outcome = 'cancelled';
    state.reason ??= (e as Error).message;
    throw e;
  } finally {
    if (server) {
      if (failure || state.outcome === 'timeout' || state.outcome === 'cancelled') await server.kill();
      else await server.close();
    }
    const cleanup = await disposeCheckout(checkout);
    const usage = server?.usage.total() ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    // The error is still on its way to the caller: it carries the spend so the ladder can account for it too.
    if (server && failure instanceof CodexWorkerError) failure.usage = { model, ...usage };
    cfg.runs?.record({
      runId,
      worker: 'codex',
      model,
      needId: input.need.id,
      route: input.need.route,
      startedUnixMs: started,
      durationMs: Date.now() - started,
      ...usage,
      priceMicroUsd: priceMicroUsd(cfg.pricing, model, usage),
      outcome: state.outcome,
      reason: state.reason === null ? null : redactText(state.reason, secrets).slice(0, WORKER.maxDiagnosticBytes),
      proposals: state.proposals.length,
      sandboxed: cfg.sandbox.active,
      runDir: checkout.runDir,
      cleanupRemoved: cleanup.removed,
      cleanupError: cleanup.error,
      attempts: state.attempts,
    });
    if (binary) progress(`codex ${binary.version} run ${state.outcome}`);
  }

  function finish(): WorkerOutput {
    const usage = server?.usage.total() ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    const observed: ObservedFile[] = citedPaths(state.proposals).flatMap((path) => {
      const digest = checkout.manifest.get(path);
      return digest ? [{ path, digest }] : [];
    });
    return {
      outcome: state.outcome === 'proposed' ? { kind: 'proposed' } : { kind: 'unresolved', reason: redactText(state.reason ?? state.outcome, secrets) },
      proposals: state.proposals,
      observed,
      // The model's reads are not traced file by file; validators re-read the snapshot.
      observationComplete: false,
      usage: { model, ...usage },
    };
  }
}
