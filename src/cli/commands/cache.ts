// `needle cache list|show|invalidate`: what the proof-gated cache holds, whether
// each certificate still holds against the current bytes, and the replay
// validity of the sufficiency certificates that used it.
import { findRepositoryRoot } from '../../repo/snapshot.js';
import { captureSnapshot } from '../../repo/snapshot.js';
import { FreshnessChecker } from '../../resolve/freshness.js';
import { replaySufficiency } from '../../resolve/sufficiency.js';
import { openDataDir } from '../../store/datadir.js';
import type { Db } from '../../store/db.js';
import { sufficiencyUsing } from '../../store/evidence/accounting.js';
import { getCertificate, invalidate, listCertificates, loadClaims, type CertificateRow } from '../../store/evidence/certificates.js';
import { importOf } from '../../store/team.js';
import { validatorDefinition } from '../../validate/certificate.js';
import { parseCommandArgs, resolveDataDir, safeEcho, stringOption, type OptionSpec } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';

const COMMON: OptionSpec = { 'data-dir': { type: 'string' }, repository: { type: 'string' }, json: { type: 'boolean' } };
const LIST_LIMIT = 50;

interface Checker {
  readonly freshness: FreshnessChecker;
  readonly snapshotDigest: () => ReturnType<typeof captureSnapshot>['sourceDigest'];
}

/** The repository to check freshness against; null when the cwd is not inside one and none was given. */
function checkerFor(values: Record<string, unknown>, io: CliIO): Checker | null {
  const flag = stringOption(values as Record<string, string | boolean | undefined>, 'repository');
  let root: string;
  try {
    root = findRepositoryRoot(flag ?? io.cwd);
  } catch (e) {
    if (flag) throw new UsageError((e as Error).message);
    return null;
  }
  let snapshot: ReturnType<typeof captureSnapshot>['sourceDigest'] | null = null;
  return { freshness: new FreshnessChecker(root), snapshotDigest: () => (snapshot ??= captureSnapshot(root).sourceDigest) };
}

function status(c: CertificateRow, checker: Checker | null): string {
  if (c.invalidatedUnixMs !== null) return 'invalidated';
  if (c.validatorDefinition !== validatorDefinition(c.predicate)) return 'outdated-validator';
  if (!checker) return 'unknown';
  if (c.scope === 'snapshot_exact' && c.snapshotDigest !== checker.snapshotDigest()) return 'stale';
  return checker.freshness.isFresh(c.dependencies) ? 'fresh' : 'stale';
}

function withDb<T>(values: Record<string, unknown>, io: CliIO, f: (db: Db) => T): T {
  const data = openDataDir(resolveDataDir(stringOption(values as Record<string, string | undefined>, 'data-dir'), io.env, io.cwd));
  try {
    return f(data.db);
  } finally {
    data.db.close();
  }
}

const time = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

export const cacheListCommand: CliCommand = {
  path: ['cache', 'list'],
  summary: 'list certified evidence with its freshness against the current repository',
  help: `Usage: needle cache list [--json] [--repository R] [--data-dir D]

Lists the ${LIST_LIMIT} most recent certificates: id, predicate, subject, scope and status
(fresh, stale, invalidated, outdated-validator; unknown outside a repository).
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, COMMON);
    const checker = checkerFor(values, io);
    const rows = withDb(values, io, (db) => listCertificates(db, LIST_LIMIT)).map((c) => ({
      certificate_id: c.certificateId,
      artifact_id: c.artifactId,
      predicate: c.predicate,
      subject: `${c.subjectKind}:${c.subjectName}`,
      scope: c.scope,
      status: status(c, checker),
      issued: time(c.issuedUnixMs),
    }));
    if (values.json) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) io.stdout.write('no certified evidence yet\n');
    else for (const r of rows) io.stdout.write(`${r.certificate_id}  ${r.status.padEnd(11)} ${r.predicate.padEnd(23)} ${r.subject}  (${r.scope}, ${r.issued})\n`);
    return 0;
  },
};

export const cacheShowCommand: CliCommand = {
  path: ['cache', 'show'],
  summary: 'show one certificate, its dependencies and the replay validity of its sufficiency certificates',
  help: `Usage: needle cache show ID [--json] [--repository R] [--data-dir D]

ID is a certificate or artifact id (b3:…). Shows the evidence, the dependency
manifest with each file's current state, the claims, and whether the
sufficiency certificates that served it still replay (no model is run).
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, COMMON, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('cache show needs a certificate or artifact id');
    const checker = checkerFor(values, io);
    const shown = withDb(values, io, (db) => {
      const c = getCertificate(db, id);
      if (!c) return null;
      const replays = checker
        ? sufficiencyUsing(db, c.certificateId, 5).map((s) => ({ id: s.id, kind: s.kind, ...replaySufficiency({ db, ...checker }, s) }))
        : [];
      return {
        certificate_id: c.certificateId,
        artifact_id: c.artifactId,
        predicate: c.predicate,
        subject: `${c.subjectKind}:${c.subjectName}`,
        facets: c.facets,
        scope: c.scope,
        status: status(c, checker),
        invalidated_reason: c.invalidatedReason,
        issued: time(c.issuedUnixMs),
        // Imported from a team cache after local re-validation: where from (URL masked) and who published it.
        origin: ((o) => (o ? { team_cache: o.origin, publisher: o.publisher, imported: time(o.importedUnixMs) } : 'local'))(importOf(db, c.certificateId)),
        payload: c.payload,
        dependencies: c.dependencies.map((d) => ({
          path: d.path,
          digest: d.digest,
          state: checker ? (checker.freshness.digestOf(d.path) === null ? 'missing' : checker.freshness.digestOf(d.path) === d.digest ? 'unchanged' : 'changed') : 'unknown',
        })),
        claims: loadClaims(db, c.certificateId).map((k) => ({ id: k.claimId, kind: k.kind, fresh: checker ? checker.freshness.isFresh(k.dependencies) : null })),
        sufficiency: replays.map((r) => ({ id: r.id, kind: r.kind, replay_valid: r.valid, reasons: r.reasons })),
      };
    });
    if (!shown) {
      io.stderr.write(`no certified evidence with id ${safeEcho(id)}\n`);
      return 1;
    }
    if (values.json) {
      io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
      return 0;
    }
    const lines = [
      `certificate ${shown.certificate_id}`,
      `artifact    ${shown.artifact_id}`,
      `evidence    ${shown.predicate} for ${shown.subject} (${Object.values(shown.facets).join(', ')})`,
      `scope       ${shown.scope}, issued ${shown.issued}`,
      `origin      ${typeof shown.origin === 'string' ? shown.origin : `team cache ${shown.origin.team_cache} (published by ${shown.origin.publisher}), imported ${shown.origin.imported} after local re-validation`}`,
      `status      ${shown.status}${shown.invalidated_reason ? ` (${shown.invalidated_reason})` : ''}`,
      'dependencies:',
      ...shown.dependencies.map((d) => `  ${d.state.padEnd(9)} ${d.path}`),
      `claims: ${shown.claims.length} (${shown.claims.filter((k) => k.fresh).length} fresh)`,
      'sufficiency certificates:',
      ...(shown.sufficiency.length === 0
        ? ['  none (or no repository to replay against)']
        : shown.sufficiency.map((s) => `  ${s.id.slice(0, 19)} ${s.kind}: replay ${s.replay_valid ? 'valid' : `invalid — ${s.reasons.join('; ')}`}`)),
      'payload:',
      JSON.stringify(shown.payload, null, 2).replace(/^/gm, '  '),
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
};

export const cacheInvalidateCommand: CliCommand = {
  path: ['cache', 'invalidate'],
  summary: 'stop serving a certificate (or every certificate of an artifact)',
  help: `Usage: needle cache invalidate ID [--data-dir D]

Marks the certificate, or every certificate of the artifact, invalidated. It is
never served again; a contradiction it was part of is resolved.
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, { 'data-dir': { type: 'string' } }, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('cache invalidate needs a certificate or artifact id');
    const n = withDb(values, io, (db) => invalidate(db, id, 'invalidated by needle cache invalidate', Date.now()));
    if (n === 0) {
      io.stderr.write(`no servable certificate with id ${safeEcho(id)}\n`);
      return 1;
    }
    io.stdout.write(`invalidated ${n} certificate(s)\n`);
    return 0;
  },
};
