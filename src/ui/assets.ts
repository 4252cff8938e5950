// The control plane's only static assets, shipped inside the package as
// strings: no CDN, no web font (system fonts), no request leaves the machine.

export const CSS = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1b1c1e; --muted: #5a5f66; --line: #d9dbde; --panel: #ffffff;
  --accent: #0b5cad; --ok: #1d6b36; --warn: #8a5a00; --bad: #b3261e; --add: #e6f4ea; --del: #fde8e7; --hunk: #eef1f6;
  --s1: #0b5cad; --s2: #c2691d; --s3: #1d6b36; --s4: #7a3ea8; --kw: #7a3ea8; --str: #1d6b36; --com: #6b7078; }
@media (prefers-color-scheme: dark) { :root { --bg: #16181b; --fg: #e6e7e9; --muted: #a6abb2; --line: #33373d; --panel: #1e2125;
  --accent: #7db7ff; --ok: #7fd49a; --warn: #f0c36a; --bad: #ff8a80; --add: #173622; --del: #42201e; --hunk: #232a35;
  --s1: #7db7ff; --s2: #f0a35e; --s3: #7fd49a; --s4: #c9a0f0; --kw: #c9a0f0; --str: #7fd49a; --com: #8d939b; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, select:focus-visible, input:focus-visible, [tabindex]:focus-visible, summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--panel); padding: 4px 8px; z-index: 2; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; padding: 8px 16px; border-bottom: 1px solid var(--line); background: var(--panel); }
.brand { font-weight: 700; }
nav ul { display: flex; flex-wrap: wrap; gap: 2px 12px; list-style: none; margin: 0; padding: 0; }
nav a { text-decoration: none; padding: 2px 4px; border-radius: 4px; }
nav a[aria-current="page"] { background: var(--accent); color: var(--bg); }
main { padding: 8px 16px 32px; max-width: 1200px; margin: 0 auto; }
main:focus { outline: none; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 1.6em; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 8px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.card .v { font-size: 1.4rem; font-weight: 650; } .card .k { color: var(--muted); font-size: .85rem; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px; }
figure { margin: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
figcaption { font-weight: 600; margin-bottom: 4px; }
svg.plot { width: 100%; height: auto; display: block; }
svg.plot text { fill: var(--muted); font-size: 11px; }
svg.plot line.axis { stroke: var(--line); }
.s1 { fill: var(--s1); } .s2 { fill: var(--s2); } .s3 { fill: var(--s3); } .s4 { fill: var(--s4); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: .85rem; color: var(--muted); list-style: none; padding: 0; margin: 4px 0 0; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
.legend .s1 { background: var(--s1); } .legend .s2 { background: var(--s2); } .legend .s3 { background: var(--s3); } .legend .s4 { background: var(--s4); }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
caption { text-align: left; color: var(--muted); font-size: .85rem; padding: 2px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
p, li, dd, h1, h2, h3, summary { overflow-wrap: anywhere; }
td { overflow-wrap: break-word; } td code { overflow-wrap: anywhere; }
@media (max-width: 700px) { .scroll table { min-width: 680px; } }
main > * { max-width: 100%; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; overflow-x: auto; white-space: pre; }
pre:not(.diff) { white-space: pre-wrap; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: .8rem; border: 1px solid currentColor; white-space: nowrap; }
.badge.ok { color: var(--ok); } .badge.warn { color: var(--warn); } .badge.bad { color: var(--bad); } .badge.info { color: var(--muted); }
.empty { color: var(--muted); }
form.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
select, input, button { font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; min-height: 32px; }
a.button { display: inline-block; padding: 4px 12px; border-radius: 4px; background: var(--accent); color: var(--bg); text-decoration: none; font-weight: 600; }
button.primary { background: var(--accent); color: var(--bg); border-color: var(--accent); }
button.danger { background: var(--bad); color: var(--bg); border-color: var(--bad); }
.confirm { border: 2px solid var(--warn); border-radius: 6px; padding: 8px 12px; background: var(--panel); }
.refused { border-left: 4px solid var(--bad); padding: 4px 12px; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; } dl.kv dt { color: var(--muted); } dl.kv dd { margin: 0; overflow-wrap: anywhere; }
.diff { padding: 0; position: relative; } .diff span.l { display: block; padding: 0 8px; }
.diff .add { background: var(--add); } .diff .del { background: var(--del); } .diff .hunk { background: var(--hunk); color: var(--muted); }
.tk-kw { color: var(--kw); font-weight: 600; } .tk-str { color: var(--str); } .tk-com { color: var(--com); font-style: italic; }
#live:not(:empty) { position: sticky; top: 0; z-index: 1; background: var(--warn); color: var(--bg); padding: 4px 16px; }
#live a { color: inherit; font-weight: 600; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.pager { display: flex; gap: 12px; margin-top: 8px; }
#result:not(:empty) { margin-top: 8px; }
`;

/**
 * The only client code: sends confirmed actions as JSON with the token header
 * (a plain form post is refused by the server), and listens for activity
 * (server-sent events) to offer a refresh without stealing focus.
 */
export const JS = `
'use strict';
(function () {
  var tokenMeta = document.querySelector('meta[name="needle-token"]');
  var token = tokenMeta ? tokenMeta.getAttribute('content') : '';
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-action')) return;
    event.preventDefault();
    var out = document.getElementById('result');
    var body = {};
    new FormData(form).forEach(function (v, k) { body[k] = String(v); });
    var buttons = form.querySelectorAll('button');
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.getAttribute('data-action'), {
      method: 'POST', credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-needle-token': token },
      body: JSON.stringify(body)
    }).then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
      .then(function (res) {
        if (res.ok && res.j.next) { window.location.assign(res.j.next); return; }
        if (out) { out.textContent = res.ok ? (res.j.message || 'done') : ('Refused: ' + (res.j.error || 'unknown error')); out.focus(); }
        buttons.forEach(function (b) { b.disabled = false; });
      })
      .catch(function (e) { if (out) out.textContent = 'Failed: ' + e; buttons.forEach(function (b) { b.disabled = false; }); });
  });
  if (window.EventSource) {
    var first = null;
    var source = new EventSource('/events');
    source.addEventListener('activity', function (e) {
      if (first === null) { first = e.data; document.body.setAttribute('data-live', 'connected'); return; }
      if (e.data === first) return;
      var live = document.getElementById('live');
      if (live && !live.firstChild) {
        live.appendChild(document.createTextNode('New activity in the store. '));
        var a = document.createElement('a'); a.href = window.location.pathname + window.location.search; a.textContent = 'Refresh';
        live.appendChild(a);
      }
    });
  }
})();
`;
