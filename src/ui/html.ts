// Server-rendered HTML: every value goes through `esc` (or is built from
// `Html` fragments), so nothing from the store can become markup.
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function part(p: Part): string {
  if (p === null || p === undefined || p === false) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return (p as readonly Part[]).map(part).join('');
  return esc(p);
}

/** Tagged template: interpolations are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += part(v) + strings[i + 1]!));
  return new Html(out);
}

export const raw = (s: string): Html => new Html(s);

export const time = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z').replace('T', ' ');
export const usd = (v: number | null): string => (v === null ? 'unknown' : `$${v.toFixed(4)}`);
export const num = (n: number): string => n.toLocaleString('en-US');
export const short = (id: string, n = 19): string => (id.length > n ? `${id.slice(0, n)}…` : id);

export function table(caption: string, head: readonly string[], rows: readonly (readonly Part[])[], empty = 'nothing yet'): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table><caption>${caption}</caption><thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}

export const badge = (text: string, tone: 'ok' | 'warn' | 'bad' | 'info' = 'info'): Html => html`<span class="badge ${tone}">${text}</span>`;

export const NAV: readonly [string, string][] = [
  ['/', 'Overview'],
  ['/needs', 'Needs'],
  ['/cache', 'Cache'],
  ['/changes', 'Changes'],
  ['/profiles', 'Profiles'],
  ['/runs', 'Worker runs'],
];

// A plain string, not template text: a bundler rewrites `</script` inside a
// tagged template into a call of a runtime helper package.
const SCRIPT_TAG = raw('<script src="/assets/app.js" defer></script>');

export function layout(title: string, path: string, body: Html, token: string): string {
  const section = NAV.filter(([href]) => (href === '/' ? path === '/' : path.startsWith(href))).pop()?.[0];
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><meta name="needle-token" content="${token}"><title>${title} · Needle</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/app.css">${SCRIPT_TAG}</head><body><a class="skip" href="#main">Skip to content</a><header><span class="brand">Needle</span><nav aria-label="Sections"><ul>${NAV.map(
    ([href, label]) => html`<li><a href="${href}"${section === href ? raw(' aria-current="page"') : ''}>${label}</a></li>`,
  )}</ul></nav></header><div id="live" role="status" aria-live="polite"></div><main id="main" tabindex="-1"><h1>${title}</h1>${body}</main></body></html>`.text}`;
}

export function errorPage(status: number, message: string): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${message}</p></body></html>`.text}`;
}
