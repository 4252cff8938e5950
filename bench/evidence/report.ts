// Markdown tables for the evidence benchmarks. Every cell is a measured value
// or says why there is none.
import { summarize, type Summary } from '../stats.js';
import type { RouteMeasurement } from './engine.js';
import type { GeneratedRepository } from './generate.js';
import type { ServerColdMeasurement } from './server-cold.js';
import type { StdioMeasurement } from './stdio.js';

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

const count = (n: number): string => n.toLocaleString('en-US').replace(/,/g, ' ');

export const repoLabel = (r: GeneratedRepository): string => `generated, ${count(r.files)} files`;

export interface StdioRow {
  readonly repository: string;
  readonly need: string;
  readonly result: StdioMeasurement | { readonly error: string };
}

const ratio = (a: number, b: number): string => `${(a / b).toFixed(1)}×`;

/** The warm-hit, echo-floor and ratio cells of one measurement (HIT_CELLS cells). */
function hitCells(r: StdioMeasurement): string[] {
  const echo = [ms(r.echo.p50), ms(r.echo.p95)];
  const requestEcho = `${ms(r.requestEcho.p50)} / ${ms(r.requestEcho.p95)}`;
  if ('notHit' in r.hits) return [`not a hit: ${r.hits.notHit}`, '', '', ...echo, '', '', requestEcho];
  const h = r.hits.summary;
  return [ms(h.p50), ms(h.p95), `${h.n} (${r.hits.connections})`, ...echo, ratio(h.p50, r.echo.p50), ratio(h.p95, r.echo.p95), requestEcho];
}

const HIT_HEADER =
  'warm hit p50 | warm hit p95 | n (connections) | echo floor p50 (the answer line) | echo floor p95 | hit ÷ echo p50 | hit ÷ echo p95 | echo of the request line p50 / p95';
const HIT_CELLS = HIT_HEADER.split(' | ').length;

/** Rows of `lead` cells before the hit cells; an unmeasured row says why in its first cell. */
function hitTable(rows: readonly StdioRow[], leadHeader: readonly string[], lead: (r: StdioMeasurement) => readonly string[]): string {
  const width = 2 + leadHeader.length + HIT_CELLS;
  const lines = [`| repository | need | ${[...leadHeader, HIT_HEADER].join(' | ')} |`, `|---|---|${'---:|'.repeat(width - 2)}`];
  for (const row of rows) {
    const r = row.result;
    const cells = 'error' in r ? [`not measured: ${r.error}`, ...Array<string>(width - 3).fill('')] : [...lead(r), ...hitCells(r)];
    lines.push(`| ${row.repository} | ${row.need} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function stdioTable(rows: readonly StdioRow[]): string {
  return hitTable(rows, ['first call (cache cold)', 'repeats in that same process p50 / p95 (n)'], (r) => [
    `${ms(r.firstMs)} (${r.firstStatus})`,
    'notHit' in r.hits || !r.hits.afterCold ? 'none' : `${ms(r.hits.afterCold.p50)} / ${ms(r.hits.afterCold.p95)} (${r.hits.afterCold.n})`,
  ]);
}

/** Warm hits and the echo floor when every request follows a client's think time (StdioBenchOptions.pauseMs). */
export function pacedTable(rows: readonly StdioRow[]): string {
  return hitTable(rows, [], () => []);
}

/** Server start: process spawned → initialize answered → first need answered. */
export function startTable(rows: readonly StdioRow[]): string {
  const lines = [
    '| repository | need | spawn → `initialize` answered p50 / p95 (n) | spawn → first need answered, cache cold | spawn → first need answered, cache warm p50 / p95 (n) | that first need alone (request → reply) p50 | first need asked after a pause, cache cold (request → reply) |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const r = row.result;
    if ('error' in r) continue;
    const warm =
      'notHit' in r.hits || r.hits.startToFirstNeed === null || r.hits.freshProcess === null
        ? ['no warm connection', '']
        : [`${ms(r.hits.startToFirstNeed.p50)} / ${ms(r.hits.startToFirstNeed.p95)} (${r.hits.startToFirstNeed.n})`, ms(r.hits.freshProcess.p50)];
    const init = r.startToInitialize;
    const paused = r.coldAfterPause ? `${ms(r.coldAfterPause.ms)} (${r.coldAfterPause.pauseMs / 1000} s after \`initialize\`; ${r.coldAfterPause.status})` : '';
    lines.push(`| ${row.repository} | ${row.need} | ${ms(init.p50)} / ${ms(init.p95)} (${init.n}) | ${ms(r.startToFirstNeedCold)} (${r.firstStatus}) | ${warm.join(' | ')} | ${paused} |`);
  }
  return lines.join('\n');
}

/** Warm hit p95 of the largest repository over the smallest, per need, from the same run. */
export function scalingLine(rows: readonly StdioRow[]): string {
  const byNeed = new Map<string, { repository: string; p95: number }[]>();
  for (const row of rows) {
    const r = row.result;
    // Sizes are compared on the generated repositories only (same shape, other size).
    if ('error' in r || 'notHit' in r.hits || !row.repository.startsWith('generated')) continue;
    const kind = row.need.includes('(none exists: partial)') ? 'partial hit' : 'hit';
    byNeed.set(kind, [...(byNeed.get(kind) ?? []), { repository: row.repository, p95: r.hits.summary.p95 }]);
  }
  const parts = [...byNeed.entries()]
    .filter(([, list]) => list.length >= 2)
    .map(([kind, list]) => `${kind}: ${ratio(list[list.length - 1]!.p95, list[0]!.p95)} (${list[list.length - 1]!.repository} ÷ ${list[0]!.repository})`);
  return parts.length > 0 ? `Warm p95 of the larger repository ÷ the smaller, same run — ${parts.join('; ')}.` : '';
}

export interface EngineRow {
  readonly repository: string;
  readonly grep: Summary | null;
  readonly routes: readonly RouteMeasurement[];
}

function warmCells(m: RouteMeasurement): string[] {
  if ('notHit' in m.warm) return [`no warm hit: ${m.warm.notHit}`, ''];
  return [`${ms(m.warm.summary.p50)} (${m.warm.kind})`, ms(m.warm.summary.p95)];
}

function coverage(m: RouteMeasurement): string {
  const missing = m.missing.length > 0 ? `; missing ${m.missing.join(', ')}` : '';
  return `${m.coldKind}: ${m.satisfied.join(', ') || 'nothing'} satisfied${missing}`;
}

export function engineTable(rows: readonly EngineRow[]): string {
  const lines = [
    '| repository | route | subject | first resolution, fresh data dir (p50 of n) | `git grep -n -w`, right after each (p50) | first ÷ grep | first result | repeat p50 | repeat p95 | FrontierView tokens |',
    '|---|---|---|---:|---:|---:|---|---:|---:|---:|',
  ];
  for (const row of rows) {
    for (const m of row.routes) {
      const grep = summarize(m.grep).p50;
      lines.push(
        `| ${row.repository} | ${m.route} | ${m.subject.kind}:${m.subject.name} | ${ms(m.cold.p50)} (${m.cold.n}) | ${ms(grep)} | ${ratio(m.cold.p50, grep)} | ${coverage(m)} | ${warmCells(m).join(' | ')} | ${m.tokens} |`,
      );
    }
  }
  return lines.join('\n');
}

export interface ServerColdRow {
  readonly repository: string;
  readonly subject: string;
  readonly firstSubject: string;
  /** `git grep -n -w` of the subject on the same repository, p50 (the in-process table's). */
  readonly grepP50: number | null;
  readonly result: ServerColdMeasurement | { readonly error: string };
}

/** Cold needs of a server whose analyzer thread has indexed the repository, over stdio, against git grep. */
export function serverColdTable(rows: readonly ServerColdRow[]): string {
  const lines = [
    '| repository | the server said | its last line after `initialize` p50 | server\'s first need (locate, another subject) p50 | route | cold need, request → reply p50 (n) | ÷ `git grep` p50 | outcome |',
    '|---|---|---:|---:|---|---:|---:|---|',
  ];
  for (const row of rows) {
    const r = row.result;
    if ('error' in r) {
      lines.push(`| ${row.repository} | not measured: ${r.error} | | | | | | |`);
      continue;
    }
    for (const [i, m] of r.routes.entries()) {
      const lead = i === 0 ? [row.repository, `${r.indexed}; then ${r.warmedUp}`, ms(r.indexedAfter.p50), `${ms(r.first.p50)} (\`${row.firstSubject}\`)`] : ['', '', '', ''];
      const over = row.grepP50 === null ? 'n/a' : ratio(m.cold.p50, row.grepP50);
      lines.push(`| ${[...lead, `${m.route} ${row.subject}`, `${ms(m.cold.p50)} (${m.cold.n})`, over, m.status].join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
