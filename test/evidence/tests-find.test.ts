import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { focusedTestsSchema, type FocusedTests, type Location } from '../../src/core/contracts.js';
import type { SubjectKind } from '../../src/core/semantic.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { findFocusedTests } from '../../src/evidence/tests/find.js';
import {
  CARGO_TEST_TARGET,
  CARGO_WORKSPACE,
  GO_FLAG,
  JS_JEST,
  makeRepo,
  NODE_TEST,
  PY_ARGPARSE,
  removeRepo,
  RUST_CLAP,
  TS_COMMANDER,
  type Files,
} from './fixtures/flow-tests-fixtures.js';

const repos: string[] = [];
beforeAll(() => loadLanguages());
afterAll(() => repos.forEach(removeRepo));

function search(files: Files, subject: { kind: SubjectKind; name: string } = { kind: 'cli_option', name: '--dry-run' }, primary: Location | null = null) {
  const root = makeRepo(files);
  repos.push(root);
  const ctx = new AnalysisContext(root);
  return { root, ctx, result: findFocusedTests(ctx, subject, primary) };
}

function plan(files: Files, subject?: { kind: SubjectKind; name: string }): FocusedTests & { root: string } {
  const { root, result } = search(files, subject);
  if (result.kind !== 'found') throw new Error(`expected a test, got: ${result.reason}`);
  expect(focusedTestsSchema.parse(result.payload)).toEqual(result.payload);
  return { ...result.payload, root };
}

/** Present on PATH; looked up rather than run, since starting an interpreter costs seconds. */
const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, cmd)));

describe('focused_tests command per ecosystem', () => {
  it('picks the unit test named after the flag in a binary crate (cargo --bin)', () => {
    // No test passes `--dry-run` on a command line here; one that did would rank first.
    const p = plan({ ...RUST_CLAP, 'tests/cli/flags.rs': RUST_CLAP['tests/cli/flags.rs']!.replace('"--dry-run", ', '') });
    expect(p.argv).toEqual(['cargo', 'test', '--bin', 'shipit', 'deploy::tests::dry_run_skips_upload', '--', '--exact']);
    expect(p.runner).toBe('cargo');
    expect(p.cwd_relative).toBe('.');
    expect(p.identifier).toBe('deploy::tests::dry_run_skips_upload');
    expect(p.location).toEqual({ role: 'primary', path: 'src/deploy.rs', symbol: 'dry_run_skips_upload', start_line: 25, end_line: 27 });
    expect(p.evidence_paths).toEqual(['src/deploy.rs', 'Cargo.toml', 'src/main.rs']);
  });

  it('resolves an integration test pulled in as a module of a [[test]] target', () => {
    const deploy = RUST_CLAP['src/deploy.rs']!.slice(0, RUST_CLAP['src/deploy.rs']!.indexOf('#[cfg(test)]'));
    const p = plan({ ...RUST_CLAP, 'src/deploy.rs': deploy });
    expect(p.argv).toEqual(['cargo', 'test', '--test', 'cli', 'flags::accepts_long_flags', '--', '--exact']);
    expect(p.evidence_paths).toEqual(['tests/cli/flags.rs', 'Cargo.toml', 'tests/cli/main.rs']);
  });

  it('resolves a [[test]] target with a custom path and an inline module, matching the test by its name', () => {
    const dry = plan(CARGO_TEST_TARGET, { kind: 'configuration_key', name: 'dry_run' });
    expect(dry.argv).toEqual(['cargo', 'test', '--test', 'integration', 'flags::modes::dry_run_plans_nothing', '--', '--exact']);
    expect(dry.location).toMatchObject({ path: 'checks/flags.rs', start_line: 8, end_line: 10 });
  });

  it('finds macro-stamped tests and prefers one that both names and passes the option', () => {
    const p = plan({
      'Cargo.toml': '[package]\nname = "rg"\nversion = "0.1.0"\nedition = "2021"\nautotests = false\n\n[[test]]\nname = "integration"\npath = "tests/tests.rs"\n',
      'src/lib.rs': 'pub fn run(dry_run: bool) -> bool { dry_run }\n',
      'tests/tests.rs': '#[macro_use]\nmod macros;\nmod feature;\n',
      'tests/macros.rs': 'macro_rules! rgtest { ($name:ident, $f:expr) => { #[test] fn $name() { ($f)(Vec::<&str>::new()) } } }\n',
      'tests/feature.rs': [
        'rgtest!(dry_run_is_a_function_arg, |_args: Vec<&str>| { assert!(rg::run(true)); });',
        'rgtest!(f12_dry_run_flag, |mut args: Vec<&str>| { args.push("--dry-run"); assert!(!args.is_empty()); });',
        '',
      ].join('\n'),
    });
    expect(p.argv).toEqual(['cargo', 'test', '--test', 'integration', 'feature::f12_dry_run_flag', '--', '--exact']);
    expect(p.location).toMatchObject({ path: 'tests/feature.rs', symbol: 'f12_dry_run_flag', start_line: 2, end_line: 2 });
  });

  it('runs from the member crate of a workspace, never workspace-wide', () => {
    const p = plan(CARGO_WORKSPACE);
    expect(p.argv).toEqual(['cargo', 'test', '--lib', 'settings::tests::dry_run_defaults_off', '--', '--exact']);
    expect(p.cwd_relative).toBe('crates/core');
    expect(p.evidence_paths).toEqual(['crates/core/src/settings.rs', 'crates/core/Cargo.toml', 'crates/core/src/lib.rs']);
  });

  it('composes describe titles for vitest', () => {
    const p = plan(TS_COMMANDER);
    expect(p.argv).toEqual(['npx', 'vitest', 'run', 'test/deploy.test.ts', '-t', 'deploy skips upload in dry run']);
    expect(p.runner).toBe('npx');
    expect(p.identifier).toBe('skips upload in dry run');
    expect(p.evidence_paths).toEqual(['test/deploy.test.ts', 'package.json']);
  });

  it('composes nested describe titles for jest', () => {
    const p = plan(JS_JEST);
    expect(p.argv).toEqual(['npx', 'jest', '__tests__/deploy.test.js', '-t', 'deploy with --dry-run skips the upload']);
    expect(p.location).toMatchObject({ path: '__tests__/deploy.test.js', start_line: 5, end_line: 7 });
  });

  it("uses node's own runner, escaping the name pattern", () => {
    const p = plan(NODE_TEST);
    expect(p.argv).toEqual(['node', '--test', '--test-name-pattern', 'dry run skips the upload \\(fast path\\)', 'test/deploy.test.mjs']);
  });

  it('names a class-based pytest test by its node id', () => {
    const p = plan(PY_ARGPARSE);
    expect(p.argv).toEqual(['pytest', 'tests/test_deploy.py::TestDeploy::test_dry_run_skips_upload']);
    expect(p.identifier).toBe('TestDeploy::test_dry_run_skips_upload');
    expect(p.evidence_paths).toEqual(['tests/test_deploy.py', 'pyproject.toml']);
  });

  it('runs a Go test in its subpackage with an anchored -run', () => {
    const p = plan(GO_FLAG);
    expect(p.argv).toEqual(['go', 'test', './internal/deploy', '-run', '^TestRunDryRun$']);
    expect(p.evidence_paths).toEqual(['internal/deploy/deploy_test.go', 'go.mod']);
  });

  it('finds a test subject by its own name', () => {
    const p = plan(GO_FLAG, { kind: 'test', name: 'TestRunUploads' });
    expect(p.argv).toEqual(['go', 'test', './internal/deploy', '-run', '^TestRunUploads$']);
  });
});

describe('focused_tests failure and evidence', () => {
  it('is unresolved with a reason when no test mentions the subject', () => {
    const { result } = search(GO_FLAG, { kind: 'cli_option', name: '--verbose' });
    expect(result).toEqual({
      kind: 'unresolved',
      reason: 'no test in 0 candidate files mentions `verbose`, `Verbose`, `VERBOSE`',
    });
  });

  it('records the test file and the project file it relied on', () => {
    const { ctx } = search(PY_ARGPARSE);
    const seen = ctx.observed().map((o) => o.path);
    expect(seen).toContain('tests/test_deploy.py');
    expect(seen).toContain('pyproject.toml');
  });

  it.runIf(onPath('pytest'))('the pytest command runs exactly the chosen test', () => {
    const p = plan(PY_ARGPARSE);
    const out = execFileSync(p.argv[0]!, [...p.argv.slice(1), '-q', '-p', 'no:cacheprovider'], {
      cwd: join(p.root, p.cwd_relative),
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: join(p.root, p.cwd_relative), PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(out).toMatch(/\b1 passed\b/);
  }, 120_000);

  it.runIf(onPath('cargo'))('the cargo command runs exactly the chosen test', () => {
    const p = plan(CARGO_TEST_TARGET, { kind: 'configuration_key', name: 'dry_run' });
    const out = execFileSync(p.argv[0]!, p.argv.slice(1), {
      cwd: join(p.root, p.cwd_relative),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CARGO_NET_OFFLINE: 'true', CARGO_TARGET_DIR: mkdtempSync(join(tmpdir(), 'needle-target-')) },
    });
    expect(out).toContain('test flags::modes::dry_run_plans_nothing ... ok');
    expect(out).toMatch(/1 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out/);
  }, 120_000);
});
