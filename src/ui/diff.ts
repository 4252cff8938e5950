// A unified diff as HTML: each line coloured by its kind (added, removed,
// hunk header), and inside it a small lexical colouring (strings, comments,
// common keywords) that is exact about escaping and never guesses structure.
import { esc, raw, type Html } from './html.js';

const KEYWORDS = new Set(
  'async await break case catch class const continue def default defer delete do elif else enum export extends false fn for from func function go if impl import in interface let match mod new nil None null package private protected pub public return self static struct super switch this throw true try type typeof undefined use var void while with yield'.split(' '),
);

const TOKEN = /(\/\/.*$|#.*$|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|\b[A-Za-z_][A-Za-z0-9_]*\b)/g;

function colour(code: string): string {
  let out = '';
  let last = 0;
  for (const m of code.matchAll(TOKEN)) {
    const t = m[0];
    out += esc(code.slice(last, m.index));
    if (t.startsWith('//') || t.startsWith('#')) out += `<span class="tk-com">${esc(t)}</span>`;
    else if (/^["'`]/.test(t)) out += `<span class="tk-str">${esc(t)}</span>`;
    else if (KEYWORDS.has(t)) out += `<span class="tk-kw">${esc(t)}</span>`;
    else out += esc(t);
    last = m.index + t.length;
  }
  return out + esc(code.slice(last));
}

export function diffHtml(diff: string): Html {
  const lines = diff.replace(/\n$/, '').split('\n');
  const body = lines
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return `<span class="l hunk">${esc(line)}</span>`;
      if (line.startsWith('@@')) return `<span class="l hunk">${esc(line)}</span>`;
      const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
      const mark = kind === 'add' ? '<span class="visually-hidden">added </span>' : kind === 'del' ? '<span class="visually-hidden">removed </span>' : '';
      return `<span class="l ${kind}">${mark}${esc(line.slice(0, 1))}${colour(line.slice(1))}</span>`;
    })
    .join('');
  return raw(`<pre class="diff" tabindex="0">${body}</pre>`);
}
