// The rehearsal of a whole request off any request (src/mcp/session.ts,
// src/mcp/stdio.ts): when the engine has re-decided its first hits, the
// session runs its needs' request lines through a throwaway connection to a
// host that admits and records nothing. A client sees nothing of it: no line
// on stdout, no step counted, no row written.
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CompiledNeed } from '../../src/core/need.js';
import type { Engine, EngineResult } from '../../src/core/resolution.js';
import { freezeRepository, freezeSession } from '../../src/mcp/freeze.js';
import { McpSession } from '../../src/mcp/session.js';
import { streamSource } from '../../src/mcp/stdin-source.js';
import { serveStdio } from '../../src/mcp/stdio.js';
import { flushBookkeeping } from '../../src/store/bookkeeping.js';
import { openDataDir } from '../../src/store/datadir.js';
import { callNeed, cleanupAll, countRows, LOCATE_ARGS, makeRepo, servedAll, tempDir } from './fixtures.js';

afterAll(cleanupAll);

/** Serves one result object per need (as a remembered hit is) and counts the looks that record nothing. */
class RememberingEngine implements Engine {
  readonly results = new Map<string, EngineResult>();
  looks = 0;
  rehearsed: (() => void)[] = [];
  private resultFor(need: CompiledNeed): EngineResult {
    let r = this.results.get(need.id);
    if (!r) this.results.set(need.id, (r = servedAll(need)));
    return r;
  }
  async resolve(need: CompiledNeed): Promise<EngineResult> {
    return this.resultFor(need);
  }
  remembered(need: CompiledNeed): EngineResult | null {
    this.looks++;
    return this.resultFor(need);
  }
  onRehearsed(listener: () => void): void {
    this.rehearsed.push(listener);
  }
}

describe('the transport rehearsal', () => {
  it('runs the session\'s needs through the whole answer path and leaves no line, no step and no row behind', async () => {
    const dataDir = tempDir('needle-data-');
    const { db, dbFile } = openDataDir(dataDir);
    const frozen = freezeSession({ db, dataDir, repository: freezeRepository(makeRepo()), profileId: 'local', mainModel: 'm', cacheOnly: true, changeToolsAvailable: false });
    const engine = new RememberingEngine();
    const session = new McpSession({ frozen, db, engine });
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: { id: unknown; result?: { structuredContent?: { step: unknown } } }[] = [];
    let text = '';
    output.setEncoding('utf8').on('data', (c: string) => {
      text += c;
      let nl;
      while ((nl = text.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(text.slice(0, nl)) as (typeof lines)[number]);
        text = text.slice(nl + 1);
      }
    });
    const served = serveStdio(session, { input: streamSource(input), output, log: () => {} });
    const until = async (n: number) => {
      while (lines.length < n) await new Promise((r) => setImmediate(r));
    };
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18' } })}\n`);
    input.write(`${JSON.stringify(callNeed(1, LOCATE_ARGS))}\n`);
    await until(2);

    for (const l of engine.rehearsed) l();
    // The rehearsal's calls answer in microtasks: let them all settle.
    await new Promise((r) => setImmediate(r));
    expect(engine.looks).toBeGreaterThan(0);
    expect(lines).toHaveLength(2);

    input.write(`${JSON.stringify(callNeed(2, LOCATE_ARGS))}\n`);
    await until(3);
    input.end();
    await served;
    flushBookkeeping(db);
    expect(lines.map((l) => l.id)).toEqual(['init', 1, 2]);
    expect(lines[2]!.result!.structuredContent!.step).toEqual({ ordinal: 2, relation: 'repeat' });
    expect(countRows(dbFile, 'need_steps')).toBe(2);
    db.close();
  });
});
