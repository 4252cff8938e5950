// The static worker as the engine drives it: a compiled need, the missing
// obligations, the worktree root, a deadline and an abort signal.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import type { RouteId, SubjectKind } from '../../src/core/semantic.js';
import type { WorkerInput } from '../../src/core/worker.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { createFixtureRepo, fixtureFiles } from './fixtures/repos.js';

let root: string;
beforeAll(() => {
  root = createFixtureRepo('rust');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function need(route: RouteId, kind: SubjectKind, name: string): CompiledNeed {
  return compileNeed({ route, subject: { kind, name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `look at ${name}` }, lineageDigest(['0'.repeat(40)]));
}

function input(n: CompiledNeed, overrides: Partial<WorkerInput> = {}): WorkerInput {
  return { need: n, missing: [...n.required, ...n.preferred], root, covered: [], deadline: Date.now() + 60_000, signal: new AbortController().signal, ...overrides };
}

describe('static worker', () => {
  const worker = createStaticWorker();

  it('is the free, first rung of the ladder', () => {
    expect(worker.name).toBe('static');
    expect(worker.countsAgainstLimit).toBe(false);
  });

  it('proposes the implementation location and records every file it read with its digest', async () => {
    const out = await worker.run(input(need('locate.implementation', 'cli_option', '--dry-run')));
    expect(out.outcome).toEqual({ kind: 'proposed' });
    expect(out.usage).toBeNull();
    expect(out.observationComplete).toBe(true);
    expect(out.proposals).toHaveLength(1);
    const [proposal] = out.proposals;
    expect(proposal!.predicate).toBe('implementation_location');
    // The primary is the behaviour site (the branch `args.dry_run` decides); the clap declaration supports it.
    const locations = proposal!.predicate === 'implementation_location' ? proposal!.payload.locations : [];
    expect(locations[0]).toEqual({ role: 'primary', path: 'src/deploy.rs', symbol: null, start_line: 12, end_line: 17 });
    expect(locations).toContainEqual({ role: 'supporting', path: 'src/cli.rs', symbol: 'dry_run', start_line: 11, end_line: 13 });
    const files = fixtureFiles('rust');
    for (const o of out.observed) expect(o.digest).toBe(blake3(files[o.path]!));
    expect(out.observed.map((o) => o.path)).toEqual(expect.arrayContaining(['src/cli.rs', 'src/deploy.rs']));
  });

  it('answers ambiguous with the candidates instead of guessing', async () => {
    const out = await worker.run(input(need('locate.implementation', 'symbol', 'validate')));
    expect(out.outcome).toEqual({ kind: 'ambiguous', candidates: ['src/config.rs:23 function validate', 'src/deploy.rs:21 function validate'] });
    expect(out.proposals).toEqual([]);
  });

  it('says why when nothing can be proposed', async () => {
    const out = await worker.run(input(need('locate.implementation', 'behavior', 'retries uploads')));
    expect(out.outcome.kind).toBe('unresolved');
    expect(out.outcome.kind === 'unresolved' && out.outcome.reason).toMatch(/^implementation_location: .*named subjects only/);
  });

  it('runs every missing obligation of a trace route and proposes what it can', async () => {
    const out = await worker.run(input(need('trace.state-flow', 'cli_option', '--dry-run')));
    expect(out.proposals.map((p) => p.predicate)).toContain('implementation_location');
    expect(out.outcome.kind).toBe('proposed');
  });

  it('does not redo an obligation that is no longer missing', async () => {
    const n = need('trace.state-flow', 'cli_option', '--dry-run');
    const covered = [
      {
        predicate: 'implementation_location' as const,
        summary: JSON.stringify({ locations: [{ role: 'primary', path: 'src/cli.rs', symbol: 'dry_run', start_line: 11, end_line: 13 }], gaps: [] }),
      },
    ];
    const out = await worker.run(input(n, { missing: n.required.filter((o) => o.predicate !== 'implementation_location'), covered }));
    expect(out.proposals.map((p) => p.predicate)).not.toContain('implementation_location');
  });

  it('throws an AbortError when aborted, before or during the run', async () => {
    const early = new AbortController();
    early.abort();
    await expect(worker.run(input(need('locate.implementation', 'symbol', 'Args'), { signal: early.signal }))).rejects.toMatchObject({ name: 'AbortError' });
    const late = new AbortController();
    const running = worker.run(input(need('locate.implementation', 'symbol', 'Args'), { signal: late.signal }));
    late.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads the worktree, not the commit: an uncommitted edit changes the answer and its digest', async () => {
    const edited = fixtureFiles('rust')['src/cli.rs']!.replace('    #[arg(long)]\n    pub dry_run: bool,', '    #[arg(long = "dry-run")]\n    pub simulate: bool,');
    writeFileSync(join(root, 'src/cli.rs'), edited);
    const out = await worker.run(input(need('locate.implementation', 'cli_option', '--dry-run')));
    const first = out.proposals[0];
    const declaration = first?.predicate === 'implementation_location' ? first.payload.locations.find((l) => l.path === 'src/cli.rs') : undefined;
    expect(declaration).toMatchObject({ role: 'supporting', symbol: 'simulate', start_line: 11, end_line: 13 });
    expect(out.observed.find((o) => o.path === 'src/cli.rs')?.digest).toBe(blake3(edited));
  });
});
