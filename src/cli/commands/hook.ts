// `needle hook <event>`: the lifecycle-hook transport for Claude Code and
// Codex. Reads the client's hook JSON on stdin, answers on stdout, never
// fails the client's turn: bad input or an internal error is one line on
// stderr and an empty answer (exit 0).
import { flushBookkeeping } from '../../store/bookkeeping.js';
import { HOOKS, LEDGER } from '../../core/limits.js';
import { BUILTIN_PROFILE_ID } from '../../core/profile.js';
import { hookSessionId, type HookSession } from '../../hooks/ledger.js';
import { clientSchema, HOOK_EVENTS, parsePayload, PayloadError, sessionStartPayload, stopPayload, userPromptPayload, type Client, type HookEvent } from '../../hooks/payload.js';
import { contextAnswer } from '../../hooks/session-start.js';
import { checkProfileId, parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > HOOKS.maxPayloadBytes) throw new PayloadError(`hook input exceeds ${HOOKS.maxPayloadBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface HookOptions {
  readonly client: Client;
  readonly dataDirFlag: string | undefined;
  readonly profileId: string;
  readonly mcp: boolean;
  /** --team-cache URL; $NEEDLE_TEAM_CACHE when absent. */
  readonly teamCache: string | undefined;
}

async function stop(text: string, o: HookOptions, io: CliIO): Promise<object | null> {
  const payload = parsePayload(text, stopPayload);
  if (payload.stop_hook_active === true || !payload.last_assistant_message?.includes('@@need')) return null;
  // Only a turn that asks for evidence pays for loading the store and the resolver.
  const [{ findRepositoryRoot, repositoryLineage }, { openDataDir }, { getActiveProfile, getProfileRevision }, { sessionProfile }, { enabledRoutes }, { createSessionEngine, openTeamCache }, { handleStop }] =
    await Promise.all([
      import('../../repo/snapshot.js'),
      import('../../store/datadir.js'),
      import('../../store/profiles.js'),
      import('../../store/sessions.js'),
      import('../../store/settings.js'),
      import('../engine.js'),
      import('../../hooks/stop.js'),
    ]);
  let root: string;
  try {
    root = findRepositoryRoot(payload.cwd);
  } catch {
    return null;
  }
  const data = openDataDir(resolveDataDir(o.dataDirFlag, io.env, payload.cwd));
  let team: ReturnType<typeof openTeamCache> = null;
  try {
    // A client session keeps the profile revision its first need froze, like an MCP connection.
    const id = hookSessionId(o.client, payload.session_id);
    const frozen = sessionProfile(data.db, id);
    const profile = frozen ? getProfileRevision(data.db, frozen.profileId, frozen.profileDigest) : getActiveProfile(data.db, o.profileId);
    if (!profile) throw new PayloadError(`no role profile ${o.profileId} in ${data.dataDir}`);
    const session: HookSession = {
      id,
      repositoryRoot: root,
      lineage: repositoryLineage(root),
      dataDir: data.dataDir,
      profileId: profile.profileId,
      profileDigest: profile.digest,
      routes: enabledRoutes(data.db),
      maxNeeds: profile.document.limits?.max_needs ?? LEDGER.defaultMaxNeeds,
      maxWorkers: profile.document.limits?.max_workers ?? LEDGER.defaultMaxWorkers,
    };
    const base = { db: data.db, dataDir: data.dataDir, repositoryRoot: root, profile: profile.document, env: io.env };
    const log0 = (line: string): void => void io.stderr.write(`needle: ${line}\n`);
    // A hook answers through the same team cache as `mcp serve` when one is configured.
    team = openTeamCache(o.teamCache, base, log0, (m) => new Error(m));
    const engine = createSessionEngine({ ...base, team });
    const signal = AbortSignal.timeout(HOOKS.stopTimeoutSec * 1000 - HOOKS.stopMarginMs);
    const log = (line: string): void => void io.stderr.write(`needle: ${line}\n`);
    return await handleStop(payload, { db: data.db, engine, session, client: o.client, signal, log });
  } finally {
    // Rows the engine queued as bookkeeping are committed before the process ends.
    flushBookkeeping(data.db);
    await team?.close();
    data.db.close();
  }
}

export const hookCommand: CliCommand = {
  path: ['hook'],
  summary: 'answer a Claude Code or Codex lifecycle hook (stdin JSON → stdout JSON)',
  help: `Usage: needle hook ${HOOK_EVENTS.join('|')} --client claude-code|codex [--mcp] [--data-dir D] [--role-profile ID]

Run by the client, not by hand (\`needle enable\` writes the entries). Reads the
hook's JSON on stdin.
  session-start        adds a short note telling the model how to ask Needle
  user-prompt-submit   the same note, for clients that start sessions silently
  stop                 resolves the @@need … @@end blocks that end the model's
                       turn and continues the session with the evidence
                       (decision "block", reason = the FrontierView)
Bad input never fails the client's turn: one line on stderr, no answer.

Options:
  --client C         claude-code or codex
  --mcp              the MCP server is registered too (the note mentions need_context)
  --data-dir D       data directory (default: $NEEDLE_DATA_DIR, $XDG_DATA_HOME/needle, ~/.local/share/needle)
  --role-profile ID  role profile (default ${BUILTIN_PROFILE_ID})
  --team-cache URL   PostgreSQL team cache (default: $NEEDLE_TEAM_CACHE); password from PGPASSWORD or ~/.pgpass
`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { client: { type: 'string' }, mcp: { type: 'boolean' }, 'data-dir': { type: 'string' }, 'role-profile': { type: 'string' }, 'team-cache': { type: 'string' } },
      1,
    );
    const event = positionals[0] as HookEvent | undefined;
    if (!event || !(HOOK_EVENTS as readonly string[]).includes(event)) throw new UsageError(`needle hook takes one event: ${HOOK_EVENTS.join(', ')}`);
    const clientText = stringOption(values, 'client');
    if (!clientText) throw new UsageError('--client is required (claude-code or codex)');
    let client: Client;
    try {
      client = clientSchema.parse(clientText, '--client');
    } catch {
      throw new UsageError('--client must be claude-code or codex');
    }
    const o: HookOptions = {
      client,
      dataDirFlag: stringOption(values, 'data-dir'),
      profileId: checkProfileId(stringOption(values, 'role-profile') ?? BUILTIN_PROFILE_ID),
      mcp: values.mcp === true,
      teamCache: stringOption(values, 'team-cache'),
    };
    let answer: object | null = null;
    try {
      const text = await readStdin(io.stdin);
      if (event === 'stop') answer = await stop(text, o, io);
      else {
        parsePayload(text, event === 'session-start' ? sessionStartPayload : userPromptPayload);
        answer = contextAnswer(event, o.mcp);
      }
    } catch (e) {
      io.stderr.write(`needle hook ${event}: ${String((e as Error)?.message ?? e).split('\n', 1)[0]!.slice(0, 300)}\n`);
      answer = null;
    }
    io.stdout.write(answer ? `${JSON.stringify(answer)}\n` : '{}\n');
    return 0;
  },
};

/** `needle hook …` without the dispatcher (see main.ts): the same one-line errors and exit codes. */
export async function runHook(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    return await hookCommand.run(argv, io);
  } catch (e) {
    io.stderr.write(`needle: ${String((e as Error)?.message ?? e).split('\n', 1)[0]}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}
