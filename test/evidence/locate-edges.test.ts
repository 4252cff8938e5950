// Locate on purpose-built repositories: options mentioned only by tests, a
// project's own flag machinery, over-long definitions, and candidate discovery
// on a ~2 000-file repository (only matching files are parsed).
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVIDENCE } from '../../src/core/limits.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { locateImplementation } from '../../src/evidence/locate.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { createRepo, type FileMap } from './fixtures/repos.js';

const made: string[] = [];
function repo(files: FileMap): AnalysisContext {
  const root = createRepo(files);
  made.push(root);
  return new AnalysisContext(root);
}

beforeAll(() => loadLanguages());
afterAll(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

describe('supporting locations', () => {
  it('cites code that uses the symbol, not strings that merely mention it', () => {
    const ctx = repo({
      'src/plan.ts': 'export function buildPlan(n: number): number {\n  return n * 2;\n}\n',
      'src/run.ts': "import { buildPlan } from './plan.js';\nexport const total = buildPlan(4);\nexport const help = 'see buildPlan for details';\nexport const both = `${buildPlan(1)} via buildPlan`;\n",
    });
    const r = locateImplementation(ctx, { kind: 'symbol', name: 'buildPlan' });
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.payload.locations.filter((l) => l.role === 'supporting').map((l) => `${l.path}:${l.start_line}`)).toEqual(['src/run.ts:2', 'src/run.ts:4']);
  });
});

describe('primary locations stay out of test code', () => {
  it('does not answer with a test when the option appears only in tests', () => {
    const ctx = repo({
      'src/lib.rs': 'pub fn run(quiet: bool) -> bool {\n    !quiet\n}\n',
      'tests/cli.rs': 'use clap::Parser;\n#[derive(Parser)]\nstruct Probe {\n    #[arg(long)]\n    dry_run: bool,\n}\n#[test]\nfn parses() {\n    Probe::parse_from(["x", "--dry-run"]);\n}\n',
      'src/unit.rs':
        '#[cfg(test)]\nmod tests {\n    #[derive(clap::Parser)]\n    struct Probe {\n        #[arg(long)]\n        dry_run: bool,\n    }\n}\n',
    });
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--dry-run' });
    expect(r.kind).toBe('unresolved');
    if (r.kind === 'unresolved') expect(r.reason).toBe('no declaration of cli option --dry-run outside test code (seen only in src/unit.rs:5 clap-derive --dry-run)');
  });

  it('prefers the product source over an example with the same declaration', () => {
    const decl = (file: string) => `import argparse\np = argparse.ArgumentParser()\np.add_argument("--fast")\n# ${file}\n`;
    const ctx = repo({ 'app/cli.py': decl('app'), 'examples/demo.py': decl('example') });
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--fast' });
    expect(r.kind === 'found' && r.payload.locations[0]).toMatchObject({ path: 'app/cli.py', start_line: 3, end_line: 3 });
  });

  it('is ambiguous when two commands declare the same option', () => {
    const cmd = (name: string) =>
      `package cmd\n\nimport "github.com/spf13/cobra"\n\nvar force bool\n\nfunc init() {\n\t${name}.Flags().BoolVarP(&force, "force", "f", false, "overwrite")\n}\n`;
    const ctx = repo({ 'cmd/push.go': cmd('pushCmd'), 'cmd/pull.go': cmd('pullCmd') });
    expect(locateImplementation(ctx, { kind: 'cli_option', name: '--force' })).toEqual({
      kind: 'ambiguous',
      candidates: ['cmd/pull.go:8 go-flag --force', 'cmd/push.go:8 go-flag --force'],
    });
    expect(locateImplementation(ctx, { kind: 'cli_option', name: '-f' }).kind).toBe('ambiguous');
  });
});

describe('declarations that are one site', () => {
  it('answers with the enclosing function when one function declares the option in two branches', () => {
    const ctx = repo({
      'command.go': [
        'package cli',
        '',
        'func (c *Command) InitVersionFlag(usage string) {',
        '\tif c.Flags().ShorthandLookup("v") == nil {',
        '\t\tc.Flags().BoolP("version", "v", false, usage)',
        '\t} else {',
        '\t\tc.Flags().Bool("version", false, usage)',
        '\t}',
        '}',
        '',
      ].join('\n'),
    });
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--version' });
    expect(r.kind === 'found' && r.payload.locations[0]).toEqual({ role: 'primary', path: 'command.go', symbol: 'InitVersionFlag', start_line: 3, end_line: 9 });
  });

  it('prefers a Python implementation over its @overload stubs', () => {
    const ctx = repo({
      'pkg/ctx.py': [
        'import typing',
        '',
        'class Context:',
        '    @typing.overload',
        '    def invoke(self, cb: int) -> int: ...',
        '',
        '    def invoke(self, cb):',
        '        return cb',
        '',
      ].join('\n'),
    });
    const r = locateImplementation(ctx, { kind: 'symbol', name: 'Context.invoke' });
    expect(r.kind === 'found' && r.payload.locations[0]).toMatchObject({ path: 'pkg/ctx.py', start_line: 7, end_line: 8 });
  });

  it('names a module that never spells itself through its package import', () => {
    const ctx = repo({ 'src/tool/__init__.py': 'from .core import run as run\n', 'src/tool/core.py': 'def run():\n    return 1\n' });
    const r = locateImplementation(ctx, { kind: 'module', name: 'tool.core' });
    expect(r.kind === 'found' && r.payload.locations).toEqual([
      { role: 'primary', path: 'src/tool/__init__.py', symbol: 'core', start_line: 1, end_line: 1 },
      { role: 'supporting', path: 'src/tool/core.py', symbol: null, start_line: 1, end_line: 2 },
    ]);
  });
});

describe('projects with their own flag machinery', () => {
  it('points at the flag type whose accessor returns the long name, not at the test that uses it', () => {
    const ctx = repo({
      'crates/core/flags/defs.rs': [
        'pub trait Flag {',
        '    fn name_long(&self) -> &\'static str;',
        '}',
        '',
        '/// --crlf',
        '#[derive(Debug)]',
        'struct Crlf;',
        '',
        'impl Flag for Crlf {',
        '    fn name_long(&self) -> &\'static str {',
        '        "crlf"',
        '    }',
        '}',
        '',
        '#[cfg(test)]',
        '#[test]',
        'fn test_crlf() {',
        '    assert_eq!(Crlf.name_long(), "crlf");',
        '}',
        '',
      ].join('\n'),
      'crates/core/flags/lowargs.rs': 'pub struct LowArgs {\n    pub crlf: bool,\n}\n\npub fn update(args: &mut LowArgs) {\n    args.crlf = true;\n}\n',
    });
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--crlf' });
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.payload.locations).toEqual([
      { role: 'primary', path: 'crates/core/flags/defs.rs', symbol: 'Crlf', start_line: 5, end_line: 13 },
      { role: 'supporting', path: 'crates/core/flags/lowargs.rs', symbol: 'crlf', start_line: 6, end_line: 6 },
      { role: 'supporting', path: 'crates/core/flags/lowargs.rs', symbol: 'crlf', start_line: 2, end_line: 2 },
    ]);
  });
});

describe('bounded ranges', () => {
  it('clips a definition longer than the location bound to its doc comment and signature', () => {
    const body = Array.from({ length: 260 }, (_, i) => `    total += ${i};`).join('\n');
    const ctx = repo({ 'src/big.rs': `/// Sums a lot.\npub fn accumulate(\n    start: u64,\n) -> u64 {\n    let mut total = start;\n${body}\n    total\n}\n` });
    const r = locateImplementation(ctx, { kind: 'symbol', name: 'accumulate' });
    expect(r.kind === 'found' && r.payload.locations[0]).toMatchObject({ path: 'src/big.rs', start_line: 1, end_line: 4 });
    if (r.kind === 'found') expect(r.payload.locations[0]!.end_line - r.payload.locations[0]!.start_line).toBeLessThan(EVIDENCE.maxLocationLines);
  });
});

describe('candidate discovery', () => {
  it('parses only the files that mention the subject in a ~2 000-file repository', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 2_000; i++) {
      const dir = `pkg${String(i % 40).padStart(2, '0')}`;
      files[`src/${dir}/mod${i}.ts`] = `export function helper${i}(value: number): number {\n  return value + ${i};\n}\n`;
    }
    files['src/cli.ts'] = "import { Command } from 'commander';\nexport const program = new Command()\n  .option('--max-depth <n>', 'how deep to walk');\n";
    files['src/walk.ts'] = 'export function walk(opts: { maxDepth: number }): number {\n  return opts.maxDepth;\n}\n';
    const ctx = repo(files);
    expect(ctx.listFiles().length).toBeGreaterThanOrEqual(2_002);
    const r = locateImplementation(ctx, { kind: 'cli_option', name: '--max-depth' });
    expect(r.kind === 'found' && r.payload.locations.map((l) => `${l.path}:${l.start_line}`)).toEqual(['src/cli.ts:3', 'src/walk.ts:2', 'src/walk.ts:1']);
    expect(ctx.parsedPaths()).toEqual(['src/cli.ts']);
    expect(ctx.observed().map((o) => o.path)).toEqual(['src/cli.ts', 'src/walk.ts']);
  });
});
