import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDigest } from '../../core/digest.js';
import { SchemaError } from '../../core/schema.js';
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { dbFileOf } from '../../store/datadir.js';
import { openDb, StoreError, type Db } from '../../store/db.js';
import {
  activateProfile,
  activateRevision,
  createProfileRevision,
  getActiveProfile,
  listProfiles,
} from '../../store/profiles.js';
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

function readDocument(file: string, io: CliIO): unknown {
  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(resolve(io.cwd, file), 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
}

export const profileCreateCommand: CliCommand = {
  path: ['profile', 'create'],
  summary: 'store a new immutable revision of a role profile from a JSON file',
  help: `Usage: needle profile create ID --file PROFILE.json [--activate] [--data-dir D]

Validates the document (see README "Role profiles"), stores it as an immutable
revision addressed by its digest and prints the digest. A new profile's first
revision becomes active; for an existing profile pass --activate (or run
needle profile activate). Documents that contain anything looking like a
credential are refused: adapters read keys from the environment at run time.
Use --file - to read the document from stdin.
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { 'data-dir': { type: 'string' }, file: { type: 'string' }, activate: { type: 'boolean' } },
      1,
    );
    if (positionals.length !== 1) throw new UsageError('profile create needs exactly one profile ID');
    const id = checkProfileId(positionals[0]!, 'profile id');
    const file = stringOption(values, 'file');
    if (file === undefined) throw new UsageError('missing --file PROFILE.json');
    const doc = readDocument(file, io);
    const result = withStore(stringOption(values, 'data-dir'), io, (db) => {
      try {
        return db.transaction(() => {
          const digest = createProfileRevision(db, id, doc as never);
          const isNew = getActiveProfile(db, id) === null;
          if (isNew || values.activate === true) activateProfile(db, id, digest);
          return { digest, active: isNew || values.activate === true };
        })();
      } catch (e) {
        if (e instanceof SchemaError || e instanceof StoreError) throw new UsageError(e.message);
        throw e;
      }
    });
    io.stdout.write(`${id} ${result.digest}${result.active ? ' (active)' : ''}\n`);
    return 0;
  },
};

export const profileActivateCommand: CliCommand = {
  path: ['profile', 'activate'],
  summary: 'make a revision of a role profile the active one (new connections only)',
  help: `Usage: needle profile activate ID [--revision DIGEST] [--data-dir D]

Makes DIGEST (default: the most recently created revision) the active revision
of role profile ID. Running MCP connections keep the revision they froze at
startup; new connections use the new one.
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, { 'data-dir': { type: 'string' }, revision: { type: 'string' } }, 1);
    if (positionals.length !== 1) throw new UsageError('profile activate needs exactly one profile ID');
    const id = checkProfileId(positionals[0]!, 'profile id');
    const revision = stringOption(values, 'revision');
    if (revision !== undefined && !isDigest(revision)) throw new UsageError('--revision must be a b3: digest (see needle profile list)');
    const digest = withStore(stringOption(values, 'data-dir'), io, (db) => {
      try {
        return activateRevision(db, id, revision);
      } catch (e) {
        if (e instanceof StoreError) throw new UsageError(e.message);
        throw e;
      }
    });
    io.stdout.write(`${id} ${digest} (active)\n`);
    return 0;
  },
};
