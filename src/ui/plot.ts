// Plots as inline SVG rendered on the server: grouped bars per day, a legend,
// a <title> per bar, and the same numbers as a table for screen readers.
import { esc, html, raw, table, type Html } from './html.js';

export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

const W = 360;
const H = 170;
const PAD = { l: 52, r: 6, t: 8, b: 24 };

function tick(v: number, format: (n: number) => string): string {
  return format(v);
}

export function barPlot(title: string, days: readonly string[], series: readonly Series[], format: (n: number) => string): Html {
  const max = Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
  const top = max > 0 ? max : 1;
  const innerW = W - PAD.l - PAD.r;
  const innerH = H - PAD.t - PAD.b;
  const groupW = days.length > 0 ? innerW / days.length : innerW;
  const barW = Math.max(1, (groupW * 0.8) / Math.max(1, series.length));
  const bars: string[] = [];
  days.forEach((day, i) => {
    series.forEach((s, j) => {
      const v = s.values[i] ?? 0;
      const h = (v / top) * innerH;
      const x = PAD.l + i * groupW + groupW * 0.1 + j * barW;
      const y = PAD.t + innerH - h;
      const shown = s.values[i] === null ? 'unknown' : format(v);
      bars.push(`<rect class="s${(j % 4) + 1}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(`${day} ${s.label}: ${shown}`)}</title></rect>`);
    });
  });
  const every = Math.max(1, Math.ceil(days.length / 7));
  const labels = days
    .map((d, i) => (i % every === 0 ? `<text x="${(PAD.l + i * groupW + groupW / 2).toFixed(1)}" y="${H - 10}" text-anchor="middle">${esc(d.slice(5))}</text>` : ''))
    .join('');
  const axis = `<line class="axis" x1="${PAD.l}" y1="${PAD.t + innerH}" x2="${W - PAD.r}" y2="${PAD.t + innerH}"/><line class="axis" x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${PAD.t + innerH}"/>`;
  const yLabels = `<text x="${PAD.l - 4}" y="${PAD.t + 10}" text-anchor="end">${esc(tick(max, format))}</text><text x="${PAD.l - 4}" y="${PAD.t + innerH}" text-anchor="end">0</text>`;
  const svg = `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${axis}${yLabels}${bars.join('')}${labels}</svg>`;
  return html`<figure><figcaption>${title}</figcaption>${days.length === 0 ? html`<p class="empty">no data in this period</p>` : raw(svg)}<ul class="legend">${series.map(
    (s, j) => html`<li><i class="s${(j % 4) + 1}" aria-hidden="true"></i>${s.label}</li>`,
  )}</ul><details><summary>Data</summary>${table(
    title,
    ['day', ...series.map((s) => s.label)],
    days.map((d, i) => [d, ...series.map((s) => (s.values[i] === null ? 'unknown' : format(s.values[i]!)))]),
  )}</details></figure>`;
}
