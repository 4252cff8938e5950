// The embedded static worker (SPEC §7): deterministic, offline, no model.
// For each missing obligation it proposes evidence from the worktree at
// input.root; validators decide what, if anything, it proves.
import { abortError, checkpoint } from '../core/abort.js';
import { implementationLocationSchema, type Location, type Proposal } from '../core/contracts.js';
import type { Obligation } from '../core/need.js';
import type { Worker, WorkerInput, WorkerOutput } from '../core/worker.js';
import { AnalysisContext } from './context.js';
import type { FactIndex } from './fact-index.js';
import type { WorktreeTexts } from './worktree-texts.js';
import type { TreeCache } from './tree-cache.js';
import { findFocusedTests } from './tests/find.js';
import { subjectSpellings } from './flow/spellings.js';
import { traceFlow } from './flow/trace.js';
import { locateImplementation, type LocateResult } from './locate.js';
import { withBehaviourSite } from './behaviour.js';
import { loadLanguages } from './parse/treesitter.js';

/** The primary location already certified for this need, when the resolver handed it over. */
function coveredPrimary(input: WorkerInput): Location | null {
  const covered = input.covered.find((c) => c.predicate === 'implementation_location');
  if (!covered) return null;
  try {
    return implementationLocationSchema.parse(JSON.parse(covered.summary)).locations.find((l) => l.role === 'primary') ?? null;
  } catch {
    return null;
  }
}

/** Subjects whose value travels from a declaration to a behaviour site. */
const followsValue = (kind: string): boolean => kind === 'cli_option' || kind === 'configuration_key';

const has = (missing: readonly Obligation[], p: Obligation['predicate']): boolean => missing.some((o) => o.predicate === p);

/** What a server's analyzer thread keeps between runs; the output is the same without it, only later. */
export interface KeptBetweenRuns {
  readonly facts?: FactIndex | null;
  readonly texts?: WorktreeTexts | null;
  readonly trees?: TreeCache | null;
}

async function run(input: WorkerInput, kept: KeptBetweenRuns): Promise<WorkerOutput> {
  if (input.signal.aborted) throw abortError(input.signal, 'static worker aborted');
  await loadLanguages();
  const ctx = new AnalysisContext(input.root, { ...kept, snapshot: input.snapshot ?? null });
  const subject = { kind: input.need.subject.kind, name: input.need.subject.name };
  // One walk of the repository for the subject's spellings; the locate, trace
  // and test searches for them are answered from its lines.
  ctx.prefetch(subjectSpellings(subject)?.grepPatterns ?? []);
  const proposals: Proposal[] = [];
  const reasons: string[] = [];
  const output = (outcome: WorkerOutput['outcome']): WorkerOutput => ({
    outcome,
    proposals,
    observed: ctx.observed(),
    observationComplete: !ctx.truncated,
    usage: null,
  });
  try {
    const needsImpl = has(input.missing, 'implementation_location');
    const needsFlow = has(input.missing, 'runtime_flow');
    const needsTests = has(input.missing, 'focused_tests');
    // The declaration anchors the trace and the test search; a certified primary
    // may already be the behaviour site, so the declaration is located afresh.
    let declaration = null as Location | null;
    let located: LocateResult | null = null;
    if (needsImpl || followsValue(subject.kind) || !coveredPrimary(input)) {
      await checkpoint(input.signal, 'static worker aborted');
      input.onStage?.('locate');
      input.onProgress?.(`static: locating ${subject.kind} ${subject.name}`);
      located = locateImplementation(ctx, subject);
      if (located.kind === 'found') declaration = located.payload.locations.find((l) => l.role === 'primary') ?? null;
    } else declaration = coveredPrimary(input);
    if (located?.kind === 'ambiguous' && (needsImpl || needsFlow)) return output({ kind: 'ambiguous', candidates: located.candidates });
    // An option's tests are ranked by the behaviour site, which the trace finds, so tests need it too.
    const traced = (needsFlow || ((needsImpl || needsTests) && followsValue(subject.kind))) && Date.now() < input.deadline;
    let flow: ReturnType<typeof traceFlow> | null = null;
    if (traced) {
      await checkpoint(input.signal, 'static worker aborted');
      input.onStage?.('flow');
      input.onProgress?.('static: tracing runtime flow');
      flow = traceFlow(ctx, subject, declaration);
    }
    const site = located?.kind === 'found' && followsValue(subject.kind) && flow ? withBehaviourSite(ctx, subject.name, located.payload, flow?.kind === 'found' ? flow.payload : null, flow?.kind === 'found' ? flow.carriers : []) : null;
    if (needsImpl) {
      if (located?.kind === 'found') proposals.push({ predicate: 'implementation_location', payload: site?.payload ?? located.payload });
      else if (located?.kind === 'unresolved') reasons.push(`implementation_location: ${located.reason}`);
    }
    if (needsFlow && flow) {
      if (flow.kind === 'found') proposals.push({ predicate: 'runtime_flow', payload: flow.payload });
      else reasons.push(`runtime_flow: ${flow.reason}`);
    }
    const behaviour = site?.exercised ?? null;
    const carriers = flow?.kind === 'found' ? flow.carriers : [];
    if (needsTests && Date.now() < input.deadline) {
      await checkpoint(input.signal, 'static worker aborted');
      input.onStage?.('tests');
      input.onProgress?.('static: finding focused tests');
      const tests = findFocusedTests(ctx, subject, declaration, behaviour, carriers);
      if (tests.kind === 'found') proposals.push({ predicate: 'focused_tests', payload: tests.payload });
      else reasons.push(`focused_tests: ${tests.reason}`);
    }
    if (Date.now() >= input.deadline && proposals.length < input.missing.length) reasons.push('deadline reached before every obligation was attempted');
    // The last stage may have run while a cancel arrived: it wins over the answer.
    await checkpoint(input.signal, 'static worker aborted');
    return output(proposals.length > 0 ? { kind: 'proposed' } : { kind: 'unresolved', reason: reasons.join('; ') || 'nothing was missing' });
  } finally {
    // Freeing the trees takes a few ms (WASM memory, tree by tree); the output
    // does not wait for it.
    setImmediate(() => ctx.dispose());
  }
}

/**
 * `kept`: facts extracted, worktree text held and trees kept ahead of time
 * (the analyzer thread's); the output is the same with or without them, only sooner.
 */
export function createStaticWorker(kept: KeptBetweenRuns = {}): Worker {
  return { name: 'static', countsAgainstLimit: false, run: (input) => run(input, kept) };
}
