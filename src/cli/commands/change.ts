// `needle change list|show|diff|apply` (SPEC §14): review prepared changes and
// apply a verified one explicitly. Apply is the only path from a change to the
// user's worktree, and it needs the digest `show` prints.
import { parseCommandArgs, resolveDataDir, stringOption, type OptionSpec, limitOption } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { openDataDir } from '../../store/datadir.js';
import { findRepositoryRoot } from '../../repo/snapshot.js';
import { applyChange } from '../../changes/apply.js';
import { patchDiff } from '../../changes/diff-text.js';
import { parseChangeId } from '../../changes/identity.js';
import { currentChangeDigest, latestVerification, listChanges, loadChange, loadPatch, type ChangeRow } from '../../changes/store.js';
import type { Db } from '../../store/db.js';

const COMMON: OptionSpec = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
};

const HELP = `Usage:
  needle change list [--limit N] [--json]
  needle change show ID [--json]
  needle change diff ID
  needle change apply ID --if-match DIGEST [--repository R] [--json]

Prepared changes live in the data directory; nothing reaches your worktree
until you apply a verified change. \`show\` prints the change digest that
\`apply --if-match\` must quote, so what you reviewed is what gets applied.
Apply refuses unless the change is verified and the worktree snapshot equals
the one the change was prepared from. It writes files only: no staging,
commit or push.

Options:
  --data-dir D      data directory (default: NEEDLE_DATA_DIR, $XDG_DATA_HOME/needle, ~/.local/share/needle)
  --repository R    repository to apply to (default: the current directory)
  --if-match DIGEST the change digest shown by \`needle change show\`
  --limit N         list at most N changes (default 50)
  --json            machine-readable output on stdout
`;

function withDb<T>(values: Record<string, string | boolean | undefined>, io: CliIO, use: (db: Db) => T): T {
  const { db } = openDataDir(resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

function requireChange(db: Db, raw: string | undefined): ChangeRow {
  if (!raw) throw new UsageError('missing change id');
  const id = parseChangeId(raw);
  if (!id) throw new UsageError('change id must look like chg_<24 hex>');
  const change = loadChange(db, id);
  if (!change) throw new Error(`unknown change ${id}`);
  return change;
}

const firstLine = (s: string, max: number) => {
  const line = s.split('\n', 1)[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function describe(db: Db, change: ChangeRow) {
  const patch = change.latestRevision > 0 ? loadPatch(db, change.changeId, change.latestRevision) : null;
  const v = change.latestRevision > 0 ? latestVerification(db, change.changeId, change.latestRevision) : null;
  return {
    change_id: change.changeId,
    state: change.state,
    revision: change.latestRevision,
    repair_attempted: change.repairAttempted,
    repository: change.repositoryRoot,
    base_source_digest: change.base,
    change_digest: currentChangeDigest(db, change),
    task: change.request.task,
    acceptance_criteria: change.request.acceptance_criteria,
    allowed_paths: change.request.allowed_paths,
    failure: change.failureRule ? { rule: change.failureRule, message: change.failureMessage } : null,
    patch: patch && {
      patch_id: patch.patchId,
      summary: patch.summary,
      files: patch.files.map((f) => ({ path: f.path, operation: f.operation, before_bytes: f.before?.length ?? 0, after_bytes: f.after?.length ?? 0 })),
      discrepancies: patch.discrepancies,
    },
    verification: v && { verification_id: v.verificationId, verdict: v.verdict, findings: v.body.findings, test_plan_results: v.body.test_plan_results },
  };
}

function showText(d: ReturnType<typeof describe>): string {
  const out = [
    `change    ${d.change_id}  (${d.state}, revision ${d.revision}${d.repair_attempted ? ', repair used' : ''})`,
    `repo      ${d.repository}`,
    `digest    ${d.change_digest}`,
    `task      ${firstLine(d.task, 100)}`,
    ...d.acceptance_criteria.map((c) => `criterion ${firstLine(c, 100)}`),
  ];
  if (d.failure) out.push(`failed    ${d.failure.rule}: ${d.failure.message ?? ''}`);
  if (d.patch) {
    out.push(`patch     ${d.patch.patch_id}`, `summary   ${firstLine(d.patch.summary, 100)}`);
    for (const f of d.patch.files) out.push(`  ${f.operation.padEnd(6)} ${f.path}`);
  }
  if (d.verification) {
    out.push(`verdict   ${d.verification.verdict}`);
    for (const f of d.verification.findings) out.push(`  finding ${firstLine(f, 120)}`);
    for (const t of d.verification.test_plan_results) out.push(`  test ${t.passed ? 'passed' : 'not passed'} ${t.argv.join(' ')}${t.failure_reason ? ` (${t.failure_reason})` : ''}`);
  }
  if (d.state === 'verified') out.push('', `apply with: needle change apply ${d.change_id} --if-match ${d.change_digest}`);
  return out.join('\n') + '\n';
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const print = (json: boolean, value: unknown, text: string) => io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);
  switch (sub) {
    case 'list': {
      const { values } = parseCommandArgs(rest, { ...COMMON, limit: { type: 'string' } });
      const limit = limitOption(values, 50, 1000);
      return withDb(values, io, (db) => {
        const rows = listChanges(db, null, limit);
        const text = rows.length
          ? rows.map((c) => `${c.changeId}  ${c.state.padEnd(12)} r${c.latestRevision}  ${new Date(c.createdMs).toISOString()}  ${firstLine(c.request.task, 60)}`).join('\n') + '\n'
          : 'no changes\n';
        print(values.json === true, rows.map((c) => ({ change_id: c.changeId, state: c.state, revision: c.latestRevision, created_unix_ms: c.createdMs, repository: c.repositoryRoot, task: c.request.task })), text);
        return 0;
      });
    }
    case 'show': {
      const { values, positionals } = parseCommandArgs(rest, COMMON, 1);
      return withDb(values, io, (db) => {
        const d = describe(db, requireChange(db, positionals[0]));
        print(values.json === true, d, showText(d));
        return 0;
      });
    }
    case 'diff': {
      const { values, positionals } = parseCommandArgs(rest, { 'data-dir': COMMON['data-dir']! }, 1);
      return withDb(values, io, (db) => {
        const change = requireChange(db, positionals[0]);
        const patch = change.latestRevision > 0 ? loadPatch(db, change.changeId, change.latestRevision) : null;
        if (!patch) throw new Error(`change ${change.changeId} has no patch (state: ${change.state})`);
        io.stdout.write(patchDiff(patch.files));
        return 0;
      });
    }
    case 'apply': {
      const { values, positionals } = parseCommandArgs(rest, { ...COMMON, 'if-match': { type: 'string' }, repository: { type: 'string' } }, 1);
      const ifMatch = stringOption(values, 'if-match');
      if (!ifMatch) throw new UsageError('apply needs --if-match DIGEST (the change digest from `needle change show ID`)');
      if (!positionals[0]) throw new UsageError('missing change id');
      const repo = findRepositoryRoot(stringOption(values, 'repository') ?? io.cwd);
      return withDb(values, io, (db) => {
        const r = applyChange(db, repo, positionals[0]!, ifMatch);
        print(values.json === true, r, `applied ${r.change_id} (revision ${r.revision}) to ${repo}:\n${r.files.map((f) => `  ${f.operation.padEnd(6)} ${f.path}`).join('\n')}\nNothing was staged or committed.\n`);
        return 0;
      });
    }
    default:
      throw new UsageError(sub ? `unknown change subcommand \`${firstLine(sub, 40)}\`; use list, show, diff or apply` : 'missing subcommand: list, show, diff or apply');
  }
}

export const changeCommand: CliCommand = {
  path: ['change'],
  summary: 'review prepared changes and apply a verified one (list, show, diff, apply)',
  help: HELP,
  run,
};
