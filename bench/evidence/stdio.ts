// Warm hits over real stdio: `needle mcp serve` spawned as a process on a
// generated repository, the cache warmed by one need_context, then repeats of
// the same need timed from request written to response read, on as many
// fresh connections as the per-connection need limit requires. On each new
// connection the first need is sent at once (process start → initialize
// answered → first need answered, the cost of a session's first need); the
// repeats follow once the server's worktree watch reported the snapshot it
// knows (stderr), so they measure the steady state of a session whose cache
// is warm. The repeats on the warming connection itself — the same process
// that just ran the worker, its first repeat deciding the hit from the
// certificates it has just written — are a different case and are reported
// apart (`afterCold`). The floor is a bare echo process answering the same
// line right after each hit: the hit's own answer line, echoed (the issue's
// measure, a pipe round trip of the answer's bytes); the request line echoed
// is sampled next to it and reported beside it. With `pauseMs`, every repeat and every
// echo waits that long first (a client's think time).
import { mkdirSync } from 'node:fs';
import { LEDGER, MCP } from '../../src/core/limits.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import type { RouteId } from '../../src/core/semantic.js';
import { openDataDir } from '../../src/store/datadir.js';
import { activateProfile, createProfileRevision } from '../../src/store/profiles.js';
import { summarize, type Summary } from '../stats.js';
import type { BenchSubject } from './engine.js';
import { LineChannel, type JsonRpcRequest } from './line-channel.js';

/** The role profile the benchmark serves with: the built-in one, with the largest need limit. */
export const BENCH_PROFILE_ID = 'bench';

export interface StdioBenchOptions {
  readonly cliPath: string;
  readonly echoPath: string;
  readonly root: string;
  readonly dataDir: string;
  readonly route: RouteId;
  readonly subject: BenchSubject;
  /** Obligations required beyond the route's (a partial need asks for one it cannot get). */
  readonly required?: readonly { readonly kind: string }[];
  readonly samples: number;
  /**
   * A pause before every repeat and before every echo (ms): a client's think
   * time between two requests. On this kind of machine any process answers
   * slower after an idle moment than back to back (caches, a halted virtual
   * CPU), the bare echo included; pacing both alike compares them in the
   * state a model's next request finds them. 0: back to back.
   */
  readonly pauseMs?: number;
  /**
   * Also time one cold need (fresh data directory) asked this long after
   * `initialize` was answered: a client's first need after its think time,
   * when the server has readied its analyzer thread (workers/static-thread.ts).
   */
  readonly coldAfterMs?: number;
}

export interface StdioMeasurement {
  /** The warming call: first resolution over stdio (ms) and what it decided. */
  readonly firstMs: number;
  readonly firstStatus: string;
  /**
   * Zero-worker hits, or why the repeats were not hits. `freshProcess`: the
   * hits that were the first need of a newly spawned server (cold JIT, empty
   * stat cache), which is what a client pays for its first need of a session.
   */
  readonly hits:
    | {
        readonly summary: Summary;
        readonly freshProcess: Summary | null;
        /** Process spawned → first need answered, on the connections after the warming one (cache warm). */
        readonly startToFirstNeed: Summary | null;
        readonly connections: number;
        /** Repeats on the warming connection, right after its worker run (same process). */
        readonly afterCold: Summary | null;
      }
    | { readonly notHit: string };
  /** Process spawned → initialize answered, every connection. */
  readonly startToInitialize: Summary;
  /** Process spawned → first need answered on the warming connection (cache cold). */
  readonly startToFirstNeedCold: number;
  /** With `coldAfterMs`: request → reply of a cold first need asked that long after `initialize`. */
  readonly coldAfterPause: { readonly pauseMs: number; readonly ms: number; readonly status: string } | null;
  /** The floor: each hit's answer line through the echo process. */
  readonly echo: Summary;
  /** Each hit's request line through the echo process (a shorter line, reported beside the floor). */
  readonly requestEcho: Summary;
}

const WATCH_KNOWN = /snapshot \w+ known/;

/** Creates the data directory with a `bench` profile allowing LEDGER.maxLimit needs per connection. */
export function prepareBenchDataDir(dataDir: string): void {
  const { db } = openDataDir(dataDir);
  try {
    const digest = createProfileRevision(db, BENCH_PROFILE_ID, { ...BUILTIN_LOCAL_PROFILE, limits: { max_needs: LEDGER.maxLimit } });
    activateProfile(db, BENCH_PROFILE_ID, digest);
  } finally {
    db.close();
  }
}

export function needCall(o: Pick<StdioBenchOptions, 'route' | 'subject' | 'required'>, id: number): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'need_context',
      arguments: { route: o.route, subject: o.subject, task: `benchmark ${o.route}`, ...(o.required ? { required: o.required } : {}) },
    },
  };
}

interface NeedOutcome {
  readonly hit: boolean;
  /** `status, resolution kind`, e.g. `hit, exact_hit`. */
  readonly label: string;
  readonly reason: string | null;
}

export function outcomeOf(reply: Record<string, unknown>): NeedOutcome {
  if (reply.error) throw new Error(`need_context failed: ${JSON.stringify(reply.error).slice(0, 300)}`);
  const result = reply.result as { isError?: boolean; content?: { text?: string }[]; structuredContent?: Record<string, unknown> } | undefined;
  if (!result || result.isError) throw new Error(`need_context tool error: ${result?.content?.[0]?.text ?? 'no result'}`);
  const s = result.structuredContent ?? {};
  const resolution = s.resolution as { kind?: string; reason?: string } | undefined;
  return {
    hit: s.status === 'hit' && s.cache_hit === true && s.worker_spawned === false,
    label: `${String(s.status)}, ${resolution?.kind ?? 'no resolution'}`,
    reason: resolution?.reason?.slice(0, 160) ?? null,
  };
}

export async function openConnection(o: Pick<StdioBenchOptions, 'cliPath' | 'dataDir' | 'root'>): Promise<{ channel: LineChannel; initMs: number }> {
  const channel = new LineChannel([o.cliPath, 'mcp', 'serve', '--role-profile', BENCH_PROFILE_ID, '--data-dir', o.dataDir, '--repository', o.root]);
  const init = await channel.request({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: MCP.latestProtocolVersion, capabilities: {}, clientInfo: { name: 'needle-bench', version: '1' } },
  });
  if (init.reply.error) throw new Error(`initialize failed: ${JSON.stringify(init.reply.error)}`);
  const initMs = performance.now() - channel.spawnedAt;
  channel.notify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { channel, initMs };
}


/** The client's think time before a request: the measured condition, not a synchronization. */
const thinkTime = (o: StdioBenchOptions): Promise<void> => (o.pauseMs ? new Promise((resolve) => setTimeout(resolve, o.pauseMs)) : Promise.resolve());

/** measureStdioSideBySide for one row. */
export async function measureStdio(o: StdioBenchOptions): Promise<StdioMeasurement> {
  return (await measureStdioSideBySide([o]))[0]!;
}

/**
 * Measures several rows side by side: their connections take turns (one
 * connection of each row, then again), so that rows compared with each other
 * — the same need on a small and on a large repository — see the same
 * machine, as a hit and its floor do. Rows measured one after the other,
 * minutes apart, compared the machine's moments as much as the rows.
 */
export async function measureStdioSideBySide(rows: readonly StdioBenchOptions[]): Promise<StdioMeasurement[]> {
  for (const o of rows) prepareBenchDataDir(o.dataDir);
  // The floor is sampled right after each hit, with the same line, so that
  // both see the same machine: on a loaded machine a floor measured minutes
  // apart would not be comparable.
  const echo = new LineChannel([rows[0]!.echoPath]);
  try {
    const states = rows.map((o) => new RowState(o));
    while (states.some((r) => !r.done)) for (const r of states) if (!r.done) await r.connection(echo);
    const measured: StdioMeasurement[] = [];
    for (const r of states) measured.push(await r.result());
    return measured;
  } finally {
    await echo.close();
  }
}

/** One row's samples so far; `connection` runs one more connection of it. */
class RowState {
  private readonly echoSamples: number[] = [];
  private readonly requestEchoSamples: number[] = [];
  private readonly samples: number[] = [];
  private readonly afterCold: number[] = [];
  private readonly freshProcess: number[] = [];
  private readonly startToFirst: number[] = [];
  private readonly inits: number[] = [];
  private first: { ms: number; status: string; fromSpawn: number } | null = null;
  private notHit: string | null = null;
  private connections = 0;

  constructor(private readonly o: StdioBenchOptions) {}

  get done(): boolean {
    return this.samples.length >= this.o.samples || this.notHit !== null;
  }

  async connection(echo: LineChannel): Promise<void> {
    const o = this.o;
    const { channel, initMs } = await openConnection(o);
    this.inits.push(initMs);
    this.connections++;
    try {
      for (let id = 1; id <= LEDGER.maxLimit && this.samples.length < o.samples; id++) {
        if (id > 1) await thinkTime(o);
        const { reply, ms } = await channel.request(needCall(o, id));
        const fromSpawn = performance.now() - channel.spawnedAt;
        const outcome = outcomeOf(reply);
        if (!this.first) {
          this.first = { ms, status: outcome.label, fromSpawn };
          await channel.waitForStderr(WATCH_KNOWN);
          continue;
        }
        if (!outcome.hit) {
          this.notHit = `the repeat was ${outcome.label}${outcome.reason ? `: ${outcome.reason}` : ''}`;
          return;
        }
        if (this.connections === 1) {
          this.afterCold.push(ms);
        } else if (id === 1) {
          this.freshProcess.push(ms);
          this.startToFirst.push(fromSpawn);
          await channel.waitForStderr(WATCH_KNOWN);
        } else {
          this.samples.push(ms);
          await this.floors(echo, reply, id);
        }
      }
    } finally {
      await channel.close();
    }
  }

  /**
   * Both floors of one hit: its answer line (the same fields, the same id)
   * and its request line, echoed. Which goes first alternates, so that
   * neither is always the one that follows the hit.
   */
  private async floors(echo: LineChannel, reply: Record<string, unknown>, id: number): Promise<void> {
    const answer = async (): Promise<void> => void this.echoSamples.push((await echo.request({ ...reply, id })).ms);
    const request = async (): Promise<void> => void this.requestEchoSamples.push((await echo.request(needCall(this.o, id))).ms);
    const order = this.samples.length % 2 === 0 ? [answer, request] : [request, answer];
    for (const floor of order) {
      await thinkTime(this.o);
      await floor();
    }
  }

  async result(): Promise<StdioMeasurement> {
    const o = this.o;
    if (!this.first) throw new Error('no need_context call was made');
    const hits =
      this.notHit === null
        ? {
            summary: summarize(this.samples),
            freshProcess: this.freshProcess.length > 0 ? summarize(this.freshProcess) : null,
            startToFirstNeed: this.startToFirst.length > 0 ? summarize(this.startToFirst) : null,
            connections: this.connections,
            afterCold: this.afterCold.length > 0 ? summarize(this.afterCold) : null,
          }
        : { notHit: this.notHit };
    const coldAfterPause = o.coldAfterMs === undefined ? null : await coldNeedAfter(o, o.coldAfterMs);
    const orNaN = (a: number[]): number[] => (a.length > 0 ? a : [Number.NaN]);
    return {
      firstMs: this.first.ms,
      firstStatus: this.first.status,
      hits,
      startToInitialize: summarize(this.inits),
      startToFirstNeedCold: this.first.fromSpawn,
      coldAfterPause,
      echo: summarize(orNaN(this.echoSamples)),
      requestEcho: summarize(orNaN(this.requestEchoSamples)),
    };
  }
}

/** One cold need on a fresh data directory, asked `pauseMs` after `initialize` was answered. */
async function coldNeedAfter(o: StdioBenchOptions, pauseMs: number): Promise<StdioMeasurement['coldAfterPause']> {
  const dataDir = `${o.dataDir}-cold`;
  mkdirSync(dataDir);
  prepareBenchDataDir(dataDir);
  const { channel } = await openConnection({ ...o, dataDir });
  try {
    await thinkTime({ ...o, pauseMs });
    const { reply, ms } = await channel.request(needCall(o, 1));
    return { pauseMs, ms, status: outcomeOf(reply).label };
  } finally {
    await channel.close();
  }
}
