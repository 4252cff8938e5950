// `needle needs`: the most recent resolutions — what was asked, how it was
// resolved, what is satisfied and missing, and whether a worker ran.
import { openDataDir } from '../../store/datadir.js';
import { recentResolutions } from '../../store/evidence/accounting.js';
import { parseCommandArgs, resolveDataDir, stringOption, limitOption } from '../args.js';
import type { CliCommand } from '../command.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

export const needsCommand: CliCommand = {
  path: ['needs'],
  summary: 'recent need resolutions (route, subject, resolution, satisfied/missing, workers)',
  help: `Usage: needle needs [--limit N] [--json] [--data-dir D]

Lists the most recent resolutions, newest first (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { limit: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } });
    const limit = limitOption(values, DEFAULT_LIMIT, MAX_LIMIT);
    const data = openDataDir(resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd));
    let rows;
    try {
      rows = recentResolutions(data.db, limit);
    } finally {
      data.db.close();
    }
    if (values.json) {
      io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) io.stdout.write('no needs resolved yet\n');
    for (const r of rows) {
      const when = new Date(r.createdUnixMs).toISOString().replace(/\.\d+Z$/, 'Z');
      const workers = r.workersRun === 0 ? 'no worker' : `${r.workersRun} worker(s)`;
      io.stdout.write(
        `${when}  ${r.kind.padEnd(19)} ${r.route} ${r.subject}\n    satisfied: ${r.satisfied.join(', ') || 'none'}  missing: ${r.missing.join(', ') || 'none'}  ${workers}, ${r.contextBytes} B context, ${r.durationMs} ms\n`,
      );
    }
    return 0;
  },
};
