// `needle stats`: per route and model, how many resolutions were hits, how
// many worker runs happened, and what the hits avoided — worker runs, tokens
// and cost taken from the original runs' recorded usage (unknown price stays
// unknown, never guessed).
import { openDataDir } from '../../store/datadir.js';
import { stats, type StatsRow } from '../../store/evidence/accounting.js';
import { teamStats, type TeamStats } from '../../store/team.js';
import { parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import type { CliCommand } from '../command.js';

const usd = (v: number | null) => (v === null ? 'unknown' : `$${v.toFixed(4)}`);

function line(r: StatsRow): string {
  if (r.model === '*') return `${r.route}: ${r.resolutions} resolution(s), ${r.hits} zero-worker hit(s)`;
  return `  ${r.model}: ${r.workerRuns} run(s), ${r.tokensSpent} token(s), costing ${usd(r.costSpentUsd)}; hits avoided ${r.workersAvoided} run(s), ${r.tokensAvoided} token(s), ${usd(r.costAvoidedUsd)}`;
}

function teamLine(t: TeamStats): string {
  const why = Object.entries(t.rejectedByReason).map(([r, n]) => `${r} ${n}`).join(', ');
  return `team cache: ${t.teamHits} team hit(s), ${t.imported} certificate(s) imported after local re-validation (their publishers spent ${t.tokensAvoided} token(s), ${usd(t.costAvoidedUsd)}), ${t.published} published, ${t.rejected} remote row(s) rejected${why ? ` (${why})` : ''}, ${t.unreachable} time(s) unreachable or late`;
}

export const statsCommand: CliCommand = {
  path: ['stats'],
  summary: 'hits, workers avoided, tokens and cost avoided, per route and model',
  help: `Usage: needle stats [--json] [--team] [--data-dir D]

Sums the accounting rows: per route, resolutions and zero-worker hits; per
route and model (or worker, for the static worker), runs and their cost, and
what hits avoided by reusing certified evidence. With --team: the team
cache's counts (team hits, certificates imported, rows published, remote rows
rejected and why).
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { json: { type: 'boolean' }, team: { type: 'boolean' }, 'data-dir': { type: 'string' } });
    const data = openDataDir(resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd));
    let rows: StatsRow[];
    let team: TeamStats;
    try {
      rows = stats(data.db);
      team = teamStats(data.db);
    } finally {
      data.db.close();
    }
    if (values.team) io.stdout.write(values.json ? `${JSON.stringify(team, null, 2)}\n` : `${teamLine(team)}\n`);
    else if (values.json) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) io.stdout.write('nothing resolved yet\n');
    else {
      const ordered = [...rows].sort((a, b) => (a.route === b.route ? (a.model === '*' ? -1 : b.model === '*' ? 1 : a.model < b.model ? -1 : 1) : a.route < b.route ? -1 : 1));
      io.stdout.write(`${ordered.map(line).join('\n')}\n`);
      if (team.imported + team.published + team.rejected + team.unreachable > 0) io.stdout.write(`${teamLine(team)}\n`);
    }
    return 0;
  },
};
