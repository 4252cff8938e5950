// Needs: resolutions newest first (filter by repository, route, resolution
// kind; keyset pages of 50), and one resolution with what was asked, what
// was served (its sufficiency certificate's units), why anything is missing,
// and the worker runs it caused or reused.
import { getSufficiency, rejectionsForNeed } from '../../store/evidence/accounting.js';
import { getCertificate } from '../../store/evidence/certificates.js';
import {
  avoidedRunsOf,
  getResolution,
  pageResolutions,
  resolutionFacets,
  runsForNeed,
  stepsForNeed,
  type Facets,
  type ResolutionDetail,
  type RunRow,
  type StepSummary,
} from '../../store/evidence/reports.js';
import type { Page } from '../context.js';
import { badge, html, num, short, table, time, usd, type Html } from '../html.js';

export const PAGE_SIZE = 50;

export interface NeedsData {
  readonly filter: { route: string | null; kind: string | null; repository: string | null; before: number | null };
  readonly facets: Facets;
  readonly rows: ResolutionDetail[];
  readonly next: number | null;
}

const kindTone = (kind: string) => (/hit/.test(kind) ? 'ok' : /miss|partial/.test(kind) ? 'info' : 'warn');

export function runsTable(caption: string, runs: readonly RunRow[], empty: string): Html {
  return table(
    caption,
    ['run', 'when', 'worker', 'model', 'outcome', 'tokens in / cached / out', 'cost', 'duration'],
    runs.map((r) => [String(r.id), time(r.createdUnixMs), r.worker, r.model ?? '—', r.outcome, `${num(r.inputTokens)} / ${num(r.cachedInputTokens)} / ${num(r.outputTokens)}`, usd(r.costUsd), `${num(r.durationMs)} ms`]),
    empty,
  );
}

function option(value: string, selected: string | null, label = value): Html {
  return html`<option value="${value}"${selected === value ? html` selected` : ''}>${label}</option>`;
}

export const needsPage: Page<NeedsData> = {
  title: () => 'Needs',
  data(ctx, params) {
    const pick = (k: string) => params.get(k) || null;
    const beforeText = pick('before');
    const before = beforeText !== null && /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : null;
    const filter = { route: pick('route'), kind: pick('kind'), repository: pick('repository'), before };
    const page = pageResolutions(ctx.db, {
      ...(filter.route ? { route: filter.route } : {}),
      ...(filter.kind ? { kind: filter.kind } : {}),
      ...(filter.repository ? { repository: filter.repository } : {}),
      ...(before !== null ? { before } : {}),
      limit: PAGE_SIZE,
    });
    return { filter, facets: resolutionFacets(ctx.db), rows: page.rows, next: page.next };
  },
  view(d) {
    const f = d.filter;
    const nextHref = () => {
      const q = new URLSearchParams();
      if (f.route) q.set('route', f.route);
      if (f.kind) q.set('kind', f.kind);
      if (f.repository) q.set('repository', f.repository);
      q.set('before', String(d.next));
      return `/needs?${q.toString()}`;
    };
    return html`<form class="filters" method="get" action="/needs" aria-label="Filter needs">
<label>Repository<select name="repository">${option('', f.repository, 'any')}${d.facets.repositories.map((r) => option(r, f.repository))}</select></label>
<label>Route<select name="route">${option('', f.route, 'any')}${d.facets.routes.map((r) => option(r, f.route))}</select></label>
<label>Resolution<select name="kind">${option('', f.kind, 'any')}${d.facets.kinds.map((r) => option(r, f.kind))}</select></label>
<button type="submit">Filter</button></form>
${table(
  'Resolutions, newest first',
  ['when', 'resolution', 'route', 'subject', 'satisfied', 'missing', 'workers', 'context', 'duration'],
  d.rows.map((r) => [
    html`<a href="/needs/${r.id}">${time(r.createdUnixMs)}</a>`,
    badge(r.kind, kindTone(r.kind)),
    r.route,
    html`<span class="mono">${r.subject}</span>`,
    r.satisfied.join(', ') || '—',
    r.missing.join(', ') || '—',
    r.workersRun === 0 ? 'none' : String(r.workersRun),
    `${num(r.contextBytes)} B`,
    `${num(r.durationMs)} ms`,
  ]),
  'no needs resolved yet',
)}
<div class="pager">${f.before !== null ? html`<a href="/needs">Newest</a>` : ''}${d.next !== null ? html`<a href="${nextHref()}" rel="next">Older</a>` : ''}</div>`;
  },
};

export interface NeedData {
  readonly resolution: ResolutionDetail;
  readonly steps: StepSummary[];
  readonly served: { certificate: string; artifact: string; predicate: string | null; subject: string | null; obligations: number; payload: unknown }[];
  readonly missingReasons: string[];
  readonly runs: RunRow[];
  readonly avoided: RunRow[];
}

export const needPage: Page<NeedData> = {
  title: (d) => `Need ${d.resolution.subject}`,
  data(ctx, _params, id) {
    if (id === null || !/^\d{1,15}$/.test(id)) return null;
    const resolution = getResolution(ctx.db, Number(id));
    if (!resolution) return null;
    const suff = resolution.sufficiencyId ? getSufficiency(ctx.db, resolution.sufficiencyId) : null;
    const units = (suff?.units ?? []) as { certificate: string; artifact: string; obligations: string[] }[];
    const steps = stepsForNeed(ctx.db, resolution.needId, 10);
    const runs = runsForNeed(ctx.db, resolution.needId);
    const missingReasons = [
      ...rejectionsForNeed(ctx.db, resolution.needId).map((r) => `rejected ${r.predicate ?? 'proposal'}: ${r.reasons.join('; ')}`),
      ...steps.flatMap((s) => s.events.filter((e) => e.detail).map((e) => `${e.kind}: ${e.detail}`)),
      ...runs.filter((r) => r.outcome !== 'proposed' && r.outcome !== 'ok').map((r) => `${r.worker} run ${r.id}: ${r.outcome}`),
    ];
    return {
      resolution,
      steps,
      served: units.map((u) => {
        const c = getCertificate(ctx.db, u.certificate);
        return { certificate: u.certificate, artifact: u.artifact, predicate: c?.predicate ?? null, subject: c ? `${c.subjectKind}:${c.subjectName}` : null, obligations: u.obligations.length, payload: c?.payload ?? null };
      }),
      missingReasons,
      runs,
      avoided: avoidedRunsOf(ctx.db, resolution.id),
    };
  },
  view(d) {
    const r = d.resolution;
    return html`<dl class="kv">
<dt>resolution</dt><dd>${badge(r.kind, kindTone(r.kind))} ${r.cacheHit ? badge('zero-worker hit', 'ok') : ''}</dd>
<dt>route</dt><dd>${r.route}</dd><dt>subject</dt><dd class="mono">${r.subject}</dd>
<dt>repository</dt><dd class="mono">${r.repository ?? 'not recorded (resolved before this version)'}</dd>
<dt>need</dt><dd class="mono">${r.needId}</dd>
<dt>satisfied</dt><dd>${r.satisfied.join(', ') || 'none'}</dd>
<dt>missing</dt><dd>${r.missing.join(', ') || 'none'}</dd>
<dt>when</dt><dd>${time(r.createdUnixMs)} · ${num(r.durationMs)} ms · ${num(r.contextBytes)} B of context</dd>
<dt>sufficiency</dt><dd class="mono">${r.sufficiencyId ?? 'none (nothing certified was served)'}</dd></dl>
<h2>Asked</h2>${d.steps.length === 0 ? html`<p class="empty">no MCP step recorded for this need</p>` : d.steps.map(
      (s) => html`<p>${time(s.createdUnixMs)} · session <span class="mono">${short(s.sessionId, 14)}</span> step ${s.ordinal} (${s.relation}) · ${s.status} · main model ${s.mainModel} · <span class="mono">${s.repository}</span></p>
<pre aria-label="Request">${JSON.stringify(JSON.parse(s.requestJson), null, 2)}</pre><p>events: ${s.events.map((e) => e.kind).join(' → ')}</p>`,
    )}
<h2>Answer as the main model saw it</h2>${r.contextText === null ? html`<p class="empty">not recorded (resolved before this version)</p>` : r.contextText === '' ? html`<p class="empty">no context: the answer was the resolution itself (${r.kind})</p>` : html`<pre aria-label="Answer">${r.contextText}</pre>`}
<h2>Served evidence</h2>${d.served.length === 0 ? html`<p class="empty">no certified evidence was served</p>` : d.served.map(
      (u) => html`<h3><a href="/cache/${u.certificate}">${u.predicate ?? 'evidence'}</a> for <span class="mono">${u.subject ?? '?'}</span> (${u.obligations} obligation(s))</h3><pre>${JSON.stringify(u.payload, null, 2)}</pre>`,
    )}
<h2>Why anything is missing</h2>${r.missing.length === 0 && d.missingReasons.length === 0 ? html`<p class="empty">nothing is missing</p>` : html`<ul>${(d.missingReasons.length ? d.missingReasons : ['no worker produced it and no certified evidence covers it']).map((m) => html`<li>${m}</li>`)}</ul>`}
<h2>Worker runs</h2>${runsTable('Worker runs for this need', d.runs, 'no worker ran for this need')}
${d.avoided.length ? html`<h2>Runs this hit avoided</h2>${runsTable('Runs whose results were reused', d.avoided, '')}` : ''}`;
  },
};
