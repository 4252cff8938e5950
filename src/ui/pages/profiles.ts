// Profiles (every revision, which one is active, and Activate for the others:
// confirmed in the page, then exactly `needle profile activate`'s path) and
// worker runs (outcome, duration, tokens, cost; keyset pages).
import { isDigest } from '../../core/digest.js';
import { PROFILE } from '../../core/limits.js';
import { StoreError } from '../../store/db.js';
import { pageRuns, type RunRow } from '../../store/evidence/reports.js';
import { activateRevision, listProfiles, listRevisions } from '../../store/profiles.js';
import { ActionError, type Page, type UiContext } from '../context.js';
import { badge, html, short, time, type Html } from '../html.js';
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
  view(d, params) {
    const asked = { profile: params.get('activate'), revision: params.get('revision') };
    const action = (id: string, r: ProfilesData['profiles'][number]['revisions'][number]): Html | string => {
      if (r.active) return '';
      if (asked.profile !== id || asked.revision !== r.digest)
        return html`<p><a class="button" href="/profiles?activate=${id}&amp;revision=${r.digest}">Activate…<span class="visually-hidden"> revision ${short(r.digest)} of ${id}</span></a></p>`;
      return html`<div class="confirm" role="group" aria-labelledby="activate-title"><h3 id="activate-title">Activate this revision of ${id}?</h3>
<p>New sessions — MCP connections, hooks, <code>needle context</code> — use it from now on; running MCP connections keep the revision they froze at startup. This is <code>needle profile activate ${id} --revision ${r.digest}</code>.</p>
<form data-action="/api/profiles/${id}/activate" method="post"><input type="hidden" name="revision" value="${r.digest}"><button class="primary" type="submit">Activate now</button> <a href="/profiles">Cancel</a></form><p id="result" tabindex="-1" role="alert"></p></div>`;
    };
    return html`<p>Role profiles are immutable revisions; one is active per profile (the same as <code>needle profile activate</code>).</p>${d.profiles.map(
      (p) => html`<h2>${p.id}</h2>${p.revisions.map(
        (r) => html`<details${r.active ? html` open` : ''}><summary><span class="mono">${r.digest}</span> ${time(r.createdUnixMs)} ${r.active ? badge('active', 'ok') : ''}</summary><pre>${JSON.stringify(r.document, null, 2)}</pre></details>${action(p.id, r)}`,
      )}`,
    )}`;
  },
};

/** POST /api/profiles/:id/activate with {revision}: the CLI's `profile activate` for one named revision. */
export function activateAction(ctx: UiContext, id: string, body: Record<string, unknown>): { message: string; next: string; result: { profile: string; digest: string } } {
  if (!PROFILE.idPattern.test(id)) throw new ActionError(404, 'no such role profile');
  if (!isDigest(body.revision)) throw new ActionError(400, 'activate needs revision: the b3: digest of the revision shown on the page', 'invalid_request');
  try {
    const digest = activateRevision(ctx.db, id, body.revision);
    return { message: `${id} ${digest} (active)`, next: '/profiles', result: { profile: id, digest } };
  } catch (e) {
    if (e instanceof StoreError) throw new ActionError(404, e.message);
    throw e;
  }
}

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
