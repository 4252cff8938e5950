// Markdown tables for the evidence benchmarks. Every cell is a measured value
// or says why there is none.
import type { Summary } from '../stats.js';
import type { RouteMeasurement } from './engine.js';
import type { GeneratedRepository } from './generate.js';
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

export function stdioTable(rows: readonly StdioRow[]): string {
  const lines = [
    '| repository | need | first call (cache cold) | warm hit p50 | warm hit p95 | n (connections) | first need of a new server p50 (n) | echo floor p50 | echo floor p95 |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const r = row.result;
    if ('error' in r) {
      lines.push(`| ${row.repository} | ${row.need} | not measured: ${r.error} | | | | | | |`);
      continue;
    }
    const hits =
      'notHit' in r.hits
        ? [`not a hit: ${r.hits.notHit}`, '', '', '']
        : [
            ms(r.hits.summary.p50),
            ms(r.hits.summary.p95),
            `${r.hits.summary.n} (${r.hits.connections})`,
            r.hits.freshProcess ? `${ms(r.hits.freshProcess.p50)} (${r.hits.freshProcess.n})` : 'no second connection',
          ];
    lines.push(`| ${row.repository} | ${row.need} | ${ms(r.firstMs)} (${r.firstStatus}) | ${hits.join(' | ')} | ${ms(r.echo.p50)} | ${ms(r.echo.p95)} |`);
  }
  return lines.join('\n');
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
    '| repository | route | subject | first resolution, fresh data dir (p50 of n) | `git grep -n -w` (p50) | first result | repeat p50 | repeat p95 | FrontierView tokens |',
    '|---|---|---|---:|---:|---|---:|---:|---:|',
  ];
  for (const row of rows) {
    for (const m of row.routes) {
      const grep = row.grep ? ms(row.grep.p50) : 'n/a';
      lines.push(
        `| ${row.repository} | ${m.route} | ${m.subject.kind}:${m.subject.name} | ${ms(m.cold.p50)} (${m.cold.n}) | ${grep} | ${coverage(m)} | ${warmCells(m).join(' | ')} | ${m.tokens} |`,
      );
    }
  }
  return lines.join('\n');
}
