// Changes: every prepared change with its state; one change's per-file diff,
// acceptance coverage, verifier findings and test results; and Apply, which
// shows the change digest, asks for confirmation and then goes through
// exactly the CLI's path (`applyChange`: If-Match digest, journal, rollback).
import { applyChange } from '../../changes/apply.js';
import { fileDiff } from '../../changes/diff-text.js';
import { parseChangeId } from '../../changes/identity.js';
import { ChangeError, type CoverageItem, type TestPlanResult } from '../../changes/model.js';
import { currentChangeDigest, latestVerification, listChanges, listEvents, loadChange, loadPatch, testRunOutputs, type TestRunOutput } from '../../changes/store.js';
import { ActionError, type Page, type UiContext } from '../context.js';
import { diffHtml } from '../diff.js';
import { badge, html, num, table, time, type Html } from '../html.js';

const LIST_LIMIT = 200;

const stateTone = (s: string) => (s === 'verified' || s === 'applied' ? 'ok' : s === 'failed' || s === 'rejected' ? 'bad' : 'warn');

export interface ChangesData {
  readonly rows: { changeId: string; state: string; revision: number; createdUnixMs: number; repository: string; task: string }[];
}

export const changesPage: Page<ChangesData> = {
  title: () => 'Changes',
  data(ctx) {
    return {
      rows: listChanges(ctx.db, null, LIST_LIMIT).map((c) => ({ changeId: c.changeId, state: c.state, revision: c.latestRevision, createdUnixMs: c.createdMs, repository: c.repositoryRoot, task: c.request.task })),
    };
  },
  view(d) {
    return table(
      'Prepared changes, newest first',
      ['change', 'state', 'revision', 'created', 'repository', 'task'],
      d.rows.map((r) => [html`<a class="mono" href="/changes/${r.changeId}">${r.changeId}</a>`, badge(r.state, stateTone(r.state)), `r${r.revision}`, time(r.createdUnixMs), html`<span class="mono">${r.repository}</span>`, r.task.split('\n', 1)[0]!.slice(0, 120)]),
      'no changes prepared yet',
    );
  },
};

export interface ChangeData {
  readonly changeId: string;
  readonly state: string;
  readonly revision: number;
  readonly repairAttempted: boolean;
  readonly repository: string;
  readonly changeDigest: string;
  readonly task: string;
  readonly criteria: string[];
  readonly failure: { rule: string; message: string | null } | null;
  readonly patch: { patchId: string; summary: string; coverage: CoverageItem[]; residualRisks: string[]; discrepancies: string[]; files: { path: string; operation: string; diff: string }[] } | null;
  readonly verification: { verdict: string; coverage: CoverageItem[]; findings: string[]; tests: (TestPlanResult & { run: TestRunOutput | null })[] } | null;
  readonly events: { type: string; createdUnixMs: number }[];
  readonly applicable: boolean;
  readonly refusal: string | null;
}

function refusal(state: string, failure: ChangeData['failure']): string | null {
  switch (state) {
    case 'verified':
      return null;
    case 'applied':
      return 'This change is already applied.';
    case 'failed':
      return `This change failed${failure ? ` (${failure.rule}${failure.message ? `: ${failure.message}` : ''})` : ''}; only a verified change can be applied.`;
    default:
      return `This change is ${state}; only a change whose latest revision passed verification can be applied (run verify_change).`;
  }
}

function coverageTable(caption: string, items: readonly CoverageItem[]): Html {
  return table(caption, ['criterion', 'status', 'evidence'], items.map((c) => [c.criterion, badge(c.status, c.status === 'addressed' ? 'ok' : c.status === 'partial' ? 'warn' : 'bad'), c.evidence]), 'no coverage reported');
}

export const changePage: Page<ChangeData> = {
  title: (d) => `Change ${d.changeId}`,
  data(ctx, _params, id) {
    const changeId = id === null ? null : parseChangeId(id);
    if (changeId === null) return null;
    const c = loadChange(ctx.db, changeId);
    if (!c) return null;
    const patch = c.latestRevision > 0 ? loadPatch(ctx.db, c.changeId, c.latestRevision) : null;
    const v = c.latestRevision > 0 ? latestVerification(ctx.db, c.changeId, c.latestRevision) : null;
    const failure = c.failureRule ? { rule: c.failureRule, message: c.failureMessage } : null;
    const why = refusal(c.state, failure);
    return {
      changeId: c.changeId,
      state: c.state,
      revision: c.latestRevision,
      repairAttempted: c.repairAttempted,
      repository: c.repositoryRoot,
      changeDigest: currentChangeDigest(ctx.db, c),
      task: c.request.task,
      criteria: [...c.request.acceptance_criteria],
      failure,
      patch: patch && {
        patchId: patch.patchId,
        summary: patch.summary,
        coverage: patch.coverage,
        residualRisks: patch.residualRisks,
        discrepancies: patch.discrepancies,
        files: patch.files.map((f) => ({ path: f.path, operation: f.operation, diff: fileDiff(f) })),
      },
      verification: v && { verdict: v.verdict, coverage: v.body.acceptance_coverage, findings: v.body.findings, tests: withRuns(ctx, c.changeId, c.latestRevision, v.body.test_plan_results) },
      events: listEvents(ctx.db, c.changeId).map((e) => ({ type: e.type, createdUnixMs: e.createdMs })),
      applicable: why === null,
      refusal: why,
    };
  },
  view(d, params) {
    const confirming = d.applicable && params.get('confirm') === 'apply';
    const apply = d.applicable
      ? confirming
        ? html`<div class="confirm" role="group" aria-labelledby="apply-title"><h2 id="apply-title">Apply this change?</h2>
<p>Writes ${d.patch?.files.length ?? 0} file(s) into <span class="mono">${d.repository}</span> through a journal (rolled back on failure). Nothing is staged or committed. It is refused if the worktree moved since the change was prepared.</p>
<dl class="kv"><dt>change digest</dt><dd class="mono" id="digest">${d.changeDigest}</dd></dl>
<form data-action="/api/changes/${d.changeId}/apply" method="post"><input type="hidden" name="if_match" value="${d.changeDigest}"><button class="primary" type="submit">Apply now</button> <a href="/changes/${d.changeId}">Cancel</a></form><p id="result" tabindex="-1" role="alert"></p></div>`
        : html`<p><a href="/changes/${d.changeId}?confirm=apply" class="button">Apply…</a> (digest <span class="mono">${d.changeDigest}</span>)</p>`
      : html`<p class="refused" id="refusal">${d.refusal}</p>`;
    return html`<dl class="kv"><dt>state</dt><dd>${badge(d.state, stateTone(d.state))} revision ${d.revision}${d.repairAttempted ? ', repair used' : ''}</dd>
<dt>repository</dt><dd class="mono">${d.repository}</dd><dt>change digest</dt><dd class="mono">${d.changeDigest}</dd>
<dt>task</dt><dd>${d.task}</dd></dl>
${apply}
<h2>Acceptance criteria</h2><ul>${d.criteria.map((c) => html`<li>${c}</li>`)}</ul>
${
  d.patch
    ? html`<h2>Patch</h2><p>${d.patch.summary}</p>${d.patch.discrepancies.length ? html`<p>Discrepancies: ${d.patch.discrepancies.join('; ')}</p>` : ''}${d.patch.residualRisks.length ? html`<p>Residual risks: ${d.patch.residualRisks.join('; ')}</p>` : ''}
${d.patch.files.map((f) => html`<h3>${f.operation} <span class="mono">${f.path}</span></h3>${diffHtml(f.diff)}`)}
<h2>Implementer's coverage</h2>${coverageTable("Acceptance coverage reported by the implementer", d.patch.coverage)}`
    : html`<p class="empty">no patch yet</p>`
}
${
  d.verification
    ? html`<h2>Verification: ${badge(d.verification.verdict, d.verification.verdict === 'verified' ? 'ok' : 'bad')}</h2>${coverageTable('Acceptance coverage found by the verifier', d.verification.coverage)}
<h3>Findings</h3>${d.verification.findings.length ? html`<ul>${d.verification.findings.map((f) => html`<li>${f}</li>`)}</ul>` : html`<p class="empty">no findings</p>`}
<h3>Tests</h3>${testsBlock(d.verification.tests)}`
    : html`<p class="empty">not verified yet</p>`
}
${failureBlock(d)}
<h2>History</h2>${table('Change events', ['when', 'event'], d.events.map((e) => [time(e.createdUnixMs), e.type]), 'no events')}`;
  },
};

function withRuns(ctx: UiContext, changeId: string, revision: number, tests: readonly TestPlanResult[]): (TestPlanResult & { run: TestRunOutput | null })[] {
  const runs = testRunOutputs(ctx.db, changeId, revision);
  return tests.map((t) => ({ ...t, run: (t.evidence_id && runs.get(t.evidence_id)) || null }));
}

const testResult = (t: TestPlanResult) => (t.passed ? 'passed' : t.executed ? 'failed' : 'not run');

/** Which certified tests ran on the patched checkout, their verdicts, and each run's output (failures open). */
function testsBlock(tests: readonly (TestPlanResult & { run: TestRunOutput | null })[]): Html {
  return html`${table(
    'Certified test plans run on the patched checkout',
    ['result', 'test', 'command', 'exit', 'duration', 'reason'],
    tests.map((t) => [
      badge(testResult(t), t.passed ? 'ok' : 'bad'),
      html`<span class="mono">${t.test_identifier}</span>`,
      html`<code>${t.argv.join(' ')}</code>${t.cwd_relative === '.' ? '' : html` in <span class="mono">${t.cwd_relative}</span>`}`,
      t.run ? (t.run.exitCode === null ? 'none' : String(t.run.exitCode)) : '—',
      t.run ? `${num(t.run.durationMs)} ms` : '—',
      t.failure_reason ?? '',
    ]),
    'no certified test plans ran',
  )}${tests.map((t) =>
    t.run
      ? html`<details class="test-output"${t.passed ? '' : html` open`}><summary>Output of <span class="mono">${t.test_identifier}</span> (${testResult(t)})</summary><pre aria-label="Output of ${t.test_identifier}">${t.run.excerpt || '(no output)'}</pre></details>`
      : '',
  )}`;
}

const failureBlock = (d: ChangeData): Html | string => (d.failure ? html`<h2>Failure</h2><p>${d.failure.rule}: ${d.failure.message ?? ''}</p>` : '');

/** POST /api/changes/:id/apply with {if_match}: the CLI's apply, onto the repository the change was prepared in. */
export function applyAction(ctx: UiContext, id: string, body: Record<string, unknown>): { message: string; next: string; result: unknown } {
  const changeId = parseChangeId(id);
  if (changeId === null) throw new ActionError(404, 'no such change');
  const change = loadChange(ctx.db, changeId);
  if (!change) throw new ActionError(404, 'no such change');
  if (typeof body.if_match !== 'string' || body.if_match === '') throw new ActionError(400, 'apply needs if_match: the change digest shown on the page', 'invalid_request');
  try {
    const r = applyChange(ctx.db, change.repositoryRoot, changeId, body.if_match);
    return { message: `applied ${r.change_id} (revision ${r.revision}): ${r.files.map((f) => `${f.operation} ${f.path}`).join(', ')}`, next: `/changes/${changeId}`, result: r };
  } catch (e) {
    if (e instanceof ChangeError) throw new ActionError(409, e.message, e.rule);
    throw e;
  }
}
