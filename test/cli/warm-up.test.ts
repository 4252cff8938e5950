// The warm-up's own rules (src/cli/warm-up.ts): which needs it asks about the
// subjects the fact index names, that a request arriving gives up the need in
// flight and that need is asked again once the connection is quiet.
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { lineageDigest } from '../../src/core/need.js';
import { BUILTIN_LOCAL_PROFILE } from '../../src/core/profile.js';
import type { Worker, WorkerInput } from '../../src/core/worker.js';
import { createWarmUp } from '../../src/cli/warm-up.js';
import { buildFactIndex, FactIndex, indexOrder, sampleSubjects } from '../../src/evidence/fact-index.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { createFixtureRepo, createRepo } from '../evidence/fixtures/repos.js';

const LINEAGE = lineageDigest(['0'.repeat(40)]);

beforeAll(async () => {
  await loadLanguages();
});

async function samplesOf(root: string) {
  const files = execFileSync('git', ['-C', root, 'ls-files', '-z']).toString('utf8').split('\0').filter(Boolean);
  const index = new FactIndex();
  await buildFactIndex(root, indexOrder(files), index, async () => {});
  return sampleSubjects(index);
}

/** The real static worker, recording each run's route and subject; `during` runs as a run starts. */
function recording(during: (i: number) => void = () => {}): Worker & { runs: string[] } {
  const real = createStaticWorker();
  const runs: string[] = [];
  return {
    ...real,
    runs,
    run(input: WorkerInput) {
      runs.push(`${input.need.route} ${input.need.subject.kind}:${input.need.subject.name}`);
      during(runs.length - 1);
      return real.run(input);
    },
  };
}

describe('the warm-up', () => {
  it('samples a function, an option and a configuration key declared outside tests', async () => {
    expect(await samplesOf(createFixtureRepo('typescript'))).toEqual([
      { kind: 'symbol', name: expect.stringMatching(/^\w{4,}$/) },
      { kind: 'cli_option', name: expect.stringMatching(/^--[\w-]+$/) },
      { kind: 'configuration_key', name: expect.any(String) },
    ]);
    // Only what the repository declares: no option, no key here.
    const plain = createRepo({ 'src/a.py': 'def compute_total(xs):\n    return sum(xs)\n', 'tests/test_a.py': 'def test_total():\n    assert True\n' });
    expect(await samplesOf(plain)).toEqual([{ kind: 'symbol', name: 'compute_total' }]);
  });

  it('asks every route about the function and a trace about the option and the key, and says how many it answered', async () => {
    const root = createFixtureRepo('typescript');
    const samples = await samplesOf(root);
    const explorer = recording();
    const lines: string[] = [];
    const warmUp = createWarmUp({ repoRoot: root, lineage: LINEAGE, profile: BUILTIN_LOCAL_PROFILE, explorer, log: (l) => lines.push(l), quietMs: 0 });
    warmUp.start(samples);
    warmUp.start(samples); // once only
    await warmUp.done;
    expect(lines).toEqual([expect.stringMatching(/^warmed up on 5 of 5 needs about the repository's own code in \d+ ms$/)]);
    const [fn, option, key] = samples;
    // A need the engine already answered from what an earlier one certified runs no worker.
    expect(explorer.runs[0]).toBe(`locate.implementation symbol:${fn!.name}`);
    expect(explorer.runs).toContain(`trace.state-flow cli_option:${option!.name}`);
    expect(explorer.runs).toContain(`trace.state-flow configuration_key:${key!.name}`);
  }, 60_000);

  it('gives up the need in flight when a request arrives, and asks it again once the connection is quiet', async () => {
    const root = createFixtureRepo('python');
    const [fn] = await samplesOf(root);
    let warmUp: ReturnType<typeof createWarmUp> | null = null;
    // A request arrives as the first run starts: that run is given up.
    const explorer = recording((i) => (i === 0 ? warmUp!.touch() : undefined));
    const lines: string[] = [];
    warmUp = createWarmUp({ repoRoot: root, lineage: LINEAGE, profile: BUILTIN_LOCAL_PROFILE, explorer, log: (l) => lines.push(l), quietMs: 20 });
    warmUp.start([fn!]);
    await warmUp.done;
    expect(explorer.runs.slice(0, 2)).toEqual([`locate.implementation symbol:${fn!.name}`, `locate.implementation symbol:${fn!.name}`]);
    expect(lines).toEqual([expect.stringMatching(/^warmed up on 3 of 3 needs/)]);
  }, 60_000);
});
