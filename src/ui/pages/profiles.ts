// Profiles (every revision, which one is active) and worker runs (outcome,
// duration, tokens, cost; keyset pages).
import { pageRuns, type RunRow } from '../../store/evidence/reports.js';
import { listProfiles, listRevisions } from '../../store/profiles.js';
import type { Page } from '../context.js';
import { badge, html, time } from '../html.js';
import { runsTable } from './needs.js';

export interface ProfilesData {
  readonly profiles: { id: string; activeDigest: string; revisions: { digest: string; createdUnixMs: number; active: boolean; document: unknown }[] }[];
}

export const profilesPage: Page<ProfilesData> = {
  title: () => 'Profiles',
  data(ctx) {
    return {
      profiles: listProfiles(ctx.db).map((p) => ({
        id: p.id,
        activeDigest: p.activeDigest,
        revisions: listRevisions(ctx.db, p.id).map((r) => ({ digest: r.digest, createdUnixMs: r.createdUnixMs, active: r.digest === p.activeDigest, document: r.document })),
      })),
    };
  },
  view(d) {
    return html`<p>Role profiles are immutable revisions; one is active per profile (change it with <code>needle profile activate</code>).</p>${d.profiles.map(
      (p) => html`<h2>${p.id}</h2>${p.revisions.map(
        (r) => html`<details${r.active ? html` open` : ''}><summary><span class="mono">${r.digest}</span> ${time(r.createdUnixMs)} ${r.active ? badge('active', 'ok') : ''}</summary><pre>${JSON.stringify(r.document, null, 2)}</pre></details>`,
      )}`,
    )}`;
  },
};

export interface RunsData {
  readonly before: number | null;
  readonly rows: RunRow[];
  readonly next: number | null;
}

export const runsPage: Page<RunsData> = {
  title: () => 'Worker runs',
  data(ctx, params) {
    const b = params.get('before');
    const before = b !== null && /^\d{1,15}$/.test(b) ? Number(b) : null;
    const page = pageRuns(ctx.db, before ?? undefined, 50);
    return { before, rows: page.rows, next: page.next };
  },
  view(d) {
    return html`${runsTable('Worker runs, newest first', d.rows, 'no worker has run yet')}<div class="pager">${d.before !== null ? html`<a href="/runs">Newest</a>` : ''}${d.next !== null ? html`<a href="/runs?before=${d.next}" rel="next">Older</a>` : ''}</div>`;
  },
};
