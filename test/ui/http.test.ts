// The control plane over HTTP: every page and its JSON, and every refusal —
// no token, wrong token, wrong Host (DNS rebinding), cross-origin or
// Origin-less POST, missing token header, form-encoded body, missing
// confirmation, stale digest, unverified change — each leaving the store and
// the worktree exactly as they were.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentChangeDigest, loadChange } from '../../src/changes/store.js';
import { getCertificate } from '../../src/store/evidence/certificates.js';
import { recordResolution } from '../../src/store/evidence/accounting.js';
import { FACET_SQL, resolutionPageQuery } from '../../src/store/evidence/reports.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import { activateProfile, createProfileRevision, getActiveProfile } from '../../src/store/profiles.js';
import { startUi, type UiServer } from '../../src/ui/server.js';
import { FIXED_ADD } from '../changes/fixture.js';
import { fill, raw, type Filled } from './fixture.js';

let f: Filled;
let ui: UiServer;
let cookie: string;
const BEFORE = 'export function add(a, b) {\n  return a - b;\n}\n';

beforeAll(async () => {
  f = await fill();
  ui = await startUi({ dataDir: f.env.dataDir, repository: f.env.root });
}, 120_000);
afterAll(async () => {
  await ui?.close();
  f?.env.cleanup();
});

const host = () => `127.0.0.1:${ui.port}`;
const get = (path: string, headers: Record<string, string> = {}) => raw(ui.port, 'GET', path, { host: host(), cookie, ...headers });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(ui.port, 'POST', path, { host: host(), origin: ui.origin, 'content-type': 'application/json', 'x-needle-token': ui.token, ...headers }, JSON.stringify(body));

const worktree = () => readFileSync(join(f.env.root, 'src/add.mjs'), 'utf8');
const state = (id: string) => loadChange(f.env.db, id)!.state;
const servable = () => getCertificate(f.env.db, f.certificate)!.invalidatedUnixMs === null;
function untouched(): void {
  expect(worktree()).toBe(BEFORE);
  expect(state(f.verifiedChange)).toBe('verified');
  expect(servable()).toBe(true);
}

describe('needle ui over HTTP', () => {
  it('binds 127.0.0.1 on a free port and prints a URL with a 256-bit token', () => {
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    expect(ui.port).toBeGreaterThan(0);
  });

  it('trades the token in the URL for an HttpOnly SameSite=Strict cookie and drops it from the address', async () => {
    const r = await raw(ui.port, 'GET', `/needs?token=${ui.token}&route=x`, { host: host() });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/needs?route=x');
    const set = String(r.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    cookie = set.split(';')[0]!;
    expect(cookie).toBe(`needle_ui_${ui.port}=${ui.token}`);
    const sneaky = await raw(ui.port, 'GET', `/.//evil.example/?token=${ui.token}`, { host: host() });
    expect(sneaky.headers.location).toBe('/evil.example/');
  });

  it('serves every page as HTML and as JSON, with a strict CSP and no external reference', async () => {
    const resolutions = JSON.parse((await get('/api/needs')).body) as { rows: { id: number }[] };
    expect(resolutions.rows.length).toBeGreaterThanOrEqual(4);
    const paths = ['/', '/needs', `/needs/${resolutions.rows[0]!.id}`, '/cache', `/cache/${f.certificate}`, '/changes', `/changes/${f.verifiedChange}`, '/profiles', '/runs'];
    for (const p of paths) {
      const page = await get(p);
      expect(page.status, p).toBe(200);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
      const api = await get(p === '/' ? '/api/overview' : `/api${p}`);
      expect(api.status, p).toBe(200);
      expect(api.headers['content-type']).toMatch(/^application\/json/);
      expect(api.headers['access-control-allow-origin']).toBeUndefined();
    }
    const hit = (resolutions.rows as { id: number; kind?: string }[]).find((r) => r.kind === 'exact_hit')!;
    const need = JSON.parse((await get(`/api/needs/${hit.id}`)).body);
    expect(need.resolution.contextText).toContain('[NEEDLE_CONTEXT route=locate.implementation subject=symbol:add resolution=exact_hit]');
    expect(need.served.length).toBeGreaterThan(0);
    expect(need.avoided.length).toBeGreaterThan(0);
    expect((await get(`/needs/${hit.id}`)).body).toContain('[NEEDLE_CONTEXT route=locate.implementation');
    const overview = JSON.parse((await get('/api/overview')).body);
    expect(overview.totals.resolutions).toBeGreaterThanOrEqual(4);
    expect(overview.totals.hits).toBeGreaterThanOrEqual(1);
    expect(overview.totals.workersAvoided).toBeGreaterThanOrEqual(1);
    const cert = JSON.parse((await get(`/api/cache/${f.certificate}`)).body);
    expect(cert.freshness.status).toBe('fresh');
    expect(cert.dependencies.length).toBeGreaterThan(0);
    const change = JSON.parse((await get(`/api/changes/${f.verifiedChange}`)).body);
    expect(change).toMatchObject({ state: 'verified', applicable: true, changeDigest: currentChangeDigest(f.env.db, loadChange(f.env.db, f.verifiedChange)!) });
    expect(change.patch.files[0].diff).toContain('+  return a + b;');
    const unverified = JSON.parse((await get(`/api/changes/${f.unverifiedChange}`)).body);
    expect(unverified.applicable).toBe(false);
    expect(unverified.refusal).toMatch(/only a change whose latest revision passed verification/);
    expect((await get('/api/needs/999999')).status).toBe(404);
    expect((await get('/nope')).status).toBe(404);
  });

  it('shows the certified tests a verification ran: command, verdict, exit code and a bounded excerpt of the output', async () => {
    type Test = { test_identifier: string; passed: boolean; executed: boolean; argv: string[]; run: { exitCode: number; durationMs: number; excerpt: string } | null };
    const verified = JSON.parse((await get(`/api/changes/${f.verifiedChange}`)).body) as { verification: { tests: Test[] } };
    expect(verified.verification.tests).toHaveLength(1);
    expect(verified.verification.tests[0]).toMatchObject({ test_identifier: 'adds', passed: true, argv: ['node', '--test', '--test-name-pattern', 'adds', 'test/add.test.mjs'], run: { exitCode: 0 } });
    expect(verified.verification.tests[0]!.run!.excerpt).toMatch(/pass 1/);
    const broken = JSON.parse((await get(`/api/changes/${f.failingTestsChange}`)).body) as { state: string; applicable: boolean; verification: { verdict: string; tests: Test[] } };
    expect(broken.applicable).toBe(false);
    expect(broken.verification.verdict).not.toBe('verified');
    const byName = new Map(broken.verification.tests.map((t) => [t.test_identifier, t]));
    expect(byName.get('adds')).toMatchObject({ passed: true, run: { exitCode: 0 } });
    expect(byName.get('subtracts')).toMatchObject({ passed: false, executed: true, run: { exitCode: 1 } });
    expect(byName.get('subtracts')!.run!.excerpt).toMatch(/fail 1/);
    expect(byName.get('subtracts')!.run!.excerpt).toMatch(/8 !== 2/);
    for (const t of byName.values()) expect(Buffer.byteLength(t.run!.excerpt)).toBeLessThanOrEqual(4_096 + 64);
    const page = (await get(`/changes/${f.failingTestsChange}`)).body;
    expect(page).toContain('<details class="test-output" open><summary>Output of <span class="mono">subtracts</span> (failed)</summary>');
    expect(page).toContain('<details class="test-output"><summary>Output of <span class="mono">adds</span> (passed)</summary>');
    expect(page).toContain('<code>node --test --test-name-pattern subtracts test/sub.test.mjs</code>');
  });

  it('refuses reads without the token, with a wrong token or under another Host name', async () => {
    expect((await raw(ui.port, 'GET', '/api/overview', { host: host() })).status).toBe(401);
    expect((await raw(ui.port, 'GET', '/?token=wrong', { host: host() })).status).toBe(401);
    expect((await raw(ui.port, 'GET', '/api/overview', { host: host(), cookie: `needle_ui_${ui.port}=${ui.token.slice(1)}x` })).status).toBe(401);
    for (const h of [`rebind.example:${ui.port}`, `localhost:${ui.port}`, '127.0.0.1', `127.0.0.1:${ui.port + 1}`]) {
      const r = await get('/api/overview', { host: h });
      expect(r.status, h).toBe(421);
      expect(r.body).not.toContain('totals');
    }
    expect((await raw(ui.port, 'GET', `/?token=${ui.token}`, { host: `rebind.example:${ui.port}` })).status).toBe(421);
    expect((await get('/events', { host: `rebind.example:${ui.port}` })).status).toBe(421);
  });

  it('refuses state changes without our Origin, the token header or a JSON body, changing nothing', async () => {
    const digest = currentChangeDigest(f.env.db, loadChange(f.env.db, f.verifiedChange)!);
    const apply = `/api/changes/${f.verifiedChange}/apply`;
    const inval = `/api/cache/${f.certificate}/invalidate`;
    const cases: [string, Record<string, string>, number][] = [
      ['cross-origin', { origin: 'http://127.0.0.1:1' }, 403],
      ['foreign site', { origin: 'http://evil.example' }, 403],
      ['null origin', { origin: 'null' }, 403],
      ['no token header', { 'x-needle-token': '' }, 403],
      ['wrong token header', { 'x-needle-token': 'x'.repeat(43) }, 403],
      ['cross-site fetch metadata', { 'sec-fetch-site': 'cross-site' }, 403],
      ['form body', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
      ['wrong Host', { host: `rebind.example:${ui.port}` }, 421],
    ];
    for (const [name, headers, status] of cases) {
      expect((await post(apply, { if_match: digest }, headers)).status, name).toBe(status);
      expect((await post(inval, { confirm: f.certificate }, headers)).status, name).toBe(status);
      untouched();
    }
    const noOrigin = await raw(ui.port, 'POST', apply, { host: host(), cookie, 'content-type': 'application/json', 'x-needle-token': ui.token }, JSON.stringify({ if_match: digest }));
    expect(noOrigin.status).toBe(403);
    expect((await raw(ui.port, 'PUT', apply, { host: host(), cookie })).status).toBe(405);
    untouched();
  });

  it('refuses an invalidation without its confirmation and an apply with a stale digest or of an unverified change', async () => {
    expect((await post(`/api/cache/${f.certificate}/invalidate`, {})).status).toBe(400);
    expect((await post(`/api/cache/${f.certificate}/invalidate`, { confirm: 'b3:' + '0'.repeat(64) })).status).toBe(400);
    const stale = await post(`/api/changes/${f.verifiedChange}/apply`, { if_match: 'b3:' + '0'.repeat(64) });
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.body).rule).toBe('digest_mismatch');
    expect((await post(`/api/changes/${f.verifiedChange}/apply`, {})).status).toBe(400);
    const second = loadChange(f.env.db, f.unverifiedChange)!;
    const unverified = await post(`/api/changes/${f.unverifiedChange}/apply`, { if_match: currentChangeDigest(f.env.db, second) });
    expect(unverified.status).toBe(409);
    expect(JSON.parse(unverified.body).rule).toBe('not_verified');
    untouched();
  });

  it('invalidates with confirmation and applies a verified change through the journaled apply', async () => {
    const inv = await post(`/api/cache/${f.certificate}/invalidate`, { confirm: f.certificate });
    expect(inv.status).toBe(200);
    expect(servable()).toBe(false);
    expect(JSON.parse((await get(`/api/cache/${f.certificate}`)).body).freshness.status).toBe('invalidated');
    const digest = currentChangeDigest(f.env.db, loadChange(f.env.db, f.verifiedChange)!);
    const r = await post(`/api/changes/${f.verifiedChange}/apply`, { if_match: digest });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).result).toMatchObject({ status: 'applied', change_id: f.verifiedChange });
    expect(worktree()).toBe(FIXED_ADD);
    expect(state(f.verifiedChange)).toBe('applied');
    // Freshness is computed now: evidence resting on src/add.mjs is stale and says so.
    const cache = JSON.parse((await get('/api/cache')).body) as { rows: { freshness: { status: string; changed: string[] } }[] };
    expect(cache.rows.some((r) => r.freshness.status === 'stale' && r.freshness.changed.includes('src/add.mjs'))).toBe(true);
    const again = await post(`/api/changes/${f.verifiedChange}/apply`, { if_match: digest });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).rule).toBe('already_applied');
  });

  it('activates a profile revision only through the guarded path, refusing no token, another origin and an unknown revision', async () => {
    const first = createProfileRevision(f.env.db, 'reviewer', { ...BUILTIN_LOCAL_PROFILE, require_sandbox: true });
    activateProfile(f.env.db, 'reviewer', first);
    const second = createProfileRevision(f.env.db, 'reviewer', { ...BUILTIN_LOCAL_PROFILE, test_execution: 'trusted' });
    const active = () => getActiveProfile(f.env.db, 'reviewer')!.digest;
    const activate = `/api/profiles/reviewer/activate`;
    const refusals: [string, string, unknown, Record<string, string>, number, RegExp][] = [
      ['no token header', activate, { revision: second }, { 'x-needle-token': '' }, 403, /x-needle-token/],
      ['cross-origin', activate, { revision: second }, { origin: 'http://127.0.0.1:1' }, 403, /cross-origin/],
      ['form body', activate, { revision: second }, { 'content-type': 'application/x-www-form-urlencoded' }, 415, /JSON body/],
      ['unknown revision', activate, { revision: 'b3:' + '0'.repeat(64) }, {}, 404, /role profile reviewer has no revision b3:0{64}/],
      ['revision of another profile', activate, { revision: getActiveProfile(f.env.db, 'local')!.digest }, {}, 404, /role profile reviewer has no revision/],
      ['unknown profile', '/api/profiles/nobody/activate', { revision: second }, {}, 404, /role profile nobody has no revision/],
      ['no revision', activate, {}, {}, 400, /activate needs revision/],
      ['malformed revision', activate, { revision: 'latest' }, {}, 400, /activate needs revision/],
      ['malformed profile id', '/api/profiles/..%2Fx/activate', { revision: second }, {}, 404, /no such role profile/],
    ];
    for (const [name, path, body, headers, status, error] of refusals) {
      const r = await post(path, body, headers);
      expect(r.status, name).toBe(status);
      expect(JSON.parse(r.body).error, name).toMatch(error);
      expect(active(), name).toBe(first);
    }
    // The page offers Activate for the inactive revision, and asks before doing it.
    expect((await get('/profiles')).body).toContain(`href="/profiles?activate=reviewer&amp;revision=${second}"`);
    const confirm = (await get(`/profiles?activate=reviewer&revision=${second}`)).body;
    expect(confirm).toContain('data-action="/api/profiles/reviewer/activate"');
    expect(confirm).toContain(`needle profile activate reviewer --revision ${second}`);
    expect(active()).toBe(first);

    const ok = await post(activate, { revision: second });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ next: '/profiles', result: { profile: 'reviewer', digest: second } });
    expect(active()).toBe(second);
    const profiles = JSON.parse((await get('/api/profiles')).body) as { profiles: { id: string; activeDigest: string }[] };
    expect(profiles.profiles.find((p) => p.id === 'reviewer')!.activeDigest).toBe(second);
    expect((await get('/profiles')).body).toContain(`href="/profiles?activate=reviewer&amp;revision=${first}"`);
  });

  it('pages 10 000 needs by index: the first and a later page show the right rows, every page query is an index search', async () => {
    const repoOf = (i: number) => (i % 4 < 2 ? '/repos/a' : '/repos/b');
    const insert = f.env.db.transaction(() => {
      for (let i = 0; i < 10_000; i++)
        recordResolution(
          f.env.db,
          { needId: `b3:${i.toString(16).padStart(64, '0')}` as never, repositoryRoot: repoOf(i), requestDigest: `b3:${'1'.repeat(64)}` as never, route: i % 2 ? 'locate.implementation' : 'trace.state-flow', subjectKind: 'symbol', subjectName: `s${i}`, kind: i % 3 ? 'miss' : 'exact_hit', satisfied: [], missing: [], cacheHit: i % 3 === 0, workersRun: 0, sufficiencyId: null, contextBytes: 0, durationMs: 1, avoidedRuns: [] },
          Date.now(),
        );
    });
    insert();
    const subjects = (body: string) => [...body.matchAll(/<span class="mono">symbol:s(\d+)<\/span>/g)].map((m) => Number(m[1]));
    const older = (body: string) => /<a href="([^"]+)" rel="next">Older<\/a>/.exec(body)![1]!.replaceAll('&amp;', '&');
    const range = (from: number, step: number) => Array.from({ length: 50 }, (_, k) => from - k * step);
    const t0 = performance.now();

    // The Needs page as a person pages it: newest 50, then Older, then Older again.
    const first = (await get('/needs')).body;
    expect(subjects(first)).toEqual(range(9999, 1));
    expect(first).not.toContain('>Newest</a>');
    const second = (await get(older(first))).body;
    expect(subjects(second)).toEqual(range(9949, 1));
    expect(second).toContain('<a href="/needs">Newest</a>');
    expect(subjects((await get(older(second))).body)).toEqual(range(9899, 1));

    // Filtered: even i (trace.state-flow) that are multiples of 3 (exact_hit), i.e. every 6th; the filter survives paging.
    const hits = (await get('/needs?route=trace.state-flow&kind=exact_hit')).body;
    expect(subjects(hits)).toEqual(range(9996, 6));
    expect(older(hits)).toMatch(/^\/needs\?route=trace\.state-flow&kind=exact_hit&before=\d+$/);
    expect(subjects((await get(older(hits))).body)).toEqual(range(9996 - 300, 6));
    const inB = JSON.parse((await get(`/api/needs?repository=${encodeURIComponent('/repos/b')}&route=locate.implementation`)).body) as { rows: { repository: string; subject: string }[] };
    expect(inB.rows).toHaveLength(50);
    expect(inB.rows.map((r) => r.subject)).toEqual(range(9999, 4).map((i) => `symbol:s${i}`));
    expect(inB.rows.every((r) => r.repository === '/repos/b')).toBe(true);
    expect((await get('/')).status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(5_000);

    // Every filter combination, first page and later: a SEARCH through an index or the primary key, never a scan or a sort.
    const explain = (sql: string, args: unknown[]) => (f.env.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((p) => p.detail).join(' | ');
    const filters = [{}, { route: 'x' }, { kind: 'miss' }, { repository: '/repos/a' }, { route: 'x', kind: 'miss' }, { route: 'x', repository: '/repos/a' }, { route: 'x', kind: 'miss', repository: '/repos/a' }];
    for (const filter of filters)
      for (const before of [undefined, 5_000]) {
        const q = resolutionPageQuery({ ...filter, ...(before !== undefined ? { before } : {}), limit: 50 });
        const plan = explain(q.sql, q.args);
        expect(plan, JSON.stringify({ filter, before })).toMatch(/^SEARCH evidence_resolutions USING (INDEX evidence_resolutions_by_\w+ \(\w+=\? AND id<\?\)|INTEGER PRIMARY KEY \(rowid<\?\))$/);
      }
    for (const [facet, sql] of Object.entries(FACET_SQL)) {
      const plan = explain(sql, []);
      expect(plan, facet).toMatch(/USING COVERING INDEX evidence_resolutions_by_/);
      expect(plan, facet).not.toMatch(/TEMP B-TREE/);
    }
  });
});
