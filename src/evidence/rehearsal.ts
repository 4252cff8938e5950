// Readying the static analyzer before its first need, off the request path
// (the analyzer thread does it when a server starts). A process's first cold
// resolution otherwise pays, on top of the analysis itself, for loading the
// grammars and for compiling every tree-sitter query of the languages it
// parses: measured on a generated 1 000-file TypeScript repository, 160 ms of
// query compilation and 54 ms of grammar loading in a 330 ms first resolution
// whose repeat in a warm process takes 30 ms. Only the languages the
// repository holds are readied: each costs its grammar and its queries.
import { gitBytesAsync, LIST_WORKTREE_FILES } from '../repo/git.js';
import type { ParsedFile } from './context.js';
import { factsOf } from './languages/index.js';
import { languageForPath, loadLanguages, parse, type LanguageId } from './parse/treesitter.js';

/**
 * Small sources whose extraction reaches every query of their language:
 * definitions, calls, member and index reads, option declarations and tests.
 * The paths are test paths, so test blocks are extracted too.
 */
const SAMPLES: Record<LanguageId, { readonly path: string; readonly text: string }> = {
  typescript: {
    path: 'rehearsal.test.ts',
    text: `export interface Settings { dryRun: boolean }
export class Tool { run(): void {} }
const opts = { a: { type: 'boolean' } };
export function main(argv: string[]): void {
  const env = process.env.TOOL_MODE ?? config['mode'];
  program.option('--dry-run', 'x'); new Option('--force'); settings.get('key'); a.b.c = env;
}
describe('tool', () => { it('runs', () => { main([]); }); });
`,
  },
  tsx: {
    path: 'rehearsal.test.tsx',
    text: `export function View(props: { name: string }) { return <div>{props.name}</div>; }
const opts = { a: { type: 'boolean' } };
program.option('--dry-run', 'x'); new Option('--force'); settings.get('key'); const m = process.env.MODE ?? config['mode']; a.b.c = m;
describe('view', () => { it('renders', () => { View({ name: 'x' }); }); });
`,
  },
  javascript: {
    path: 'rehearsal.test.js',
    text: `class Tool { run() {} }
const opts = { a: { type: 'boolean' } };
function main(argv) {
  const env = process.env.TOOL_MODE ?? config['mode'];
  program.option('--dry-run', 'x'); new Option('--force'); settings.get('key'); a.b.c = env;
}
describe('tool', () => { it('runs', () => { main([]); }); });
`,
  },
  python: {
    path: 'test_rehearsal.py',
    text: `import os
class Tool:
    def run(self, dry_run=False):
        mode = os.environ.get("TOOL_MODE") or os.environ["HOME"] or config["mode"]
        parser.add_argument("--dry-run", action="store_true", dest="dry_run")
        return args.dry_run

def test_run():
    Tool().run()
`,
  },
  go: {
    path: 'rehearsal_test.go',
    text: `package main

const modeKey = "TOOL_MODE"

type Settings struct {
	DryRun bool \`json:"dry_run" yaml:"dry-run"\`
}

func main() {
	flag.BoolVar(&s.DryRun, "dry-run", false, "x")
	mode := os.Getenv(modeKey)
	switch mode {
	case "fast":
	}
	_ = cfg["mode"]
}

func TestRun(t *testing.T) { main() }
`,
  },
  rust: {
    path: 'tests/rehearsal.rs',
    text: `pub struct Args { pub dry_run: bool }
impl Args { pub fn new() -> Self { Args { dry_run: false } } }
fn main() {
    let mode = std::env::var("TOOL_MODE").unwrap_or_default();
    let m = Arg::new("dry-run").long("dry-run");
    println!("{}", config["mode"]);
    let v = matches.get_flag("dry-run");
}
#[test]
fn runs() { main(); }
`,
  },
};

/** The languages the static analyzer parses among `paths`. */
export function languagesOf(paths: Iterable<string>): LanguageId[] {
  const found = new Set<LanguageId>();
  for (const p of paths) {
    const id = languageForPath(p);
    if (id) found.add(id);
  }
  return [...found];
}

/** The files git lists in `root`, tracked and untracked, not ignored (as the analyzer's searches see them). */
export async function repositoryFiles(root: string): Promise<string[]> {
  const listing = await gitBytesAsync(root, LIST_WORKTREE_FILES);
  return listing.toString('utf8').split('\0').filter(Boolean);
}

/**
 * Loads the grammars of `languages` and runs each language's extraction once
 * on its sample, which compiles its queries and warms the extraction code.
 * Everything it prepares is process-wide and the same for any repository.
 */
export async function rehearse(languages: readonly LanguageId[]): Promise<void> {
  await loadLanguages(languages);
  for (const language of languages) {
    const { path, text } = SAMPLES[language];
    const tree = parse(language, text);
    try {
      const file: ParsedFile = { path, language, text, tree };
      const facts = factsOf(file);
      // Option and key declarations are extracted on first use: ask for them.
      void facts.options.length;
      void facts.configKeys.length;
    } finally {
      tree.delete();
    }
  }
}
