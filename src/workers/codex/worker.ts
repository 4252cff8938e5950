// The Codex evidence worker (SPEC §7): for the obligations the static worker
// left missing, one supervised `codex app-server` run in a disposable checkout
// of the snapshot, a turn with the closed output contract of only those
// predicates, at most one repair turn, and accounting of the run.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { focusedTestsSchema, type Proposal } from '../../core/contracts.js';
import { WORKER } from '../../core/limits.js';
import type { ObservedFile, Usage, Worker, WorkerInput, WorkerOutput } from '../../core/worker.js';
import { createCheckout, disposeCheckout } from '../../repo/checkout.js';
import { workerEnv } from '../env.js';
import { redactDeep, redactText, secretNames, secretsOf } from '../redact.js';
import type { AttemptRecord, PricingTable, RunOutcome, RunsStore } from '../runs-store.js';
import type { SandboxInfo } from '../sandbox.js';
import type { TurnResult } from './app-server.js';
import { detectCodex } from './detect.js';
import type { CodexExplorer } from './launch.js';
import { outputContract, parseOutput } from './output-contract.js';
import { DEVELOPER_INSTRUCTIONS, repairPrompt, turnPrompt } from './prompt.js';
import { runCodexThread } from './run.js';

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

  const deadline = Math.min(input.deadline, Date.now() + (cfg.explorer.timeout_ms ?? WORKER.defaultTimeoutMs));
  const checkout = await createCheckout(input.root, cfg.runsRoot, 'worker');
  // The provider key's value is cut out of everything the model hands back, before validation.
  const secrets = secretsOf(cfg.parentEnv ?? process.env, secretNames(cfg.explorer));
  const policy = { root: checkout.dir, certifiedTests: certifiedTests(input) };
  let proposals: Proposal[] = [];
  let outcome: RunOutcome = 'failed';
  const contract = outputContract(input.missing.map((o) => o.predicate));
  const run = await runCodexThread(
    {
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
      ...(cfg.runs ? { runs: cfg.runs } : {}),
      ...(cfg.pricing ? { pricing: cfg.pricing } : {}),
      needId: input.need.id,
      route: input.need.route,
      redact: (t) => redactText(t, secrets),
      dispose: () => disposeCheckout(checkout),
      // The error is still on its way to the caller: it carries the spend so the ladder can account for it too.
      onFailure: (e, tokens, recordedRunId) => {
        if (tokens && e instanceof CodexWorkerError) e.usage = { model, ...tokens, ...(recordedRunId === null ? {} : { recordedRunId }) };
        progress(`codex ${binary.version} run failed`);
      },
    },
    async (d) => {
      const prompt = turnPrompt({ subject: input.need.subject, missing: input.missing, covered: input.covered, certifiedTests: policy.certifiedTests });
      let kind: AttemptRecord['kind'] = 'initial';
      let result = await d.turn({ text: prompt, outputSchema: contract.json, deadline });
      let reason: string | null = null;
      for (;;) {
        if (result.status !== 'completed') {
          d.attempt(kind, result, false, result.error);
          outcome = TURN_OUTCOME[result.status] ?? 'failed';
          reason = `codex turn ${result.status}: ${result.error ?? 'no detail'}`;
          break;
        }
        const parsed = parseOutput(contract, result.finalText === null ? null : redactText(result.finalText, secrets));
        d.attempt(kind, result, parsed.ok, parsed.ok ? null : redactText(parsed.error, secrets));
        if (parsed.ok) {
          proposals = redactDeep(parsed.proposals, secrets);
          outcome = proposals.length ? 'proposed' : 'unresolved';
          reason = proposals.length ? null : 'the model could not establish any missing obligation';
          break;
        }
        outcome = 'invalid';
        reason = `output violates the contract: ${parsed.error}`;
        if (kind === 'repair') break;
        if (deadline - Date.now() < WORKER.minRepairMs) {
          reason += ' (no time left for a repair turn)';
          break;
        }
        progress('repairing invalid model output');
        kind = 'repair';
        result = await d.turn({ text: repairPrompt(parsed.error), outputSchema: contract.json, deadline });
      }
      if (outcome === 'cancelled') throw new CodexWorkerError('cancelled', 'worker cancelled while resolving a need');
      return { outcome, reason, proposals: proposals.length };
    },
  );
  progress(`codex ${binary.version} run ${run.outcome}`);
  if (run.sessionError) {
    if (run.sessionError.code !== 'timeout') throw new CodexWorkerError(run.sessionError.code, run.sessionError.message);
  }
  const observed: ObservedFile[] = citedPaths(proposals).flatMap((path) => {
    const digest = checkout.manifest.get(path);
    return digest ? [{ path, digest }] : [];
  });
  return {
    outcome: run.outcome === 'proposed' ? { kind: 'proposed' } : { kind: 'unresolved', reason: redactText(run.sessionError ? 'codex app server did not start before the deadline' : (run.reason ?? run.outcome), secrets) },
    proposals,
    observed,
    // The model's reads are not traced file by file; validators re-read the snapshot.
    observationComplete: false,
    // The run is already a row of the one run table (with its turns); the ladder refers to it instead of writing another.
    usage: { model, ...run.tokens, ...(run.recordedRunId === null ? {} : { recordedRunId: run.recordedRunId }) },
  };
}
