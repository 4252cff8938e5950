// The quality benchmark's reduction: the development set's results JSON
// (`needle.evidence-dev-results/1`, written by its run.mjs --json) to the
// README tables. Pure: no files, no clock, no processes.

export const RESULTS_SCHEMA = 'needle.evidence-dev-results/1';

export interface LanguageRow {
  readonly language: string;
  readonly tasks: number;
  readonly total: number;
  readonly max: number;
  readonly itemsFound: number;
  readonly itemsTotal: number;
  readonly testsNamed: number;
  /** Answered tasks that named a forbidden test (a non-answer names nothing). */
  readonly forbiddenNamed: number;
  readonly secondCallHits: number;
  /** Nearest-rank p50 of the first calls' latency, null when no call was timed. */
  readonly coldP50Ms: number | null;
}

export interface TaskRow {
  readonly task: string;
  readonly language: string;
  readonly total: number;
  readonly max: number;
  /** `status / resolution kind` of the first call, with the obligations it left missing. */
  readonly resolution: string;
  /** `zero-worker hit`, or what the second identical call was instead. */
  readonly secondCall: string;
}

export interface QualityTables {
  readonly languages: readonly LanguageRow[];
  /** The sum over every language, latency over every task's first call. */
  readonly all: LanguageRow;
  readonly tasks: readonly TaskRow[];
  /** The runner's own last line, `evidence-dev: score X/72 (…)`, rebuilt from the JSON. */
  readonly totalLine: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function field(o: Json, key: string, where: string): unknown {
  if (!(key in o)) throw new Error(`results JSON: ${where} has no ${key}`);
  return o[key];
}

function num(o: Json, key: string, where: string): number {
  const v = field(o, key, where);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`results JSON: ${where}.${key} is not a number`);
  return v;
}

function obj(o: Json, key: string, where: string): Json {
  const v = field(o, key, where);
  if (!isObject(v)) throw new Error(`results JSON: ${where}.${key} is not an object`);
  return v;
}

const str = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

/** Nearest rank, as the runner computes its percentiles. */
function p50(samples: readonly number[]): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(sorted.length / 2)) - 1]!;
}

export const fmtScore = (x: number): string => x.toFixed(2);

/** The first line of an error, short enough for a table cell. */
function errorText(error: unknown): string {
  const text = (typeof error === 'string' ? error : JSON.stringify(error)).split('\n', 1)[0]!;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

const hasError = (v: Json): boolean => v.error !== null && v.error !== undefined;

function firstCall(cold: unknown, taskError: unknown): string {
  if (!isObject(cold) || typeof cold.status !== 'string') {
    const error = isObject(cold) && hasError(cold) ? cold.error : taskError;
    return error === null || error === undefined ? 'no call result' : `error: ${errorText(error)}`;
  }
  const what = [str(cold.status, 'no status'), ...(typeof cold.resolution_kind === 'string' ? [cold.resolution_kind] : [])].join(' / ');
  const missing = Array.isArray(cold.missing) ? cold.missing.filter((m): m is string => typeof m === 'string') : [];
  const error = hasError(cold) ? `; error: ${errorText(cold.error)}` : '';
  return `${what}${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${error}`;
}

function secondCall(second: unknown): string {
  if (!isObject(second)) return 'not made';
  if (second.pass === true) return 'zero-worker hit';
  if (typeof second.status !== 'string') return hasError(second) ? `error: ${errorText(second.error)}` : 'no call result';
  const what = [str(second.status, 'no status'), ...(typeof second.resolution_kind === 'string' ? [second.resolution_kind] : [])].join(' / ');
  return `${what}${second.worker_spawned === true ? ', worker ran' : ''}`;
}

/** Reduces a results JSON to the per-language and per-task tables. Throws on any other shape. */
export function reduceQuality(results: unknown): QualityTables {
  if (!isObject(results)) throw new Error('results JSON is not an object');
  if (results.schema !== RESULTS_SCHEMA) throw new Error(`results JSON schema is ${JSON.stringify(results.schema)}, not ${RESULTS_SCHEMA}`);
  const rawTasks = field(results, 'tasks', 'results');
  if (!Array.isArray(rawTasks) || rawTasks.length === 0) throw new Error('results JSON has no tasks');
  const score = obj(results, 'score', 'results');
  const langs = obj(results, 'languages', 'results');

  const languages: LanguageRow[] = Object.entries(langs).map(([language, s]) => {
    if (!isObject(s)) throw new Error(`results JSON: languages.${language} is not an object`);
    const where = `languages.${language}`;
    const latency = obj(s, 'cold_latency', where);
    return {
      language,
      tasks: num(s, 'tasks', where),
      total: num(s, 'total', where),
      max: num(s, 'max', where),
      itemsFound: num(s, 'items_found', where),
      itemsTotal: num(s, 'items_total', where),
      testsNamed: num(s, 'tests_named', where),
      // forbidden_ok counts answered tasks that named no forbidden test.
      forbiddenNamed: num(s, 'answered', where) - num(s, 'forbidden_ok', where),
      secondCallHits: num(s, 'second_call_hits', where),
      coldP50Ms: typeof latency.p50 === 'number' ? latency.p50 : null,
    };
  });

  const tasks: TaskRow[] = rawTasks.map((t, i) => {
    if (!isObject(t)) throw new Error(`results JSON: tasks[${i}] is not an object`);
    const s = obj(t, 'score', `tasks[${i}]`);
    return {
      task: str(t.task_id, `task ${i + 1}`),
      language: str(t.language, '?'),
      total: num(s, 'total', `tasks[${i}].score`),
      max: num(s, 'max', `tasks[${i}].score`),
      resolution: firstCall(t.cold, t.error),
      secondCall: secondCall(t.second),
    };
  });

  const sum = (f: (r: LanguageRow) => number): number => languages.reduce((a, r) => a + f(r), 0);
  const latencies = rawTasks.flatMap((t) => (isObject(t) && isObject(t.cold) && typeof t.cold.latency_ms === 'number' ? [t.cold.latency_ms] : []));
  const all: LanguageRow = {
    language: 'all',
    tasks: sum((r) => r.tasks),
    total: num(score, 'total', 'score'),
    max: num(score, 'max', 'score'),
    itemsFound: sum((r) => r.itemsFound),
    itemsTotal: sum((r) => r.itemsTotal),
    testsNamed: sum((r) => r.testsNamed),
    forbiddenNamed: sum((r) => r.forbiddenNamed),
    secondCallHits: sum((r) => r.secondCallHits),
    coldP50Ms: p50(latencies),
  };
  const parts = languages.map((r) => `${r.language} ${fmtScore(r.total)}/${r.max}`).join(', ');
  const totalLine = `evidence-dev: score ${fmtScore(all.total)}/${all.max} (${parts}; second call zero-worker hit ${all.secondCallHits}/${all.tasks})`;
  return { languages, all, tasks, totalLine };
}

const latency = (x: number | null): string => (x === null ? 'not timed' : `${x >= 100 ? x.toFixed(0) : x.toFixed(1)} ms`);
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

export function languageTable(t: QualityTables): string {
  const row = (r: LanguageRow, bold: boolean): string => {
    const cells = [
      r.language,
      String(r.tasks),
      `${fmtScore(r.total)} / ${r.max}`,
      `${r.itemsFound} / ${r.itemsTotal}`,
      `${r.testsNamed} / ${r.tasks}`,
      String(r.forbiddenNamed),
      `${r.secondCallHits} / ${r.tasks}`,
      latency(r.coldP50Ms),
    ];
    return `| ${(bold ? cells.map((c) => `**${c}**`) : cells).join(' | ')} |`;
  };
  return [
    '| language | tasks | score / max | evidence items found | focused tests named | forbidden named | second-call zero-worker hits | cold p50 latency |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...t.languages.map((r) => row(r, false)),
    row(t.all, true),
  ].join('\n');
}

export function taskTable(t: QualityTables): string {
  return [
    '| task | score | resolution (first call) | second call |',
    '|---|---:|---|---|',
    ...t.tasks.map((r) => `| ${cell(r.task)} (${cell(r.language)}) | ${fmtScore(r.total)} / ${r.max} | ${cell(r.resolution)} | ${cell(r.secondCall)} |`),
  ].join('\n');
}

export interface QualityMeta {
  /** The command a reader runs to reproduce the block. */
  readonly command: string;
  /** The runner invocation the command made, paths relative to the project root. */
  readonly runner: string;
  readonly machine: string;
  readonly date: string;
  /** The product commit the build came from (`git describe --always --dirty`), or null. */
  readonly commit: string | null;
  readonly roleProfile: string;
}

/** The README block: what was run, both tables, the total line and the command. */
export function renderQuality(t: QualityTables, meta: QualityMeta): string {
  return [
    `Scored development set (${t.all.tasks} typed needs on public command-line programs at pinned commits; see its README): per task a fresh data directory and \`needle mcp serve --role-profile ${meta.roleProfile}\`, the need sent twice. The first answer scores up to 3: the fraction of the oracle's evidence items it cites, 1 for naming the focused test, 1 for naming no forbidden test (a bypass or empty answer scores 0); the second identical call should be a zero-worker hit.${meta.commit === null ? '' : ` Product built from \`${meta.commit}\`.`}`,
    '',
    languageTable(t),
    '',
    taskTable(t),
    '',
    `\`${t.totalLine}\``,
    '',
    `Command: \`${meta.command}\` (runs \`${meta.runner}\`; ${meta.machine}, ${meta.date})`,
  ].join('\n');
}
