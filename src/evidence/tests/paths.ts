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

/**
 * Directories from the file's own up to the repository root whose file `name`
 * exists and satisfies `accept`, nearest first. Presence is the file itself,
 * read through the context so that it is observed: a handful of reads instead
 * of listing every file of the repository (an ignored manifest is read too;
 * a citation of it would not pass the validators' snapshot check).
 */
export function projectDirs(
  ctx: AnalysisContext,
  file: string,
  name: string,
  accept: (text: string) => boolean = () => true,
): string[] {
  const out: string[] = [];
  for (let dir = dirOf(file); ; dir = dirOf(dir)) {
    const text = ctx.read(joinPath(dir, name));
    if (text !== null && accept(text)) out.push(dir);
    if (dir === '') return out;
  }
}
