// `needle context`: the same resolution as the need_context tool, from the
// shell. Human output is the FrontierView; --json prints exactly the
// structuredContent the MCP tool would return.
import { LEDGER, NEED } from '../../core/limits.js';
import { compileNeed, DEFAULT_WORLD, NeedCompileError, type CompiledNeed } from '../../core/need.js';
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { UNSAFE_KINDS, type EngineResult } from '../../core/resolution.js';
import { PREDICATES, ROUTE_IDS, SUBJECT_KINDS, type Capability, type Predicate, type RouteId, type SubjectKind } from '../../core/semantic.js';
import { projectNeedResult } from '../../mcp/result.js';
import { locateRepository } from '../../repo/snapshot.js';
import { openDataDir } from '../../store/datadir.js';
import { getActiveProfile } from '../../store/profiles.js';
import { checkProfileId, parseCommandArgs, resolveDataDir, safeEcho, stringOption } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';
import { createSessionEngine, openTeamCache } from '../engine.js';
import { flushBookkeeping } from '../../store/bookkeeping.js';

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got \`${safeEcho(value)}\``);
  return value as T;
}

function capabilities(values: unknown, flag: string, max: number): Capability[] {
  const list = Array.isArray(values) ? (values as string[]) : [];
  if (list.length > max) throw new UsageError(`at most ${max} ${flag} options`);
  const kinds = list.map((v) => oneOf<Predicate>(v, PREDICATES, flag));
  const dup = kinds.find((k, i) => kinds.indexOf(k) !== i);
  if (dup) throw new UsageError(`${flag} ${dup} given twice`);
  return kinds.map((kind) => ({ kind, facets: {} }));
}

function subjectOf(text: string): { kind: SubjectKind; name: string } {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new UsageError('--subject must be kind:name, e.g. cli_option:--dry-run');
  const kind = oneOf<SubjectKind>(text.slice(0, colon), SUBJECT_KINDS, '--subject kind');
  const name = text.slice(colon + 1);
  if (!/\S/.test(name)) throw new UsageError('--subject name must not be blank');
  if (Buffer.byteLength(name) > NEED.subjectNameMaxBytes) throw new UsageError(`--subject name must be at most ${NEED.subjectNameMaxBytes} bytes`);
  return { kind, name };
}

function human(need: CompiledNeed, r: EngineResult): string {
  if (r.context && !UNSAFE_KINDS.has(r.resolution.kind)) return `${r.context}\n`;
  const reason = 'reason' in r.resolution ? `: ${r.resolution.reason}` : '';
  return `${need.route} ${need.subject.kind}:${need.subject.name} → ${r.resolution.kind}${reason}\n`;
}

export const contextCommand: CliCommand = {
  path: ['context'],
  summary: 'resolve a need from the shell and print the FrontierView (or --json)',
  help: `Usage: needle context --route R --subject kind:name [--require P]... [--prefer P]...
                      [--task T] [--json] [--cache-only] [--repository R] [--data-dir D] [--role-profile ID]
                      [--team-cache URL]

Resolves one typed need exactly as the need_context MCP tool does: certified
evidence from the cache when its proof holds, otherwise the explorer ladder
for what is missing. Prints the FrontierView; --json prints the MCP
structuredContent.

Options:
  --route R          ${ROUTE_IDS.join(' | ')}
  --subject K:NAME   kind one of ${SUBJECT_KINDS.join(', ')}
  --require P        extra required predicate (${PREDICATES.join(', ')}); up to ${NEED.maxRequired}
  --prefer P         preferred predicate; up to ${NEED.maxPreferred}
  --task T           what the evidence is for (anchors it names beyond the subject are reported as not covered)
  --json             print the structured result
  --cache-only       serve only certified evidence; run no worker
  --repository R     repository (default: the current directory's work tree)
  --data-dir D       data directory
  --role-profile ID  role profile (default ${BUILTIN_PROFILE_ID})
  --team-cache URL   PostgreSQL team cache (default: $NEEDLE_TEAM_CACHE); password from PGPASSWORD or ~/.pgpass
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      route: { type: 'string' },
      subject: { type: 'string' },
      require: { type: 'string', multiple: true },
      prefer: { type: 'string', multiple: true },
      task: { type: 'string' },
      json: { type: 'boolean' },
      'cache-only': { type: 'boolean' },
      repository: { type: 'string' },
      'data-dir': { type: 'string' },
      'role-profile': { type: 'string' },
      'team-cache': { type: 'string' },
    });
    const routeText = stringOption(values, 'route');
    const subjectText = stringOption(values, 'subject');
    if (!routeText) throw new UsageError('--route is required');
    if (!subjectText) throw new UsageError('--subject is required');
    const route = oneOf<RouteId>(routeText, ROUTE_IDS, '--route');
    const subject = subjectOf(subjectText);
    const required = capabilities(values.require, '--require', NEED.maxRequired);
    const preferred = capabilities(values.prefer, '--prefer', NEED.maxPreferred);
    const both = required.find((c) => preferred.some((p) => p.kind === c.kind));
    if (both) throw new UsageError(`${both.kind} is both required and preferred`);
    const task = stringOption(values, 'task') ?? `context for ${subject.name}`;
    if (!/\S/.test(task) || Buffer.byteLength(task) > NEED.taskMaxBytes) throw new UsageError(`--task must be 1..${NEED.taskMaxBytes} bytes of text`);

    const { root, lineage } = locateRepository(stringOption(values, 'repository') ?? io.cwd);
    let need: CompiledNeed;
    try {
      need = compileNeed({ route, subject, required, preferred, world: DEFAULT_WORLD, task }, lineage);
    } catch (e) {
      if (e instanceof NeedCompileError) throw new UsageError(e.message);
      throw e;
    }
    const profileId = checkProfileId(stringOption(values, 'role-profile') ?? BUILTIN_PROFILE_ID);
    const data = openDataDir(resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd));
    try {
      if (data.created) io.stderr.write(`initialized ${data.dataDir} with defaults\n`);
      const profile = getActiveProfile(data.db, profileId);
      if (!profile) throw new UsageError(`no role profile ${profileId} (see needle profile list)`);
      const base = { db: data.db, dataDir: data.dataDir, repositoryRoot: root, profile: profile.document, env: io.env };
      const team = openTeamCache(stringOption(values, 'team-cache'), base, (line) => io.stderr.write(`needle: ${line}\n`), (m) => new UsageError(m));
      const engine = createSessionEngine({ ...base, team });
      const abort = new AbortController();
      const onSigint = () => abort.abort(new Error('cancelled'));
      process.once('SIGINT', onSigint);
      let result: EngineResult;
      try {
        result = await engine.resolve(need, {
          cacheOnly: values['cache-only'] === true,
          modelWorkersLeft: profile.document.limits?.max_workers ?? LEDGER.defaultMaxWorkers,
          signal: abort.signal,
          onProgress: io.interactive ? (p) => io.stderr.write(`… ${p.message}\n`) : undefined,
        });
      } finally {
        process.off('SIGINT', onSigint);
      }
      io.stdout.write(values.json ? `${JSON.stringify(projectNeedResult(need, { ordinal: 1, relation: 'independent' }, result), null, 2)}\n` : human(need, result));
      // The answer is out; publications it queued finish (bounded) before the store closes.
      await team?.close();
      return 0;
    } finally {
      flushBookkeeping(data.db);
      data.db.close();
    }
  },
};
