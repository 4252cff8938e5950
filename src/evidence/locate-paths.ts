// implementation_location for file and module subjects. A file is its own
// evidence (its head); a module is its file (Rust x.rs / x/mod.rs, Python
// x.py / x/__init__.py, a Go package directory, a TS/JS module file) or, when
// that file never spells the module's name, the declaration that introduces it
// (`mod x;`), with the file as supporting evidence.
import { EVIDENCE } from '../core/limits.js';
import type { Location } from '../core/contracts.js';
import { type AnalysisContext } from './context.js';
import { isTestPath } from '../core/test-code.js';
import { candidateFrom, discover, found, settle, type Candidate, type LocateResult } from './candidates.js';
import { languageForPath } from './parse/treesitter.js';
import { mentionSpellings } from './names.js';
import { escapeRegExp } from '../core/text.js';

const cleanPath = (p: string): string => p.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function head(ctx: AnalysisContext, path: string, role: Location['role']): Location | null {
  const text = ctx.read(path);
  const n = text === null ? 0 : lineCount(text);
  if (n === 0) return null;
  return { role, path, symbol: null, start_line: 1, end_line: Math.min(n, EVIDENCE.maxLocationLines) };
}

export function locateFile(ctx: AnalysisContext, subject: string): LocateResult {
  const path = cleanPath(subject);
  const files = ctx.listFiles();
  if (!files.includes(path)) {
    const isDir = files.some((f) => f.startsWith(`${path}/`));
    return { kind: 'unresolved', reason: isDir ? `${path} is a directory; ask for it as a module` : `${path} is not a tracked or untracked file of the repository` };
  }
  const primary = head(ctx, path, 'primary');
  return primary ? found(primary, []) : { kind: 'unresolved', reason: `${path} is empty or not text` };
}

const SOURCE_EXT = /\.(rs|py|go|ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;

/** Files that are the module `segs` in some ecosystem, found by path suffix (no parsing). */
function moduleFiles(files: readonly string[], segs: readonly string[]): { path: string; kind: string }[] {
  const tail = segs.join('/');
  const out: { path: string; kind: string }[] = [];
  const packages = new Map<string, string[]>();
  for (const f of files) {
    if (isTestPath(f) || !SOURCE_EXT.test(f)) continue;
    const noExt = f.replace(SOURCE_EXT, '');
    const endsWith = (s: string) => s === tail || s.endsWith(`/${tail}`);
    if (f.endsWith('.go')) {
      const dir = f.slice(0, Math.max(0, f.lastIndexOf('/')));
      if (endsWith(dir)) packages.set(dir, [...(packages.get(dir) ?? []), f]);
    } else if (endsWith(noExt)) out.push({ path: f, kind: 'module-file' });
    else if (/\/(mod|__init__|index)$/.test(noExt) && endsWith(noExt.slice(0, noExt.lastIndexOf('/')))) out.push({ path: f, kind: 'module-file' });
  }
  for (const [dir, members] of packages) {
    const base = dir.slice(dir.lastIndexOf('/') + 1);
    const preferred = members.find((m) => m.endsWith('/doc.go')) ?? members.find((m) => m.endsWith(`/${base}.go`)) ?? [...members].sort()[0]!;
    out.push({ path: preferred, kind: 'go-package' });
  }
  return out;
}

const PACKAGE_INDEX = ['__init__.py', 'index.ts', 'index.js', 'index.mjs', 'mod.rs', 'lib.rs'];

/** The line of the parent package's index file that names the module (`from .core import …`). */
function parentImports(ctx: AnalysisContext, modules: readonly Candidate[], name: string): Candidate[] {
  const word = new RegExp(`(^|[^\\w])${escapeRegExp(name)}([^\\w]|$)`);
  return modules.flatMap((m) => {
    const dir = m.path.replace(/\/(__init__\.py|index\.[jt]s|mod\.rs)$/, '').replace(/\/[^/]*$/, '');
    for (const index of PACKAGE_INDEX.map((f) => `${dir}/${f}`)) {
      if (index === m.path) continue;
      const lines = (ctx.read(index) ?? '').split('\n');
      const at = lines.findIndex((l) => word.test(l));
      if (at >= 0) return [candidateFrom(index, { startLine: at + 1, endLine: at + 1, inTest: false }, { kind: 'package-import', name, tier: 1, symbol: name, carriers: [] })];
    }
    return [];
  });
}

export function locateModule(ctx: AnalysisContext, subject: string): LocateResult {
  const segs = cleanPath(subject)
    .replace(SOURCE_EXT, '')
    .split(/::|[./]/)
    .filter((s) => s && s !== 'crate');
  const name = segs[segs.length - 1];
  if (!name) return { kind: 'unresolved', reason: `module ${subject} names nothing` };
  const spellings = mentionSpellings(name);
  const files = moduleFiles(ctx.listFiles(), segs);
  const fileCandidates: Candidate[] = files.flatMap(({ path, kind }) => {
    const h = head(ctx, path, 'primary');
    return h ? [candidateFrom(path, { startLine: 1, endLine: h.end_line, inTest: false }, { kind, name, tier: 0, symbol: null, carriers: [] })] : [];
  });
  // Rust declares modules in their parent (`mod x;` or an inline `mod x { … }`).
  const discovery = discover(ctx, [`mod ${name}`], { word: true, pathspecs: ['*.rs'] }, false);
  const declarations: Candidate[] = discovery.files.flatMap((path) => {
    return (ctx.facts(path)?.definitions ?? [])
      .filter((d) => d.kind === 'module' && d.name === name)
      .map((d) => candidateFrom(path, d, { kind: 'mod', name, tier: d.bodyLine === undefined ? 1 : 0, symbol: name, carriers: [] }));
  });
  const named = fileCandidates.filter((c) => {
    const text = (ctx.read(c.path) ?? '').split('\n').slice(0, c.span.endLine).join('\n');
    return spellings.some((s) => text.includes(s));
  });
  const pool = named.length > 0 ? named : declarations.length > 0 ? declarations : parentImports(ctx, fileCandidates, name);
  const result = settle(ctx, pool, {
    allowTest: false,
    spellings,
    notFound: `no module ${subject}`,
    searchComplete: discovery.complete,
    support: () => null,
  });
  if (result.kind !== 'found' || named.length > 0) return result;
  const moduleFile = fileCandidates.find((c) => languageForPath(c.path) === 'rust') ?? fileCandidates[0];
  const supporting = moduleFile ? head(ctx, moduleFile.path, 'supporting') : null;
  return supporting ? found(result.payload.locations[0]!, [supporting], result.payload.gaps) : result;
}
