// Nothing durable on the answer's path: the step's rows and the engine's
// bookkeeping rows are queued and committed together in one group commit after
// the reply is written; a cancel read right behind the request still wins; a
// group that cannot be committed loses its rows, never the answer.
// Real SQLite file, real git repository, the session driven line by line.
import { afterAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import type { CompiledNeed } from '../../src/core/need.js';
import type { Engine, EngineResult } from '../../src/core/resolution.js';
import { Connection } from '../../src/mcp/connection.js';
import { freezeRepository, freezeSession } from '../../src/mcp/freeze.js';
import { McpSession } from '../../src/mcp/session.js';
import { bookkeepingCommitted, deferWrite, pendingBookkeeping } from '../../src/store/bookkeeping.js';
import { openDataDir } from '../../src/store/datadir.js';
import type { Db } from '../../src/store/db.js';
import { recordResolution } from '../../src/store/evidence/accounting.js';
import { callNeed, cleanupAll, LOCATE_ARGS, servedAll, makeRepo, Outbox, queryRows, tempDir } from './fixtures.js';

afterAll(cleanupAll);

const served = (need: CompiledNeed): EngineResult =>
  servedAll(need, { resolution: { kind: 'exact_hit', artifact_ids: [blake3('a1')], certificate_id: blake3('cert'), plan_id: blake3('plan') } });

/** Answers without yielding and queues its resolution row, like the real engine. */
class CommittingEngine implements Engine {
  constructor(
    private readonly db: Db,
    private readonly afterCommit: () => void = () => {},
  ) {}
  async resolve(need: CompiledNeed): Promise<EngineResult> {
    const result = served(need);
    deferWrite(this.db, () => {
      recordResolution(
        this.db,
        {
          needId: need.id,
          repositoryRoot: null,
          requestDigest: need.requestDigest,
          route: need.route,
          subjectKind: need.subject.kind,
          subjectName: need.subject.name,
          kind: result.resolution.kind,
          satisfied: result.satisfied,
          missing: [],
          cacheHit: true,
          workersRun: 0,
          sufficiencyId: null,
          contextBytes: result.context.length,
          durationMs: 0,
          avoidedRuns: [],
        },
        Date.now(),
      );
      this.afterCommit();
    });
    return result;
  }
}

function session(engine: (db: Db) => Engine) {
  const dataDir = tempDir('needle-data-');
  const { db, dbFile } = openDataDir(dataDir);
  const frozen = freezeSession({
    db,
    dataDir,
    repository: freezeRepository(makeRepo()),
    profileId: 'local',
    mainModel: 'test-model',
    cacheOnly: true,
    changeToolsAvailable: false,
  });
  const out = new Outbox();
  const logged: string[] = [];
  const connection = new Connection(new McpSession({ frozen, db, engine: engine(db), log: (l) => logged.push(l) }), (m) => out.push(m));
  const line = (m: unknown) => connection.receiveLine(JSON.stringify(m));
  line({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18' } });
  const steps = () => queryRows<{ ordinal: number; status: string }>(dbFile, 'SELECT ordinal, status FROM need_steps ORDER BY ordinal');
  const events = (ordinal: number) =>
    queryRows<{ kind: string }>(dbFile, 'SELECT kind FROM need_events WHERE step_id = (SELECT id FROM need_steps WHERE ordinal = ?) ORDER BY id', ordinal).map(
      (e) => e.kind,
    );
  const resolutions = () => queryRows<{ n: number }>(dbFile, 'SELECT COUNT(*) AS n FROM evidence_resolutions')[0]!.n;
  return { out, line, steps, events, resolutions, logged, pending: () => pendingBookkeeping(db), committed: () => bookkeepingCommitted(db), close: () => db.close() };
}

describe('bookkeeping is committed after the answer', () => {
  it('the reply is written before any row of its step; then one group commit stores the step, its events and the engine row', async () => {
    const s = session((db) => new CommittingEngine(db));
    let stepsWhenWritten: unknown = null;
    let queuedWhenWritten = 0;
    const push = s.out.push;
    s.out.push = (m) => {
      if ('id' in m && m.id === 'c1') {
        stepsWhenWritten = s.steps();
        queuedWhenWritten = s.pending();
      }
      push(m);
    };
    s.line(callNeed('c1', LOCATE_ARGS));
    const reply = (await s.out.reply('c1')).result;
    expect(reply.isError).toBe(false);
    expect(reply.structuredContent.status).toBe('hit');
    expect(stepsWhenWritten).toEqual([]);
    expect(queuedWhenWritten).toBeGreaterThan(0);
    // The group waits until no row was queued for a moment (requests streaming in pay no commit).
    expect(s.steps()).toEqual([]);
    await s.committed();
    expect(s.pending()).toBe(0);
    expect(s.steps()).toEqual([{ ordinal: 1, status: 'hit' }]);
    expect(s.events(1)).toEqual(['requested', 'resolving', 'resolved', 'delivered']);
    expect(s.resolutions()).toBe(1);
    s.close();
  });

  it('a cancel read right behind a request answered without yielding still cancels it', async () => {
    const s = session((db) => new CommittingEngine(db));
    s.line(callNeed('c1', LOCATE_ARGS));
    s.line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } });
    const reply = (await s.out.reply('c1')).result;
    expect(reply).toEqual({ content: [{ type: 'text', text: 'request cancelled; nothing was delivered for this need' }], isError: true });
    await s.committed();
    expect(s.steps()).toEqual([{ ordinal: 1, status: 'cancelled' }]);
    expect(s.events(1)).not.toContain('delivered');
    s.line(callNeed('c2', LOCATE_ARGS));
    expect((await s.out.reply('c2')).result.structuredContent.step.ordinal).toBe(2);
    s.close();
  });

  it('a bookkeeping write that fails after the answer loses only its own rows: the answer stands, the step is stored', async () => {
    const s = session(
      (db) =>
        new CommittingEngine(db, () => {
          throw new Error('disk I/O error');
        }),
    );
    s.line(callNeed('c1', LOCATE_ARGS));
    const reply = (await s.out.reply('c1')).result;
    expect(reply.isError).toBe(false);
    expect(reply.structuredContent.status).toBe('hit');
    await s.committed();
    expect(s.resolutions()).toBe(0);
    expect(s.steps()).toEqual([{ ordinal: 1, status: 'hit' }]);
    expect(s.events(1)).toEqual(['requested', 'resolving', 'resolved', 'delivered']);
    expect(s.logged.join('\n')).toContain('bookkeeping rows lost (the answers were delivered): disk I/O error');
    s.close();
  });
});
