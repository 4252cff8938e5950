import { constants as osConstants } from 'node:os';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { StoreError } from '../../store/db.js';
import { openDataDir } from '../../store/datadir.js';
import { FreezeError, freezeRepository, freezeSession, type FrozenRepository } from '../../mcp/freeze.js';
import { McpSession } from '../../mcp/session.js';
import { serveStdio } from '../../mcp/stdio.js';
import { descriptorSource, streamSource } from '../../mcp/stdin-source.js';
import { WorktreeWatch } from '../../repo/worktree-watch.js';
import { gitEnvironment, runGitAsyncThrough, runGitThrough } from '../../repo/git.js';
import { startGitHelpers } from '../../repo/git-helper.js';
import { ANALYZER_THREAD, SNAPSHOT_GC } from '../../core/limits.js';
import { quietGate } from '../../mcp/quiet.js';
import { checkModel, checkProfileId, parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';
import { createServerEngine, createSessionChangeTools, openTeamCache, startupRecovery } from '../engine.js';
import { withStageHook } from '../stage-hook.js';
import { afterSnapshot, fullGarbageCollector } from '../garbage.js';
import { flushBookkeeping } from '../../store/bookkeeping.js';

const DEFAULT_MAIN_MODEL = 'unknown';

/** Signals a client stops its server with: the queued bookkeeping rows are committed first. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Everything the server loads before it answers is compiled lazily to
 * bytecode, as usual. Functions first run after that — a need's answer path —
 * also get baseline machine code at once (V8's Sparkplug): a short-lived
 * server answers a handful of needs, too few for V8 to tier them up itself,
 * and the interpreter roughly doubled a remembered hit's time (measured with
 * `npm run bench -- evidence`). Set after start-up, so that loading (which the
 * client waits for) compiles no more than before.
 */
function compileAnswerPathEagerly(): void {
  setFlagsFromString('--always-sparkplug');
}

export const mcpServeCommand: CliCommand = {
  path: ['mcp', 'serve'],
  summary: 'run the MCP stdio server for one repository',
  help: `Usage: needle mcp serve --role-profile ID [--data-dir D] [--repository R] [--main-model M] [--cache-only]
                        [--team-cache URL]

Serves need_context (and, when the role profile has an implementer and a
verifier, prepare_change and verify_change) over newline-delimited JSON-RPC on
stdin/stdout. Diagnostics go to stderr. The connection freezes the repository,
the profile's active revision, the enabled routes, the model and the limits.

Options:
  --role-profile ID  role profile to use (required; see needle profile list)
  --data-dir D       data directory (default: $NEEDLE_DATA_DIR, $XDG_DATA_HOME/needle,
                     ~/.local/share/needle); initialized with defaults if new
  --repository R     repository (default: the current directory); must be in a git work tree
  --main-model M     the main model's name, recorded with the session (default: ${DEFAULT_MAIN_MODEL})
  --cache-only       serve certified evidence only: no workers, no change tools
  --team-cache URL   share certified evidence through PostgreSQL (default: $NEEDLE_TEAM_CACHE);
                     postgres://user@host:5432/db, password from PGPASSWORD or ~/.pgpass
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, {
      'role-profile': { type: 'string' },
      'data-dir': { type: 'string' },
      repository: { type: 'string' },
      'main-model': { type: 'string' },
      'cache-only': { type: 'boolean' },
      'team-cache': { type: 'string' },
    });
    const profileFlag = stringOption(values, 'role-profile');
    if (profileFlag === undefined) throw new UsageError('missing --role-profile (try --role-profile local)');
    const profileId = checkProfileId(profileFlag);
    const mainModel = checkModel(stringOption(values, 'main-model') ?? DEFAULT_MAIN_MODEL);
    const dataDir = resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd);
    let repository: FrozenRepository;
    try {
      repository = freezeRepository(resolve(io.cwd, stringOption(values, 'repository') ?? '.'));
    } catch (e) {
      if (e instanceof FreezeError) throw new UsageError(e.message);
      throw e;
    }
    const log = (line: string): void => void io.stderr.write(`needle: ${line}\n`);

    let opened;
    try {
      opened = openDataDir(dataDir);
    } catch (e) {
      if (e instanceof StoreError) throw new UsageError(e.message);
      throw e;
    }
    const { db } = opened;
    let worktree: WorktreeWatch | undefined;
    // Every git this thread runs later (the watch's snapshots, a cold need run
    // in process) starts from a shell forked now, while this process is small
    // (repo/git-helper.ts).
    const gitHelpers = startGitHelpers(gitEnvironment());
    if (gitHelpers) {
      runGitAsyncThrough(gitHelpers.async.run);
      runGitThrough(gitHelpers.sync.run);
    } else log('git helper not started; the server starts git directly');
    try {
      if (opened.created) log(`initialized new data directory ${dataDir} with defaults (role profile local)`);
      let frozen;
      try {
        frozen = freezeSession({
          db,
          dataDir,
          repository,
          profileId,
          mainModel,
          cacheOnly: values['cache-only'] === true,
          changeToolsAvailable: true,
        });
      } catch (e) {
        if (e instanceof FreezeError) throw new UsageError(e.message);
        throw e;
      }
      for (const note of startupRecovery(db, dataDir, frozen.repositoryRoot)) log(note);
      const base = { db, dataDir, repositoryRoot: frozen.repositoryRoot, profile: frozen.profile, env: io.env };
      const team = openTeamCache(stringOption(values, 'team-cache'), base, log, (m) => new UsageError(m));
      // Watches the worktree in the background so that no hit runs git (repo/worktree-watch.ts).
      worktree = new WorktreeWatch(frozen.repositoryRoot, log).start();
      // The analyzer thread is readied once the watch knows the worktree and the
      // connection has been quiet; not at all for a cache-only server (no worker).
      const quiet = quietGate(ANALYZER_THREAD.quietMs);
      worktree.onKnown(() => quiet.arm());
      // A large snapshot leaves its git output as garbage, and collecting it
      // otherwise fell on the next needs: measured on 50 000 files with a GC
      // observer, major collections of 2–9 ms began 0–15 ms after the watch
      // reported the snapshot, where a client's next requests were, and held
      // its hits at 4–12 ms instead of 0.4–1.5. So the server collects (7–17
      // ms) before it is idle again when the snapshot was large
      // (SNAPSHOT_GC) — first, so that the engine's and the session's
      // rehearsals of the hit path, which follow, leave it warm in the caches
      // the collection went through.
      const collect = fullGarbageCollector();
      if (collect) worktree.onKnown(afterSnapshot(collect, SNAPSHOT_GC.minBufferBytes));
      const parts = { ...base, team, worktree, ...(values['cache-only'] === true ? {} : { analyzerThread: { log, startWhen: quiet.onQuiet } }) };
      const changeTools = createSessionChangeTools(parts);
      const { engine, warmUp } = createServerEngine({ ...parts, lineage: frozen.lineage });
      const session = new McpSession({ frozen, db, engine: withStageHook(engine, io.env), log, ...(changeTools ? { changeTools } : {}) });
      // Bookkeeping rows wait for a quiet moment (store/bookkeeping.ts); a
      // client that stops its server with a signal does not lose them.
      const stop = (signal: (typeof STOP_SIGNALS)[number]): void => {
        flushBookkeeping(db);
        process.exit(128 + osConstants.signals[signal]);
      };
      for (const s of STOP_SIGNALS) process.once(s, stop);
      compileAnswerPathEagerly();
      try {
        // A request arriving gives up the warm-up need in flight (cli/warm-up.ts).
        const onInput = (): void => {
          quiet.touch();
          warmUp?.touch();
        };
        const input = io.stdinFd !== undefined ? descriptorSource(io.stdinFd, () => io.stdin) : streamSource(io.stdin);
        await serveStdio(session, { input, output: io.stdout, log, onInput });
      } finally {
        for (const s of STOP_SIGNALS) process.off(s, stop);
        await team?.close();
      }
      return 0;
    } finally {
      worktree?.close();
      runGitAsyncThrough(null);
      runGitThrough(null);
      gitHelpers?.sync.close();
      gitHelpers?.async.close();
      flushBookkeeping(db);
      db.close();
    }
  },
};
