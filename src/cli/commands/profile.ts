import { existsSync } from 'node:fs';
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { dbFileOf } from '../../store/datadir.js';
import { openDb, type Db } from '../../store/db.js';
import { getActiveProfile, listProfiles } from '../../store/profiles.js';
import { checkProfileId, parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';

/** Opens an existing data directory for reading; profile commands never create one. */
function withStore<T>(dataDirFlag: string | undefined, io: CliIO, use: (db: Db) => T): T {
  const dataDir = resolveDataDir(dataDirFlag, io.env, io.cwd);
  if (!existsSync(dbFileOf(dataDir))) throw new UsageError(`${dataDir} is not initialized; run needle init`);
  const db = openDb(dbFileOf(dataDir));
  try {
    return use(db);
  } finally {
    db.close();
  }
}

export const profileListCommand: CliCommand = {
  path: ['profile', 'list'],
  summary: 'list role profiles with their active revision',
  help: `Usage: needle profile list [--data-dir D] [--json]

One line per role profile: id, active revision digest, number of revisions.
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { 'data-dir': { type: 'string' }, json: { type: 'boolean' } });
    const profiles = withStore(stringOption(values, 'data-dir'), io, listProfiles);
    if (values.json === true) io.stdout.write(`${JSON.stringify({ profiles }, null, 2)}\n`);
    else for (const p of profiles) io.stdout.write(`${p.id}  ${p.activeDigest}  ${p.revisions} revision(s)\n`);
    return 0;
  },
};

export const profileShowCommand: CliCommand = {
  path: ['profile', 'show'],
  summary: 'show the active revision of a role profile',
  help: `Usage: needle profile show [ID] [--data-dir D]

Prints the active revision of role profile ID (default: ${BUILTIN_PROFILE_ID}) as JSON:
its id, revision digest and document. Profiles never contain credentials.
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, { 'data-dir': { type: 'string' } }, 1);
    const id = checkProfileId(positionals[0] ?? BUILTIN_PROFILE_ID, 'profile id');
    const active = withStore(stringOption(values, 'data-dir'), io, (db) => getActiveProfile(db, id));
    if (!active) throw new UsageError(`role profile ${id} does not exist; see needle profile list`);
    io.stdout.write(`${JSON.stringify({ id: active.profileId, digest: active.digest, document: active.document }, null, 2)}\n`);
    return 0;
  },
};
