import { initDataDir } from '../../store/datadir.js';
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import type { CliCommand } from '../command.js';

export const initCommand: CliCommand = {
  path: ['init'],
  summary: 'create the data directory (SQLite store, routes, built-in role profile local)',
  help: `Usage: needle init [--data-dir D]

Creates the data directory with its SQLite store, the three built-in routes
(enabled) and the built-in role profile \`${BUILTIN_PROFILE_ID}\` (explorer: static; no
implementer, no verifier), active. Running it again changes nothing.

Options:
  --data-dir D  data directory (default: $NEEDLE_DATA_DIR, $XDG_DATA_HOME/needle, ~/.local/share/needle)
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { 'data-dir': { type: 'string' } });
    const dataDir = resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd);
    const { created } = initDataDir(dataDir);
    io.stdout.write(created ? `initialized ${dataDir} (active role profile: ${BUILTIN_PROFILE_ID})\n` : `${dataDir} is already initialized\n`);
    return 0;
  },
};
