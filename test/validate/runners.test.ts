import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FocusedTests, Proposal } from '../../src/core/contracts.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { makeRepo, need, type Repo } from '../resolve/fixture.js';

const FILES: Record<string, string> = {
  'Cargo.toml': '[workspace]\nmembers = ["crates/cli"]\n',
  'crates/cli/Cargo.toml': [
    '[package]',
    'name = "demo-cli"',
    'version = "0.1.0"',
    '',
    '[[test]]',
    'name = "integration"',
    'path = "tests/it/main.rs"',
    '',
  ].join('\n'),
  'crates/cli/src/lib.rs': 'pub fn dry_run(v: bool) -> bool { v }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn dry_run_passes_through() {\n        assert!(super::dry_run(true));\n    }\n}\n',
  'crates/cli/tests/it/main.rs': 'mod flags;\n',
  'crates/cli/tests/it/flags.rs': 'use demo_cli::dry_run;\n\n#[test]\nfn dry_run_flag() {\n    assert!(dry_run(true));\n}\n',
  'crates/cli/tests/smoke.rs': 'use demo_cli::dry_run;\n\n#[test]\nfn smoke_dry_run() {\n    assert!(dry_run(true));\n}\n',
  'py/pyproject.toml': '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
  'py/demo/cli.py': 'def parse(argv):\n    return {"dry_run": "--dry-run" in argv}\n',
  'py/tests/test_cli.py': 'from demo.cli import parse\n\n\ndef test_dry_run():\n    assert parse(["--dry-run"])["dry_run"]\n',
  'go/go.mod': 'module example.com/demo\n\ngo 1.22\n',
  'go/flags/flags.go': 'package flags\n\nfunc DryRun(args []string) bool { return len(args) > 0 && args[0] == "--dry-run" }\n',
  'go/flags/flags_test.go': 'package flags\n\nimport "testing"\n\nfunc TestDryRun(t *testing.T) {\n\tif !DryRun([]string{"--dry-run"}) {\n\t\tt.Fatal("no")\n\t}\n}\n',
};

let repo: Repo;
beforeAll(() => {
  repo = makeRepo(FILES);
});
afterAll(() => repo.cleanup());

function plan(p: Partial<FocusedTests> & Pick<FocusedTests, 'runner' | 'argv' | 'identifier' | 'location'>): Proposal {
  return {
    predicate: 'focused_tests',
    payload: { cwd_relative: '.', selection: 'representative', evidence_paths: [p.location.path], ...p },
  };
}

function verdict(p: Proposal, subject = { kind: 'cli_option' as const, name: '--dry-run' }): string {
  const n = need(repo, 'tests.relevant', subject);
  const reader = new SnapshotReader(repo.root);
  const v = validateProposal(reader, n, n.required, p);
  return v.ok ? 'ok' : v.reasons.join('\n');
}

const loc = (path: string, start: number, end: number) => ({ role: 'primary' as const, path, symbol: null, start_line: start, end_line: end });

describe('cargo plans', () => {
  it('resolves a [[test]] target and the module it pulls in', () => {
    const p = plan({
      runner: 'cargo',
      cwd_relative: 'crates/cli',
      argv: ['cargo', 'test', '--test', 'integration', 'flags::dry_run_flag', '--', '--exact'],
      identifier: 'flags::dry_run_flag',
      location: loc('crates/cli/tests/it/flags.rs', 3, 6),
    });
    expect(verdict(p)).toBe('ok');
  });

  it('resolves an autodiscovered tests/*.rs target and a unit test in src', () => {
    expect(
      verdict(plan({ runner: 'cargo', cwd_relative: 'crates/cli', argv: ['cargo', 'test', '--test', 'smoke', 'smoke_dry_run'], identifier: 'smoke_dry_run', location: loc('crates/cli/tests/smoke.rs', 3, 6) })),
    ).toBe('ok');
    expect(
      verdict(plan({ runner: 'cargo', argv: ['cargo', 'test', '-p', 'demo-cli', '--lib', 'tests::dry_run_passes_through'], identifier: 'tests::dry_run_passes_through', location: loc('crates/cli/src/lib.rs', 5, 8) })),
    ).toBe('ok');
  });

  it('rejects a target Cargo.toml does not resolve, a missing -p from the workspace root and --workspace', () => {
    expect(
      verdict(plan({ runner: 'cargo', cwd_relative: 'crates/cli', argv: ['cargo', 'test', '--test', 'nope', 'smoke_dry_run'], identifier: 'smoke_dry_run', location: loc('crates/cli/tests/smoke.rs', 3, 6) })),
    ).toMatch(/no test target nope/);
    expect(
      verdict(plan({ runner: 'cargo', argv: ['cargo', 'test', '--test', 'smoke', 'smoke_dry_run'], identifier: 'smoke_dry_run', location: loc('crates/cli/tests/smoke.rs', 3, 6) })),
    ).toMatch(/must select the package with -p demo-cli/);
    expect(
      verdict(plan({ runner: 'cargo', cwd_relative: 'crates/cli', argv: ['cargo', 'test', '--workspace', '--test', 'smoke', 'smoke_dry_run'], identifier: 'smoke_dry_run', location: loc('crates/cli/tests/smoke.rs', 3, 6) })),
    ).toMatch(/--workspace widens/);
  });

  it('rejects a test function that does not exist', () => {
    expect(
      verdict(plan({ runner: 'cargo', cwd_relative: 'crates/cli', argv: ['cargo', 'test', '--test', 'smoke', 'smoke_missing'], identifier: 'smoke_missing', location: loc('crates/cli/tests/smoke.rs', 3, 6) })),
    ).toMatch(/identifier smoke_missing is not defined/);
  });
});

describe('pytest and go plans', () => {
  it('resolves a pytest node id under a configured project', () => {
    const p = plan({ runner: 'pytest', cwd_relative: 'py', argv: ['pytest', 'tests/test_cli.py::test_dry_run'], identifier: 'tests/test_cli.py::test_dry_run', location: loc('py/tests/test_cli.py', 4, 5) });
    expect(verdict(p)).toBe('ok');
    const wrongFile = plan({ runner: 'pytest', cwd_relative: 'py', argv: ['pytest', 'tests/test_other.py::test_dry_run'], identifier: 'test_dry_run', location: loc('py/tests/test_cli.py', 4, 5) });
    expect(verdict(wrongFile)).toMatch(/argv does not select tests\/test_cli.py/);
  });

  it('resolves a go test in its module package and rejects ./...', () => {
    expect(verdict(plan({ runner: 'go', cwd_relative: 'go', argv: ['go', 'test', './flags', '-run', '^TestDryRun$'], identifier: 'TestDryRun', location: loc('go/flags/flags_test.go', 5, 9) }))).toBe('ok');
    expect(verdict(plan({ runner: 'go', cwd_relative: 'go', argv: ['go', 'test', './...', '-run', '^TestDryRun$'], identifier: 'TestDryRun', location: loc('go/flags/flags_test.go', 5, 9) }))).toMatch(/selects every package/);
  });
});
