// `needle runs`: every worker run without opening SQLite — what the ladder ran
// for which need (static worker included) with outcome, duration, tokens and
// the rejected proposals with their reasons; and every model run (Codex,
// evidence and change roles) with its turns (initial, repair), approvals and
// the cleanup of its run directory.
import { openDataDir } from '../../store/datadir.js';
import { recentWorkerRuns } from '../../store/evidence/accounting.js';
import { RunsStore } from '../../workers/runs-store.js';
import { parseCommandArgs, resolveDataDir, stringOption, limitOption } from '../args.js';
import type { CliCommand } from '../command.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const short = (id: string) => (id.startsWith('b3:') ? id.slice(0, 15) : id);

export const runsCommand: CliCommand = {
  path: ['runs'],
  summary: 'recent worker runs (need, worker, model, outcome, duration, tokens, rejections, repair turns, cleanup)',
  help: `Usage: needle runs [--limit N] [--json] [--data-dir D]

Lists the most recent worker runs of need resolutions (every worker, the static
one included, with the rejected proposals and their reasons) and of model runs
(Codex evidence and change runs, with their turns and the cleanup of their run
directory), newest first (default ${DEFAULT_LIMIT} each, at most ${MAX_LIMIT}).
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { limit: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } });
    const limit = limitOption(values, DEFAULT_LIMIT, MAX_LIMIT);
    const data = openDataDir(resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd));
    let workerRuns;
    let modelRuns;
    try {
      workerRuns = recentWorkerRuns(data.db, limit);
      modelRuns = new RunsStore(data.db).recent(limit);
    } finally {
      data.db.close();
    }
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ worker_runs: workerRuns, model_runs: modelRuns }, null, 2)}\n`);
      return 0;
    }
    io.stdout.write(workerRuns.length === 0 ? 'no worker runs yet\n' : 'worker runs (need resolutions):\n');
    for (const r of workerRuns) {
      const tokens = r.inputTokens + r.outputTokens;
      io.stdout.write(
        `${iso(r.createdUnixMs)}  ${r.worker}${r.model ? ` (${r.model})` : ''}  ${r.outcome}  ${r.durationMs} ms  ${tokens} tokens  ${r.route} need ${short(r.needId)}\n`,
      );
      for (const x of r.rejections) io.stdout.write(`    rejected ${x.predicate ?? 'proposal'}: ${x.reasons.join('; ')}\n`);
    }
    io.stdout.write(modelRuns.length === 0 ? 'no model runs yet\n' : 'model runs:\n');
    for (const r of modelRuns) {
      const tokens = r.inputTokens + r.outputTokens;
      const cleanup = r.cleanupRemoved === null ? 'cleanup by the change' : r.cleanupRemoved ? 'run directory removed' : `cleanup failed: ${r.cleanupError ?? 'unknown'}`;
      const repairs = r.attempts.filter((a) => a.kind === 'repair').length;
      io.stdout.write(
        `${iso(r.startedUnixMs)}  ${r.worker} (${r.model ?? 'no model'})  ${r.outcome}  ${r.durationMs} ms  ${tokens} tokens  ${r.route ?? ''}${r.needId ? ` need ${short(r.needId)}` : ''}\n` +
          `    ${r.attempts.length} turn(s), ${repairs} repair(s); ${cleanup}${r.reason ? `; ${r.reason}` : ''}\n`,
      );
    }
    return 0;
  },
};
