/* eslint-disable @typescript-eslint/no-explicit-any -- assertions dig into untyped protocol JSON */
// A ladder [static, codex] on a repeat of a partial answer (SPEC §16a): what
// the static worker could not do on these bytes is a certified negative
// outcome, so the repeat does not run it again — but the model worker, whose
// answers are not certified as negative, still runs for what remains, with
// only that obligation in its contract and the certified evidence as input.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { projectNeedResult } from '../../src/mcp/result.js';
import { makeRepo, options, type Repo } from '../resolve/fixture.js';
import { LEVELS, levelsNeed } from '../resolve/negative-fixture.js';
import { readLog, simulator } from './fixtures.js';
import { evidenceRuns, ladderEngine, ladderProfile } from './ladder-fixture.js';

let repo: Repo | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

const turnStarts = (log: string) => readLog(log).filter((e) => e.event === 'request' && e.method === 'turn/start');

describe('ladder [static, codex] on a repeat', () => {
  it('runs the model again for what remains, but not the static worker', async () => {
    repo = makeRepo(LEVELS);
    // The model cannot establish a focused test either (null is "could not establish").
    const sim = simulator(join(repo.dataDir, 'sims'), 'no-test', {
      turns: [{ steps: [{ usage: { input: 400, cached: 0, output: 20 } }, { message: { focused_tests: null } }] }],
    });
    const { db, engine } = ladderEngine(repo, ladderProfile({ model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 20_000 }));
    const n = levelsNeed(repo);

    const first = projectNeedResult(n, { ordinal: 1, relation: 'independent' }, await engine.resolve(n, options()));
    expect(first).toMatchObject({ status: 'generated', satisfied: ['implementation_location'], missing: ['focused_tests'] });
    expect(evidenceRuns(db).map((r) => r.worker)).toEqual(['static', 'codex']);

    const r = await engine.resolve(n, options());
    const again = projectNeedResult(n, { ordinal: 2, relation: 'repeat' }, r);
    expect(again).toMatchObject({ status: 'generated', worker_spawned: true, resolution: { kind: 'partial_hit' }, satisfied: ['implementation_location'], missing: ['focused_tests'] });
    expect(r.modelWorkersStarted).toBe(1);
    expect(evidenceRuns(db).map((x) => x.worker)).toEqual(['static', 'codex', 'codex']);

    // The second model turn was asked for focused_tests only, with the certified location as input.
    const second = turnStarts(sim.log)[1]!;
    expect(Object.keys((second.params as any).outputSchema.properties)).toEqual(['focused_tests']);
    const prompt = (second.params as any).input[0].text as string;
    expect(prompt.slice(prompt.indexOf('Already certified evidence'))).toMatch(/- implementation_location: \{.*"path":"src\/levels.ts"/);
  });
});
