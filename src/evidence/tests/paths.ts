// Repository-relative path arithmetic ('/' separated, '' for the root), kept
// apart from node:path so results never depend on the host's separator.
import type { AnalysisContext } from '../context.js';

export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function joinPath(dir: string, rel: string): string {
  return dir === '' ? rel : `${dir}/${rel}`;
}

/** `path` relative to `dir`, which must contain it. */
export function relativeTo(dir: string, path: string): string {
  return dir === '' ? path : path.slice(dir.length + 1);
}

/** The directory as a cwd_relative value. */
export function cwdOf(dir: string): string {
  return dir === '' ? '.' : dir;
}

const listings = new WeakMap<AnalysisContext, ReadonlySet<string>>();

function listing(ctx: AnalysisContext): ReadonlySet<string> {
  let set = listings.get(ctx);
  if (!set) listings.set(ctx, (set = new Set(ctx.listFiles())));
  return set;
}

/**
 * Directories from the file's own up to the repository root whose file `name`
 * exists and satisfies `accept`, nearest first. Presence comes from the file
 * listing; contents are read through the context so they are observed.
 */
export function projectDirs(
  ctx: AnalysisContext,
  file: string,
  name: string,
  accept: (text: string) => boolean = () => true,
): string[] {
  const listed = listing(ctx);
  const out: string[] = [];
  for (let dir = dirOf(file); ; dir = dirOf(dir)) {
    const candidate = joinPath(dir, name);
    if (listed.has(candidate)) {
      const text = ctx.read(candidate);
      if (text !== null && accept(text)) out.push(dir);
    }
    if (dir === '') return out;
  }
}
