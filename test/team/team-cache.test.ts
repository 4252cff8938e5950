// The team cache against a real PostgreSQL server (test/support/postgres.ts):
// two clones of one repository at different paths, each with its own data
// directory, share certified evidence; nothing fetched is served before the
// local validators re-checked it on the local bytes, and a tampered row is
// rejected, counted and never retried for the same bytes.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheListCommand, cacheShowCommand } from '../../src/cli/commands/cache.js';
import { contextCommand } from '../../src/cli/commands/context.js';
import { statsCommand } from '../../src/cli/commands/stats.js';
import { teamCacheInitCommand, teamCacheStatusCommand } from '../../src/cli/commands/team-cache.js';
import { doctorCommand } from '../../src/cli/commands/doctor.js';
import type { Digest } from '../../src/core/digest.js';
import type { Facets, Predicate } from '../../src/core/semantic.js';
import { artifactId, certificateId, manifestDigest } from '../../src/validate/certificate.js';
import { postgresUnavailable } from '../support/postgres.js';
import { brief, flow, locate, teamWorld, tests, type TeamWorld } from './helpers.js';

const unavailable = postgresUnavailable();
if (unavailable) console.warn(`team cache tests skipped: ${unavailable}`);

let w: TeamWorld;

type Row = Record<string, unknown> & { certificate_id: string; payload: string; dependencies: string; facets: string };

describe.skipIf(unavailable !== null)('team cache on a real PostgreSQL server', () => {
  beforeAll(async () => {
    w = await teamWorld();
  });
  afterAll(() => w?.cleanup());

  it('init is idempotent; status, doctor and errors never show a password, and a URL carrying one is refused', async () => {
    const here = w.clone();
    expect((await w.run(teamCacheInitCommand, [w.server.url], here)).out).toMatch(/schema version 1, up to date/);
    const status = JSON.parse((await w.run(teamCacheStatusCommand, [w.server.url, '--json'], here)).out);
    expect(status).toMatchObject({ version: 1, certificates: 0 });
    const doctor = await w.run(doctorCommand, ['--json', '--team-cache', w.server.url], here);
    const team = JSON.parse(doctor.out).checks.find((c: { area: string }) => c.area === 'team cache');
    expect(team.level).toBe('ok');
    expect(team.detail).toMatch(/reachable, [\d.]+ ms round trip .*schema version 1/);
    const withPassword = w.server.url.replace('@', ':hunter22@');
    await expect(w.run(teamCacheInitCommand, [withPassword], here)).rejects.toThrow(/must not contain a password \(it is not echoed\)/);
    await expect(w.run(contextCommand, [...locate('cli_option:--dry-run'), '--team-cache', withPassword], here)).rejects.toThrow(/^(?!.*hunter22)/);
    const pgpass = `${here.root}/../pgpass-${Date.now()}`;
    writeFileSync(pgpass, `127.0.0.1:${w.server.port}:*:needle_team:${w.server.env.PGPASSWORD}\n`, { mode: 0o600 });
    const viaFile = await w.run(doctorCommand, ['--json', '--team-cache', w.server.url], here, { PGPASSWORD: undefined, PGPASSFILE: pgpass });
    expect(JSON.parse(viaFile.out).checks.find((c: { area: string }) => c.area === 'team cache').level).toBe('ok');
    const wrong = await w.run(doctorCommand, ['--json', '--team-cache', w.server.url], here, { PGPASSWORD: 'not-the-password' });
    const failed = JSON.parse(wrong.out).checks.find((c: { area: string }) => c.area === 'team cache');
    expect(failed.level).toBe('fail');
    expect(wrong.out).not.toContain('not-the-password');
    expect(wrong.out).not.toContain(w.server.env.PGPASSWORD);
  });

  it('A publishes after certification; B, a clone at another path, gets a zero-worker hit after local re-validation, origin recorded', async () => {
    const a = w.clone();
    const b = w.clone();
    const ra = brief((await w.run(contextCommand, [...locate('cli_option:--dry-run'), '--team-cache', w.server.url], a)).out);
    expect(ra).toMatchObject({ status: 'generated', workerSpawned: true });
    const published = await w.server.query<{ predicate: string; publisher: string }>('SELECT predicate, publisher FROM needle_team_certificates');
    expect(published.map((r) => r.predicate)).toEqual(['implementation_location']);

    const rb = brief((await w.run(contextCommand, locate('cli_option:--dry-run'), b, { NEEDLE_TEAM_CACHE: w.server.url })).out);
    expect(rb).toMatchObject({ status: 'hit', kind: 'exact_hit', workerSpawned: false, cacheHit: true, satisfied: ['implementation_location'] });
    expect(rb.context).toBe(ra.context.replace('resolution=miss', 'resolution=exact_hit'));
    const db = w.db(b);
    expect(db.prepare('SELECT origin, publisher FROM team_imports').all()).toEqual([{ origin: w.server.url, publisher: published[0]!.publisher }]);
    expect(db.prepare('SELECT count(*) AS n FROM worker_runs').get()).toEqual({ n: 0 });
    db.close();
    const stats = JSON.parse((await w.run(statsCommand, ['--team', '--json'], b)).out);
    expect(stats).toMatchObject({ teamHits: 1, imported: 1, rejected: 0 });
    const list = JSON.parse((await w.run(cacheListCommand, ['--json'], b)).out);
    const shown = JSON.parse((await w.run(cacheShowCommand, [list[0].certificate_id, '--json'], b)).out);
    expect(shown.origin).toMatchObject({ team_cache: w.server.url, publisher: published[0]!.publisher });
    expect(shown.dependencies.every((d: { state: string }) => d.state === 'unchanged')).toBe(true);
    const status = JSON.parse((await w.run(teamCacheStatusCommand, [w.server.url, '--json'], b)).out);
    expect(status).toMatchObject({ certificates: 1, lineages: [{ certificates: 1, newest: [{ certificate_id: list[0].certificate_id, predicate: 'implementation_location', subject: 'cli_option:--dry-run' }] }] });
    expect(status.bytes).toBeGreaterThan(0);
    // B does not publish back what it imported.
    expect((await w.server.query('SELECT count(*)::int AS n FROM needle_team_certificates'))[0]).toEqual({ n: 1 });
  });

  it("a certificate A published for one need serves another clone's different need on the same subject", async () => {
    const a = w.clone();
    await w.run(contextCommand, [...flow('cli_option:--dry-run'), '--team-cache', w.server.url], a);
    const predicates = (await w.server.query<{ predicate: string }>('SELECT predicate FROM needle_team_certificates ORDER BY predicate')).map((r) => r.predicate);
    expect(predicates).toEqual(['focused_tests', 'implementation_location']);
    const c = w.clone();
    const rc = brief((await w.run(contextCommand, [...tests('cli_option:--dry-run'), '--team-cache', w.server.url], c)).out);
    expect(rc).toMatchObject({ status: 'hit', workerSpawned: false, satisfied: ['focused_tests'] });
    expect(rc.context).toMatch(/focused test: npx vitest run test\/deploy.test.ts/);
  });

  it('B edits one byte of a dependency: no team hit, B resolves itself, nothing is counted as rejected', async () => {
    const b = w.clone();
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${b.root}/src/deploy.ts`, ' ');
    const rb = brief((await w.run(contextCommand, [...locate('cli_option:--dry-run'), '--team-cache', w.server.url], b)).out);
    expect(rb).toMatchObject({ status: 'generated', workerSpawned: true });
    const stats = JSON.parse((await w.run(statsCommand, ['--team', '--json'], b)).out);
    expect(stats).toMatchObject({ teamHits: 0, imported: 0, rejected: 0 });
  });

  it("B edits a byte of a supporting file only: A's primary-location claim still rests on unchanged bytes and serves B with zero workers", async () => {
    const b = w.clone();
    const { appendFileSync } = await import('node:fs');
    appendFileSync(`${b.root}/src/config.ts`, '\n');
    const rb = brief((await w.run(contextCommand, [...locate('cli_option:--dry-run'), '--team-cache', w.server.url], b)).out);
    expect(rb).toMatchObject({ status: 'hit', workerSpawned: false, satisfied: ['implementation_location'] });
    expect(rb.context).toMatch(/primary: src\/deploy.ts:5/);
    expect(rb.context).not.toMatch(/supporting: src\/config.ts/);
    const db = w.db(b);
    const imported = db.prepare('SELECT c.id, d.path FROM evidence_certificates c JOIN evidence_dependencies d ON d.certificate_id = c.id').all() as { path: string }[];
    db.close();
    expect(imported.map((r) => r.path)).toEqual(['src/deploy.ts']);
    const stats = JSON.parse((await w.run(statsCommand, ['--team', '--json'], b)).out);
    expect(stats).toMatchObject({ teamHits: 1, imported: 1, rejected: 0 });
  });

  describe('tampered rows', () => {
    let original: Row;
    let claims: Record<string, unknown>[];

    beforeAll(async () => {
      original = (await w.server.query<Row>("SELECT * FROM needle_team_certificates WHERE predicate = 'implementation_location'"))[0]!;
      claims = await w.server.query('SELECT * FROM needle_team_claims WHERE certificate_id = $1', [original.certificate_id]);
    });

    async function replaceWith(row: Row, claimRows = claims): Promise<void> {
      await w.server.query("DELETE FROM needle_team_claims WHERE certificate_id IN (SELECT certificate_id FROM needle_team_certificates WHERE predicate = 'implementation_location')");
      await w.server.query("DELETE FROM needle_team_certificates WHERE predicate = 'implementation_location'");
      const cols = Object.keys(row);
      await w.server.query(`INSERT INTO needle_team_certificates (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, cols.map((c) => row[c]));
      for (const k of claimRows) {
        const kc = Object.keys(k);
        await w.server.query(`INSERT INTO needle_team_claims (${kc.join(', ')}) VALUES (${kc.map((_, i) => `$${i + 1}`).join(', ')})`, kc.map((c) => (c === 'certificate_id' ? row.certificate_id : k[c])));
      }
    }

    /** A forgery whose identities all hold together: only the validators can catch it. */
    function consistent(payload: unknown, facets: Facets, deps: { path: string; digest: Digest }[] = JSON.parse(original.dependencies)): Row {
      const predicate = original.predicate as Predicate;
      const art = artifactId(predicate, original.subject_id as Digest, original.world_id as Digest, payload);
      const manifest = manifestDigest('worktree_semantic', null, deps);
      return {
        ...original,
        artifact_id: art,
        payload: JSON.stringify(payload),
        facets: JSON.stringify(facets),
        dependencies: JSON.stringify(deps),
        manifest_digest: manifest,
        certificate_id: certificateId(art, predicate, original.world_id as Digest, manifest, facets),
      };
    }

    const payload = () => JSON.parse(original.payload) as { locations: { role: string; path: string; symbol: string | null; start_line: number; end_line: number }[]; gaps: string[] };
    const facets = () => JSON.parse(original.facets) as Facets;

    const cases: [string, string, () => Row | Promise<Row>, ((r: Row) => Record<string, unknown>[])?][] = [
      ['a range moved (ids left alone)', 'forged_identity', () => {
        const p = payload();
        p.locations[0]!.end_line += 1;
        return { ...original, payload: JSON.stringify(p) };
      }],
      ['a dependency digest changed', 'forged_identity', () => {
        const deps = JSON.parse(original.dependencies) as { path: string; digest: string }[];
        deps[0]!.digest = `b3:${'0'.repeat(64)}`;
        return { ...original, dependencies: JSON.stringify(deps) };
      }],
      ['coverage widened (ids left alone)', 'forged_identity', () => ({ ...original, facets: JSON.stringify({ ...facets(), polarity: 'negative' }) })],
      ['a forged certificate pointing the primary at lines without the subject', 'validation', () => {
        const p = payload();
        const primary = p.locations.find((l) => l.role === 'primary')!;
        primary.start_line = 1;
        primary.end_line = 1;
        return consistent(p, facets());
      }],
      ['a forged excerpt: a symbol that is not in the cited lines', 'validation', () => {
        const p = payload();
        p.locations.find((l) => l.role === 'primary')!.symbol = 'launchMissiles';
        return consistent(p, facets());
      }],
      ['forged coverage: gaps recorded but the full facets claimed', 'coverage_or_manifest', () => {
        const p = payload();
        p.gaps = ['could not pin the construct'];
        return consistent(p, facets());
      }],
      ['claims that are not the payload’s', 'claims', () => original, (r) => claims.map((k, i) => (i === 0 ? { ...k, certificate_id: r.certificate_id, claim_id: `b3:${'1'.repeat(64)}` } : k))],
      ['a payload that is not JSON', 'malformed', () => ({ ...original, payload: '{"locations": [' })],
    ];

    for (const [name, reason, make, claimsOf] of cases) {
      it(`rejects ${name} (${reason}), counts it, never serves it and never retries it for the same bytes`, async () => {
        const row = await make();
        await replaceWith(row, claimsOf ? claimsOf(row) : claims);
        const d = w.clone();
        const args = [...locate('cli_option:--dry-run'), '--cache-only', '--team-cache', w.server.url];
        const first = await w.run(contextCommand, args, d);
        expect(brief(first.out)).toMatchObject({ status: 'bypass', workerSpawned: false, cacheHit: false });
        expect(first.err).toContain(`rejected remote certificate ${row.certificate_id} (${reason})`);
        const again = await w.run(contextCommand, args, d);
        expect(brief(again.out).status).toBe('bypass');
        expect(again.err).not.toContain('rejected remote certificate');
        const stats = JSON.parse((await w.run(statsCommand, ['--team', '--json'], d)).out);
        expect(stats).toMatchObject({ imported: 0, rejected: 1, rejectedByReason: { [reason]: 1 } });
        const db = w.db(d);
        expect(db.prepare('SELECT count(*) AS n FROM evidence_certificates').get()).toEqual({ n: 0 });
        db.close();
      });
    }

    it('the untampered row is accepted again once restored', async () => {
      await replaceWith(original);
      const d = w.clone();
      const r = brief((await w.run(contextCommand, [...locate('cli_option:--dry-run'), '--cache-only', '--team-cache', w.server.url], d)).out);
      expect(r).toMatchObject({ status: 'hit', workerSpawned: false });
    });
  });
});
