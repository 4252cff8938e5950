// What a repository itself marks as not its code: the `.gitattributes`
// attributes hosting services read to leave files out of a project's
// language statistics — `linguist-generated` (build output committed to the
// repository), `linguist-vendored`, `linguist-documentation`, and
// `linguist-language=txt` (text that happens to look like code). A committed
// `build/cli.cjs` compiled from `src/cli.ts` is where no maintainer would
// point: the analyzer neither cites nor follows it.
//
// Patterns follow gitignore's rules: a pattern without a slash matches a name
// at any depth, one with a slash is anchored at the root, `*` stays within a
// directory, `**` crosses directories, and `dir/**` is everything inside.

const NOT_CODE_ATTRIBUTES = /^(linguist-generated|linguist-vendored|linguist-documentation)(=(true|set))?$|^linguist-language=(txt|text)$/i;

/** A pattern's path test. */
type PathTest = (path: string) => boolean;

function globToRegExp(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` any leading directories; a trailing `**` everything below.
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += /[\\^$.|+()[\]{}]/.test(c) ? `\\${c}` : c;
  }
  return out;
}

function patternTest(pattern: string): PathTest | null {
  let p = pattern.trim();
  if (!p || p.startsWith('!') || p.startsWith('[')) return null;
  const dirOnly = p.endsWith('/');
  if (dirOnly) p = p.slice(0, -1);
  const anchored = p.includes('/');
  if (p.startsWith('/')) p = p.slice(1);
  const body = globToRegExp(p);
  // A name matches itself and, as a directory, everything inside it.
  const re = new RegExp(`^${anchored ? '' : '(?:.*/)?'}${body}${dirOnly ? '/.*' : '(?:/.*)?'}$`);
  return (path) => re.test(path);
}

/** The `.gitattributes` lines that mark paths as not code, as one test; null when none does. */
export function notCodeMarks(gitattributes: string): PathTest | null {
  const tests: PathTest[] = [];
  for (const raw of gitattributes.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [pattern, ...attributes] = line.split(/\s+/);
    if (!pattern || !attributes.some((a) => NOT_CODE_ATTRIBUTES.test(a))) continue;
    const test = patternTest(pattern);
    if (test) tests.push(test);
  }
  return tests.length === 0 ? null : (path) => tests.some((t) => t(path));
}
