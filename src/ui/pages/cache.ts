// Cache: certified evidence with freshness computed now against the
// repository (fresh, or stale naming the changed files), one certificate's
// dependencies, claims and sufficiency certificates (replayed now), and
// invalidation behind a confirmation.
import { captureSnapshot } from '../../repo/snapshot.js';
import { FreshnessChecker } from '../../resolve/freshness.js';
import { replaySufficiency } from '../../resolve/sufficiency.js';
import { sufficiencyUsing } from '../../store/evidence/accounting.js';
import { getCertificate, invalidate, listCertificates, loadClaims, type CertificateRow } from '../../store/evidence/certificates.js';
import { validatorDefinition } from '../../validate/certificate.js';
import { ActionError, type Page, type UiContext } from '../context.js';
import { badge, html, short, table, time } from '../html.js';

const LIST_LIMIT = 200;

interface Checker {
  readonly freshness: FreshnessChecker;
  readonly snapshotDigest: () => ReturnType<typeof captureSnapshot>['sourceDigest'];
}

function checkerFor(ctx: UiContext): Checker | null {
  if (ctx.repository === null) return null;
  const root = ctx.repository;
  let snapshot: ReturnType<typeof captureSnapshot>['sourceDigest'] | null = null;
  return { freshness: new FreshnessChecker(root), snapshotDigest: () => (snapshot ??= captureSnapshot(root).sourceDigest) };
}

export type Freshness = { status: 'fresh' | 'stale' | 'invalidated' | 'outdated-validator' | 'unknown'; changed: string[] };

function freshness(c: CertificateRow, checker: Checker | null): Freshness {
  if (c.invalidatedUnixMs !== null) return { status: 'invalidated', changed: [] };
  if (c.validatorDefinition !== validatorDefinition(c.predicate)) return { status: 'outdated-validator', changed: [] };
  if (!checker) return { status: 'unknown', changed: [] };
  const changed = c.dependencies.filter((d) => checker.freshness.digestOf(d.path) !== d.digest).map((d) => d.path);
  if (changed.length > 0) return { status: 'stale', changed };
  if (c.scope === 'snapshot_exact' && c.snapshotDigest !== checker.snapshotDigest()) return { status: 'stale', changed: ['(the source snapshot moved)'] };
  return { status: 'fresh', changed: [] };
}

const tone = (s: Freshness['status']) => (s === 'fresh' ? 'ok' : s === 'stale' || s === 'unknown' ? 'warn' : 'bad');

export interface CacheData {
  readonly repository: string | null;
  readonly rows: { certificate: string; artifact: string; predicate: string; subject: string; scope: string; issuedUnixMs: number; freshness: Freshness }[];
}

export const cachePage: Page<CacheData> = {
  title: () => 'Cache',
  data(ctx) {
    const checker = checkerFor(ctx);
    return {
      repository: ctx.repository,
      rows: listCertificates(ctx.db, LIST_LIMIT).map((c) => ({
        certificate: c.certificateId,
        artifact: c.artifactId,
        predicate: c.predicate,
        subject: `${c.subjectKind}:${c.subjectName}`,
        scope: c.scope,
        issuedUnixMs: c.issuedUnixMs,
        freshness: freshness(c, checker),
      })),
    };
  },
  view(d) {
    return html`<p>Freshness computed now against <span class="mono">${d.repository ?? 'no repository (unknown)'}</span>; the ${LIST_LIMIT} most recent certificates.</p>
${table(
  'Certified evidence',
  ['certificate', 'status', 'predicate', 'subject', 'scope', 'issued'],
  d.rows.map((r) => [
    html`<a class="mono" href="/cache/${r.certificate}">${short(r.certificate)}</a>`,
    html`${badge(r.freshness.status, tone(r.freshness.status))}${r.freshness.changed.length ? html` <span class="mono">${r.freshness.changed.join(', ')}</span>` : ''}`,
    r.predicate,
    html`<span class="mono">${r.subject}</span>`,
    r.scope,
    time(r.issuedUnixMs),
  ]),
  'no certified evidence yet',
)}`;
  },
};

export interface CertificateData {
  readonly certificate: string;
  readonly artifact: string;
  readonly predicate: string;
  readonly subject: string;
  readonly facets: unknown;
  readonly scope: string;
  readonly issuedUnixMs: number;
  readonly invalidatedReason: string | null;
  readonly freshness: Freshness;
  readonly dependencies: { path: string; digest: string; state: 'unchanged' | 'changed' | 'missing' | 'unknown' }[];
  readonly claims: { id: string; kind: string; fresh: boolean | null; payload: unknown }[];
  readonly sufficiency: { id: string; kind: string; replayValid: boolean; reasons: readonly string[] }[];
  readonly payload: unknown;
}

export const certificatePage: Page<CertificateData> = {
  title: (d) => `Certificate ${short(d.certificate)}`,
  data(ctx, _params, id) {
    if (id === null || !/^b3:[0-9a-f]{64}$/.test(id)) return null;
    const c = getCertificate(ctx.db, id);
    if (!c) return null;
    const checker = checkerFor(ctx);
    return {
      certificate: c.certificateId,
      artifact: c.artifactId,
      predicate: c.predicate,
      subject: `${c.subjectKind}:${c.subjectName}`,
      facets: c.facets,
      scope: c.scope,
      issuedUnixMs: c.issuedUnixMs,
      invalidatedReason: c.invalidatedReason,
      freshness: freshness(c, checker),
      dependencies: c.dependencies.map((dep) => {
        if (!checker) return { path: dep.path, digest: dep.digest, state: 'unknown' as const };
        const now = checker.freshness.digestOf(dep.path);
        return { path: dep.path, digest: dep.digest, state: now === null ? ('missing' as const) : now === dep.digest ? ('unchanged' as const) : ('changed' as const) };
      }),
      claims: loadClaims(ctx.db, c.certificateId).map((k) => ({ id: k.claimId, kind: k.kind, fresh: checker ? checker.freshness.isFresh(k.dependencies) : null, payload: k.payload })),
      sufficiency: checker
        ? sufficiencyUsing(ctx.db, c.certificateId, 5).map((s) => {
            const r = replaySufficiency({ db: ctx.db, ...checker }, s);
            return { id: s.id, kind: s.kind, replayValid: r.valid, reasons: r.reasons };
          })
        : [],
      payload: c.payload,
    };
  },
  view(d, params) {
    const confirming = params.get('confirm') === 'invalidate' && d.freshness.status !== 'invalidated';
    return html`<dl class="kv">
<dt>certificate</dt><dd class="mono">${d.certificate}</dd><dt>artifact</dt><dd class="mono">${d.artifact}</dd>
<dt>evidence</dt><dd>${d.predicate} for <span class="mono">${d.subject}</span></dd>
<dt>facets</dt><dd class="mono">${JSON.stringify(d.facets)}</dd>
<dt>scope</dt><dd>${d.scope}, issued ${time(d.issuedUnixMs)}</dd>
<dt>status now</dt><dd>${badge(d.freshness.status, tone(d.freshness.status))}${d.invalidatedReason ? ` (${d.invalidatedReason})` : ''}${d.freshness.changed.length ? html` changed: <span class="mono">${d.freshness.changed.join(', ')}</span>` : ''}</dd></dl>
${
  d.freshness.status === 'invalidated'
    ? ''
    : confirming
      ? html`<div class="confirm" role="group" aria-labelledby="confirm-title"><h2 id="confirm-title">Invalidate this certificate?</h2><p>It (and every other certificate of this artifact named by this id) will never be served again. This cannot be undone.</p>
<form data-action="/api/cache/${d.certificate}/invalidate" method="post"><input type="hidden" name="confirm" value="${d.certificate}"><button class="danger" type="submit">Invalidate now</button> <a href="/cache/${d.certificate}">Cancel</a></form><p id="result" tabindex="-1" role="alert"></p></div>`
      : html`<p><a href="/cache/${d.certificate}?confirm=invalidate" class="button">Invalidate…</a></p>`
}
<h2>Dependencies</h2>${table(
      'Files the evidence rests on, checked now',
      ['state', 'path', 'digest'],
      d.dependencies.map((x) => [badge(x.state, x.state === 'unchanged' ? 'ok' : x.state === 'unknown' ? 'info' : 'bad'), html`<span class="mono">${x.path}</span>`, html`<span class="mono">${short(x.digest)}</span>`]),
      'no dependencies',
    )}
<h2>Claims</h2>${table(
      'Claims certified with it',
      ['claim', 'kind', 'fresh now', 'payload'],
      d.claims.map((k) => [html`<span class="mono">${short(k.id)}</span>`, k.kind, k.fresh === null ? 'unknown' : k.fresh ? 'yes' : 'no', html`<code>${JSON.stringify(k.payload)}</code>`]),
      'no claims',
    )}
<h2>Sufficiency certificates</h2>${table(
      'Sufficiency certificates that served it, replayed now (no model runs)',
      ['id', 'kind', 'replay'],
      d.sufficiency.map((s) => [html`<span class="mono">${short(s.id)}</span>`, s.kind, s.replayValid ? badge('valid', 'ok') : html`${badge('invalid', 'bad')} ${s.reasons.join('; ')}`]),
      'none (or no repository to replay against)',
    )}
<h2>Evidence</h2><pre>${JSON.stringify(d.payload, null, 2)}</pre>`;
  },
};

/** POST /api/cache/:id/invalidate with {confirm: id}: the confirmation must name what is invalidated. */
export function invalidateAction(ctx: UiContext, id: string, body: Record<string, unknown>): { message: string; next: string } {
  if (!/^b3:[0-9a-f]{64}$/.test(id)) throw new ActionError(404, 'no such certificate');
  if (body.confirm !== id) throw new ActionError(400, 'confirmation missing: the body must repeat the id being invalidated');
  const n = invalidate(ctx.db, id, 'invalidated from needle ui', ctx.now());
  if (n === 0) throw new ActionError(409, 'no servable certificate with this id');
  return { message: `invalidated ${n} certificate(s)`, next: `/cache/${id}` };
}
