import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeFlowSchema, type Location, type RuntimeFlow } from '../../src/core/contracts.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { GO_FLAG, makeRepo, PY_ARGPARSE, removeRepo, RUST_CLAP, TS_COMMANDER, type Files } from './fixtures/flow-tests-fixtures.js';

const repos: string[] = [];
beforeAll(() => loadLanguages());
afterAll(() => repos.forEach(removeRepo));

function trace(files: Files, name = '--dry-run', primary: Location | null = null, kind: 'cli_option' | 'symbol' | 'configuration_key' = 'cli_option') {
  const root = makeRepo(files);
  repos.push(root);
  const ctx = new AnalysisContext(root);
  return { result: traceFlow(ctx, { kind, name }, primary), ctx };
}

function found(files: Files, primary: Location | null = null): RuntimeFlow {
  const { result } = trace(files, '--dry-run', primary);
  if (result.kind !== 'found') throw new Error(`expected a flow, got: ${result.reason}`);
  // Whatever the tracer returns must satisfy the published contract.
  expect(runtimeFlowSchema.parse(result.payload)).toEqual(result.payload);
  return result.payload;
}

/** role path:start-end symbol — the part of a step a reader checks first. */
const summary = (flow: RuntimeFlow) =>
  flow.steps.map((s) => `${s.role} ${s.location.path}:${s.location.start_line}-${s.location.end_line} ${s.location.symbol}`);

describe('runtime_flow per language', () => {
  it('follows a clap field through Config into the branch that skips the upload (Rust)', () => {
    const primary: Location = { role: 'primary', path: 'src/main.rs', symbol: 'dry_run', start_line: 9, end_line: 9 };
    const flow = found(RUST_CLAP, primary);
    expect(summary(flow)).toEqual([
      'producer src/main.rs:8-9 dry_run',
      'carrier src/config.rs:1-2 dry_run',
      'transformation src/config.rs:10-10 null',
      'precedence src/config.rs:9-9 null',
      'consumer src/deploy.rs:4-7 null',
    ]);
    expect(flow.steps[0]!.location.role).toBe('primary');
    expect(flow.steps.slice(1).every((s) => s.location.role === 'supporting')).toBe(true);
    expect(flow.steps[2]!.description).toBe('`dry_run` copied into `Config.dry_run` (in `from_args`)');
    expect(flow.steps[4]!.description).toBe('`cfg.dry_run` decides the `if` in `run`');
    // The comment on line 8 of config.rs and the #[cfg(test)] module of deploy.rs are not flow.
    expect(flow.gaps).toEqual([]);
  });

  it('follows a commander option through loadConfig (TypeScript)', () => {
    const flow = found(TS_COMMANDER);
    expect(summary(flow)).toEqual([
      'producer src/cli.ts:6-6 null',
      'carrier src/config.ts:1-2 dryRun',
      'carrier src/config.ts:5-5 dryRun',
      'transformation src/config.ts:7-7 null',
      'precedence src/config.ts:6-6 null',
      'consumer src/deploy.ts:4-6 null',
    ]);
    expect(flow.steps[0]!.description).toBe('`-n, --dry-run` declared by `program.option`');
    expect(flow.steps[4]!.description).toContain('opts.dryRun ?? process.env.DRY_RUN');
    expect(flow.gaps).toEqual([]);
  });

  it('follows an argparse option into a dataclass (Python)', () => {
    const flow = found(PY_ARGPARSE);
    expect(summary(flow)).toEqual([
      'producer shipit/cli.py:10-10 null',
      'carrier shipit/config.py:6-6 dry_run',
      'transformation shipit/cli.py:17-17 null',
      'precedence shipit/cli.py:16-16 null',
      'consumer shipit/deploy.py:2-3 null',
    ]);
    expect(flow.steps[1]!.description).toBe('`Config.dry_run` carries the value');
    expect(flow.gaps).toEqual([]);
  });

  it('follows a flag.Bool into a struct overridden by the environment (Go)', () => {
    const flow = found(GO_FLAG);
    expect(summary(flow)).toEqual([
      'producer main.go:12-12 null',
      'carrier internal/deploy/deploy.go:3-4 DryRun',
      'transformation main.go:14-14 null',
      'precedence main.go:16-16 null',
      'consumer internal/deploy/deploy.go:8-10 null',
    ]);
    expect(flow.steps[3]!.description).toBe('`cfg.DryRun` overridden to `true` when `os.Getenv("SHIPIT_DRY_RUN") == "1"` (in `main`)');
    expect(flow.gaps).toEqual([]);
  });
});

describe('runtime_flow completeness', () => {
  it('reports an extra read it cannot explain as a gap naming path:line', () => {
    const flow = found({
      ...RUST_CLAP,
      'src/report.rs': 'use crate::config::Config;\n\npub fn report(cfg: &Config) {\n    cfg.dry_run;\n}\n',
    });
    expect(flow.gaps).toEqual(['src/report.rs:4: `cfg.dry_run;` is not accounted for']);
    expect(flow.steps).toHaveLength(5);
  });

  it('reports a value handed to a function it cannot tell apart from a namesake, not one handed to a library', () => {
    const cli = PY_ARGPARSE['shipit/cli.py']!.replace('    return deploy(cfg)\n', '    print(args.dry_run)\n    note(args.dry_run)\n    return deploy(cfg)\n');
    const twice = 'def note(flag):\n    return flag\n';
    const flow = found({ ...PY_ARGPARSE, 'shipit/cli.py': cli, 'shipit/a.py': twice, 'shipit/b.py': twice });
    // `print` is not defined in the repository: the value leaves the program's code there.
    expect(flow.gaps).toEqual(['value passed to `note` at shipit/cli.py:19 is not followed into the callee']);
  });

  it('reports missing roles instead of inventing steps, and follows one rename', () => {
    const flow = found({
      'tool.py': [
        'import argparse',
        '',
        'def main(argv=None):',
        '    parser = argparse.ArgumentParser()',
        "    parser.add_argument('--dry-run', action='store_true')",
        '    args = parser.parse_args(argv)',
        '    simulate = args.dry_run',
        '    if simulate:',
        "        return 'skipped'",
        "    return 'uploaded'",
        '',
      ].join('\n'),
    });
    // `action='store_true'` leaves the option off when it is not given: that is its precedence.
    expect(summary(flow)).toEqual(['producer tool.py:5-5 null', 'transformation tool.py:7-7 null', 'precedence tool.py:5-5 null', 'consumer tool.py:8-9 null']);
    expect(flow.steps[1]!.description).toBe('`args.dry_run` copied into `simulate` (in `main`)');
    expect(flow.steps[2]!.description).toBe('flag `--dry-run` defaults to `False` (in `main`)');
    expect(flow.steps[3]!.description).toBe('`simulate` decides the `if` in `main`');
    expect(flow.gaps).toEqual(['no carrier of `dry_run` found in non-test source']);
  });

  it('treats a lone clap field as both producer and carrier', () => {
    const flow = found({
      'src/main.rs': [
        'use clap::Parser;',
        '#[derive(Parser)]',
        'struct Args {',
        '    #[arg(long, default_value_t = false)]',
        '    dry_run: bool,',
        '}',
        'fn main() {',
        '    let args = Args::parse();',
        '    if !args.dry_run { upload(); }',
        '}',
        '',
      ].join('\n'),
    });
    // `default_value_t` is where the declared default takes over when the flag is absent.
    expect(summary(flow)).toEqual(['producer src/main.rs:4-5 dry_run', 'carrier src/main.rs:5-5 dry_run', 'precedence src/main.rs:4-4 null', 'consumer src/main.rs:9-9 null']);
    expect(flow.gaps).toEqual(['no transformation of `dry_run` found in non-test source']);
  });

  it('ignores test files, comments and prose, and is unresolved when nothing else is left', () => {
    const { result } = trace({
      'src/lib.rs': '// pass --dry-run to see dry_run in action\npub fn f() -> &\'static str { "use --dry-run later" }\n',
      'tests/flags.rs': '#[test]\nfn t() { let dry_run = true; assert!(dry_run); }\n',
    });
    expect(result).toEqual({ kind: 'unresolved', reason: 'occurrences of `dry_run` are only in comments or prose' });
  });

  it('records every file it relied on in the observation trace', () => {
    const { ctx } = trace(GO_FLAG);
    expect(ctx.observed().map((o) => o.path)).toEqual(['internal/deploy/deploy.go', 'main.go']);
  });

  it('is unresolved for a subject with nothing to follow', () => {
    expect(trace(GO_FLAG, 'never_mentioned').result).toEqual({
      kind: 'unresolved',
      reason: 'no occurrence of `never_mentioned`, `NeverMentioned`, `neverMentioned`, `NEVER_MENTIONED`, `never-mentioned` in non-test source',
    });
  });
});
