// The quality benchmark without the development set: its JSON→table
// reduction on an invented results file (no real run, no public
// repository), and the path every CI machine takes — no development set or
// no mirrors — which must exit 2 with one line and leave the README alone.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reduceQuality, renderQuality } from '../../bench/quality/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BENCH = join(ROOT, 'dist/bench/main.js');

const cold = (status: string, kind: string, latency: number, missing: string[] = []) => ({
  ok: true,
  status,
  resolution_kind: kind,
  satisfied: [],
  missing,
  worker_spawned: true,
  latency_ms: latency,
  error: null,
});
const second = (pass: boolean, status = 'hit', kind = 'exact_hit') => ({ ok: true, status, resolution_kind: kind, worker_spawned: !pass, pass });
const score = (total: number, answered = true) => ({ answered, roles_found: 1, roles_total: 2, total, max: 3 });

/** Invented: two tool repositories, four tasks (one whose server died), in the runner's results shape. */
const FIXTURE = {
  schema: 'needle.evidence-dev-results/1',
  role_profile: 'local',
  tasks: [
    { task_id: 'gadget-verbose-locate', language: 'rust', cold: cold('generated', 'miss', 120), score: score(2.5), second: second(true) },
    {
      task_id: 'gadget-color-env-trace',
      language: 'rust',
      cold: cold('generated', 'miss', 300, ['runtime_flow']),
      score: score(1.25),
      second: second(false, 'generated', 'partial_hit'),
    },
    { task_id: 'widget-dry-run-locate', language: 'typescript', cold: cold('bypass', 'ambiguous', 80, ['implementation_location']), score: score(0, false), second: second(false, 'bypass', 'ambiguous') },
    {
      task_id: 'widget-quiet-env-trace',
      language: 'javascript',
      error: 'server exited before answering initialize; stderr: boom\nat line 2',
      score: score(0, false),
      second: { pass: false, error: 'server exited before answering initialize; stderr: boom\nat line 2' },
    },
  ],
  languages: {
    rust: {
      tasks: 2,
      answered: 2,
      items_found: 3,
      items_total: 9,
      roles_matched: 2,
      tests_named: 1,
      forbidden_ok: 1,
      second_call_hits: 1,
      cold_latency: { n: 2, p50: 120, p95: 300, mean: 210, min: 120, max: 300 },
      total: 3.75,
      max: 6,
    },
    'ts/js': {
      tasks: 2,
      answered: 0,
      items_found: 0,
      items_total: 8,
      roles_matched: 0,
      tests_named: 0,
      forbidden_ok: 0,
      second_call_hits: 0,
      cold_latency: { n: 1, p50: 80, p95: 80, mean: 80, min: 80, max: 80 },
      total: 0,
      max: 6,
    },
  },
  score: { total: 3.75, max: 12, fraction: 0.313 },
  errors: [],
};

describe('reduceQuality', () => {
  it('turns the results JSON into per-language rows, an all row, task rows and the runner’s total line', () => {
    const t = reduceQuality(FIXTURE);
    expect(t.languages).toEqual([
      { language: 'rust', tasks: 2, total: 3.75, max: 6, itemsFound: 3, itemsTotal: 9, testsNamed: 1, forbiddenNamed: 1, secondCallHits: 1, coldP50Ms: 120 },
      { language: 'ts/js', tasks: 2, total: 0, max: 6, itemsFound: 0, itemsTotal: 8, testsNamed: 0, forbiddenNamed: 0, secondCallHits: 0, coldP50Ms: 80 },
    ]);
    // The task that never got an answer has no latency: p50 over the three timed first calls.
    expect(t.all).toEqual({ language: 'all', tasks: 4, total: 3.75, max: 12, itemsFound: 3, itemsTotal: 17, testsNamed: 1, forbiddenNamed: 1, secondCallHits: 1, coldP50Ms: 120 });
    expect(t.tasks).toEqual([
      { task: 'gadget-verbose-locate', language: 'rust', total: 2.5, max: 3, resolution: 'generated / miss', secondCall: 'zero-worker hit' },
      { task: 'gadget-color-env-trace', language: 'rust', total: 1.25, max: 3, resolution: 'generated / miss; missing runtime_flow', secondCall: 'generated / partial_hit, worker ran' },
      { task: 'widget-dry-run-locate', language: 'typescript', total: 0, max: 3, resolution: 'bypass / ambiguous; missing implementation_location', secondCall: 'bypass / ambiguous, worker ran' },
      {
        task: 'widget-quiet-env-trace',
        language: 'javascript',
        total: 0,
        max: 3,
        resolution: 'error: server exited before answering initialize; stderr: boom',
        secondCall: 'error: server exited before answering initialize; stderr: boom',
      },
    ]);
    expect(t.totalLine).toBe('evidence-dev: score 3.75/12 (rust 3.75/6, ts/js 0.00/6; second call zero-worker hit 1/4)');
  });

  it('renders both tables, the total line and the command', () => {
    const block = renderQuality(reduceQuality(FIXTURE), {
      command: 'npm run bench -- quality',
      runner: 'node ../dev/run.mjs --json <tmp>/results.json',
      machine: 'Node v20.0.0, linux-x64, 2 × cpu',
      date: '2026-01-02',
      commit: 'abc1234',
      roleProfile: 'local',
    });
    expect(block).toContain('| rust | 2 | 3.75 / 6 | 3 / 9 | 1 / 2 | 1 | 1 / 2 | 120 ms |');
    expect(block).toContain('| ts/js | 2 | 0.00 / 6 | 0 / 8 | 0 / 2 | 0 | 0 / 2 | 80.0 ms |');
    expect(block).toContain('| **all** | **4** | **3.75 / 12** | **3 / 17** | **1 / 4** | **1** | **1 / 4** | **120 ms** |');
    expect(block).toContain('| gadget-color-env-trace (rust) | 1.25 / 3 | generated / miss; missing runtime_flow | generated / partial_hit, worker ran |');
    expect(block).toContain('`evidence-dev: score 3.75/12 (rust 3.75/6, ts/js 0.00/6; second call zero-worker hit 1/4)`');
    expect(block).toContain('Command: `npm run bench -- quality` (runs `node ../dev/run.mjs --json <tmp>/results.json`; Node v20.0.0, linux-x64, 2 × cpu, 2026-01-02)');
    expect(block).toContain('built from `abc1234`');
  });

  it('refuses another schema or a run without tasks', () => {
    expect(() => reduceQuality({ ...FIXTURE, schema: 'something-else/1' })).toThrow(/schema/);
    expect(() => reduceQuality({ ...FIXTURE, tasks: [] })).toThrow(/no tasks/);
    expect(() => reduceQuality({ ...FIXTURE, languages: { rust: { tasks: 2 } } })).toThrow(/languages\.rust has no /);
  });
});

describe('npm run bench -- quality without the development set', () => {
  let scratch: string;
  let readme: string;
  let before: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'needle-bench-quality-test-'));
    readme = join(scratch, 'README.md');
    copyFileSync(join(ROOT, 'README.md'), readme);
    before = readFileSync(readme, 'utf8');
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const bench = (...args: string[]) => {
    expect(existsSync(BENCH), 'run npm run build first').toBe(true);
    return spawnSync(process.execPath, [BENCH, 'quality', ...args, '--readme', readme], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  };

  it('exits 2 with one line when the development set is missing, README unchanged', () => {
    const r = bench('--dev-set', join(scratch, 'no-dev-set'));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bench quality: no evidence development set at .*no-dev-set.*--dev-set DIR; README\.md not changed\n$/);
    expect(readFileSync(readme, 'utf8')).toBe(before);
  });

  it('exits 2 with one line when the mirrors are missing, without running the set', () => {
    const devSet = join(scratch, 'dev-set');
    const ran = join(scratch, 'ran');
    mkdirSync(join(devSet, 'oracles', 'gadget'), { recursive: true });
    writeFileSync(join(devSet, 'run.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(ran)}, 'ran');\n`);
    writeFileSync(join(devSet, 'oracles', 'gadget', 'verbose-locate.json'), JSON.stringify({ task_id: 'gadget-verbose-locate', repository: 'example/gadget' }));

    const none = bench('--dev-set', devSet, '--mirrors', join(scratch, 'no-mirrors'));
    expect(none.status).toBe(2);
    expect(none.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(none.stderr).toMatch(/^bench quality: no repository mirrors at .*no-mirrors; pass --mirrors DIR/);

    mkdirSync(join(scratch, 'mirrors'));
    const partial = bench('--dev-set', devSet, '--mirrors', join(scratch, 'mirrors'));
    expect(partial.status).toBe(2);
    expect(partial.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(partial.stderr).toMatch(/^bench quality: 1 repository mirror\(s\) missing under .*mirrors: example\/gadget /);

    expect(existsSync(ran)).toBe(false);
    expect(readFileSync(readme, 'utf8')).toBe(before);
  });
});
