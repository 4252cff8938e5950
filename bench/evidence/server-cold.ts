// Cold needs asked of a running server once its analyzer thread has indexed
// the repository (evidence/fact-index.ts) and the server has warmed up
// (cli/warm-up.ts): the state a model's needs find a server in after the
// first moments of a session. Each sample is its own server on a fresh data
// directory: it waits for the "static analyzer indexed" and "warmed up"
// lines, answers one need on another subject (its first need, whose own cost
// is reported too), then the measured need, which no certificate covers.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteId } from '../../src/core/semantic.js';
import { summarize, type Summary } from '../stats.js';
import type { BenchSubject } from './engine.js';
import { needCall, openConnection, outcomeOf, prepareBenchDataDir } from './stdio.js';

export interface ServerColdOptions {
  readonly cliPath: string;
  readonly root: string;
  readonly scratch: string;
  readonly subject: BenchSubject;
  /** The subject of each server's first need (locate.implementation). */
  readonly firstSubject: BenchSubject;
  readonly routes: readonly RouteId[];
  readonly samples: number;
}

export interface ServerColdMeasurement {
  /** The server's own line, e.g. `static analyzer indexed 370 files (2.3 MB) in 1734 ms`. */
  readonly indexed: string;
  /** Its next, e.g. `warmed up on 5 of 5 needs about the repository's own code in 281 ms`. */
  readonly warmedUp: string;
  /** From the `initialize` answer to the warm-up's line. */
  readonly indexedAfter: Summary;
  /** Request → reply of each server's first need. */
  readonly first: Summary;
  readonly routes: readonly { readonly route: RouteId; readonly cold: Summary; readonly status: string }[];
}

/** Bound on waiting for a server to index: a large repository takes seconds (FACT_INDEX bounds it). */
const INDEXED_WITHIN_MS = 300_000;
const INDEXED = /static analyzer (indexed|index stopped)/;
const WARMED_UP = /warmed up on \d+ of \d+ needs|warm-up stopped/;

export async function measureServerCold(o: ServerColdOptions): Promise<ServerColdMeasurement> {
  let indexed = '';
  let warmedUp = '';
  const after: number[] = [];
  const first: number[] = [];
  const routes: { route: RouteId; cold: Summary; status: string }[] = [];
  for (const route of o.routes) {
    const cold: number[] = [];
    let status = '';
    for (let i = 0; i < o.samples; i++) {
      const dataDir = mkdtempSync(join(o.scratch, 'server-cold-'));
      prepareBenchDataDir(dataDir);
      const { channel } = await openConnection({ cliPath: o.cliPath, dataDir, root: o.root });
      try {
        const t0 = performance.now();
        indexed = (await channel.waitForStderr(INDEXED, INDEXED_WITHIN_MS)).replace(/^needle: /, '');
        warmedUp = (await channel.waitForStderr(WARMED_UP, INDEXED_WITHIN_MS)).replace(/^needle: /, '');
        after.push(performance.now() - t0);
        const warm = await channel.request(needCall({ route: 'locate.implementation', subject: o.firstSubject }, 1));
        outcomeOf(warm.reply);
        first.push(warm.ms);
        const measured = await channel.request(needCall({ route, subject: o.subject }, 2));
        status = outcomeOf(measured.reply).label;
        cold.push(measured.ms);
      } finally {
        await channel.close();
      }
    }
    routes.push({ route, cold: summarize(cold), status });
  }
  return { indexed, warmedUp, indexedAfter: summarize(after), first: summarize(first), routes };
}
