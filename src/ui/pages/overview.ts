// Overview: hit rate, workers avoided, tokens and cost spent and avoided per
// day (plots) and per route and model, the active profile and the sandbox.
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { stats, type StatsRow } from '../../store/evidence/accounting.js';
import { dailySeries, type DayModel } from '../../store/evidence/reports.js';
import { getActiveProfile, listProfiles } from '../../store/profiles.js';
import { enabledRoutes } from '../../store/settings.js';
import { detectSandbox } from '../../workers/sandbox.js';
import type { Page } from '../context.js';
import { badge, html, num, table, usd } from '../html.js';
import { barPlot } from '../plot.js';

const DAYS = 14;
const DAY_MS = 86_400_000;

export interface OverviewData {
  readonly totals: { resolutions: number; hits: number; hitRate: number | null; workerRuns: number; workersAvoided: number; tokensSpent: number; tokensAvoided: number; costSpentUsd: number | null; costAvoidedUsd: number | null };
  readonly days: string[];
  readonly perDay: { resolutions: number[]; hits: number[]; tokensSpent: number[]; tokensAvoided: number[]; costSpentUsd: (number | null)[]; costAvoidedUsd: (number | null)[] };
  readonly byRouteAndModel: StatsRow[];
  readonly profile: { id: string; digest: string | null; explorers: string[]; implementer: string | null; verifier: string | null; requireSandbox: boolean; profiles: { id: string; revisions: number }[] };
  readonly routes: string[];
  readonly sandbox: { active: boolean; reason: string };
  readonly repository: string | null;
  readonly dataDir: string;
}

const sumNull = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, b) => a + (b ?? 0), 0));
const describeRole = (c: { adapter: string; model?: string; argv?: readonly string[] } | null) =>
  c === null ? null : c.adapter === 'codex' ? `codex ${c.model ?? ''}` : c.adapter === 'command' ? `command ${c.argv?.[0] ?? ''}` : c.adapter;

export const overviewPage: Page<OverviewData> = {
  title: () => 'Overview',
  data(ctx) {
    const rows = stats(ctx.db);
    const routes = rows.filter((r) => r.model === '*');
    const models = rows.filter((r) => r.model !== '*');
    const resolutions = routes.reduce((a, r) => a + r.resolutions, 0);
    const hits = routes.reduce((a, r) => a + r.hits, 0);
    const today = Math.floor(ctx.now() / DAY_MS) * DAY_MS;
    const since = today - (DAYS - 1) * DAY_MS;
    const days = Array.from({ length: DAYS }, (_, i) => new Date(since + i * DAY_MS).toISOString().slice(0, 10));
    const series = dailySeries(ctx.db, since);
    const perModel = (day: string) => series.models.filter((m) => m.day === day);
    const perRoute = (day: string) => series.routes.filter((r) => r.day === day);
    const daySum = (day: string, k: keyof DayModel) => sumNull(perModel(day).map((m) => m[k] as number | null));
    const active = getActiveProfile(ctx.db, BUILTIN_PROFILE_ID);
    const sandbox = detectSandbox();
    return {
      totals: {
        resolutions,
        hits,
        hitRate: resolutions > 0 ? hits / resolutions : null,
        workerRuns: models.reduce((a, r) => a + r.workerRuns, 0),
        workersAvoided: models.reduce((a, r) => a + r.workersAvoided, 0),
        tokensSpent: models.reduce((a, r) => a + r.tokensSpent, 0),
        tokensAvoided: models.reduce((a, r) => a + r.tokensAvoided, 0),
        costSpentUsd: sumNull(models.map((r) => r.costSpentUsd)),
        costAvoidedUsd: sumNull(models.map((r) => r.costAvoidedUsd)),
      },
      days,
      perDay: {
        resolutions: days.map((d) => perRoute(d).reduce((a, r) => a + r.resolutions, 0)),
        hits: days.map((d) => perRoute(d).reduce((a, r) => a + r.hits, 0)),
        tokensSpent: days.map((d) => daySum(d, 'tokensSpent') ?? 0),
        tokensAvoided: days.map((d) => daySum(d, 'tokensAvoided') ?? 0),
        costSpentUsd: days.map((d) => daySum(d, 'costSpentUsd')),
        costAvoidedUsd: days.map((d) => daySum(d, 'costAvoidedUsd')),
      },
      byRouteAndModel: rows,
      profile: {
        id: BUILTIN_PROFILE_ID,
        digest: active?.digest ?? null,
        explorers: active ? active.document.explorer.map((e) => describeRole(e)!) : [],
        implementer: active ? describeRole(active.document.implementer) : null,
        verifier: active ? describeRole(active.document.verifier) : null,
        requireSandbox: active?.document.require_sandbox ?? false,
        profiles: listProfiles(ctx.db).map((p) => ({ id: p.id, revisions: p.revisions })),
      },
      routes: enabledRoutes(ctx.db),
      sandbox: { active: sandbox.active, reason: sandbox.reason },
      repository: ctx.repository,
      dataDir: ctx.dataDir,
    };
  },
  view(d) {
    const t = d.totals;
    const card = (k: string, v: string) => html`<div class="card"><div class="v">${v}</div><div class="k">${k}</div></div>`;
    const sandboxProblem = d.profile.requireSandbox && !d.sandbox.active;
    return html`<section aria-labelledby="totals"><h2 id="totals">Totals</h2><div class="cards">
${card('hit rate', t.hitRate === null ? '—' : `${(t.hitRate * 100).toFixed(1)} %`)}${card('resolutions', num(t.resolutions))}${card('zero-worker hits', num(t.hits))}
${card('worker runs', num(t.workerRuns))}${card('workers avoided', num(t.workersAvoided))}${card('tokens spent', num(t.tokensSpent))}${card('tokens avoided', num(t.tokensAvoided))}
${card('cost spent', usd(t.costSpentUsd))}${card('cost avoided', usd(t.costAvoidedUsd))}</div></section>
<section aria-labelledby="days"><h2 id="days">Last ${DAYS} days</h2><div class="plots">
${barPlot('Resolutions and hits per day', d.days, [{ label: 'resolutions', values: d.perDay.resolutions }, { label: 'zero-worker hits', values: d.perDay.hits }], num)}
${barPlot('Tokens spent and avoided per day', d.days, [{ label: 'spent', values: d.perDay.tokensSpent }, { label: 'avoided', values: d.perDay.tokensAvoided }], num)}
${barPlot('Cost spent and avoided per day (USD)', d.days, [{ label: 'spent', values: d.perDay.costSpentUsd }, { label: 'avoided', values: d.perDay.costAvoidedUsd }], (n) => `$${n.toFixed(4)}`)}
</div></section>
<section aria-labelledby="split"><h2 id="split">By route and model</h2>${table(
      'Per route: resolutions and hits; per model or worker: runs, tokens and cost spent, and what hits avoided',
      ['route', 'model / worker', 'resolutions', 'hits', 'runs', 'tokens spent', 'cost spent', 'runs avoided', 'tokens avoided', 'cost avoided'],
      d.byRouteAndModel.map((r) =>
        r.model === '*'
          ? [r.route, 'all', num(r.resolutions), num(r.hits), '', '', '', '', '', '']
          : [r.route, r.model, '', '', num(r.workerRuns), num(r.tokensSpent), usd(r.costSpentUsd), num(r.workersAvoided), num(r.tokensAvoided), usd(r.costAvoidedUsd)],
      ),
      'nothing resolved yet',
    )}</section>
<section aria-labelledby="setup"><h2 id="setup">Profile and sandbox</h2><dl class="kv">
<dt>data directory</dt><dd class="mono">${d.dataDir}</dd>
<dt>repository</dt><dd class="mono">${d.repository ?? 'none (freshness unknown)'}</dd>
<dt>active profile</dt><dd>${d.profile.id} <span class="mono">${d.profile.digest ?? 'no active revision'}</span></dd>
<dt>explorers</dt><dd>${d.profile.explorers.join(', ') || 'none'}</dd>
<dt>implementer</dt><dd>${d.profile.implementer ?? 'not configured'}</dd>
<dt>verifier</dt><dd>${d.profile.verifier ?? 'not configured'}</dd>
<dt>routes enabled</dt><dd>${d.routes.join(', ') || 'none'}</dd>
<dt>sandbox</dt><dd>${d.sandbox.active ? badge('available', 'ok') : badge('unavailable', 'warn')} ${d.sandbox.reason}${sandboxProblem ? html` ${badge('the profile requires the sandbox', 'bad')}` : ''}</dd>
</dl></section>`;
  },
};
