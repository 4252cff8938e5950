// implementation_location on the four language fixtures: the primary location a
// maintainer would point to, exact line ranges, supporting reads, namesakes.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import type { SubjectKind } from '../../src/core/semantic.js';
import { AnalysisContext } from '../../src/evidence/context.js';
import { locateImplementation, type LocateResult } from '../../src/evidence/locate.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { createFixtureRepo, type FixtureLanguage } from './fixtures/repos.js';

const roots = new Map<FixtureLanguage, string>();

beforeAll(async () => {
  await loadLanguages();
  for (const lang of ['rust', 'typescript', 'python', 'go'] as const) roots.set(lang, createFixtureRepo(lang));
});
afterAll(() => {
  for (const root of roots.values()) rmSync(root, { recursive: true, force: true });
});

function locate(lang: FixtureLanguage, kind: SubjectKind, name: string): LocateResult {
  return locateImplementation(new AnalysisContext(roots.get(lang)!), { kind, name });
}

/** `path:start-end symbol` per location, primary first. */
function where(result: LocateResult): string[] {
  if (result.kind !== 'found') throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return result.payload.locations.map((l: Location) => `${l.role === 'primary' ? '*' : ''}${l.path}:${l.start_line}-${l.end_line}${l.symbol ? ` ${l.symbol}` : ''}`);
}

describe('rust fixture', () => {
  it('points --dry-run at the clap field with its attribute and its read', () => {
    expect(where(locate('rust', 'cli_option', '--dry-run'))).toEqual(['*src/cli.rs:11-13 dry_run', 'src/deploy.rs:12-12 dry_run']);
  });
  it('finds an option by its short name and by an explicit long = "…"', () => {
    expect(where(locate('rust', 'cli_option', '-j'))[0]).toBe('*src/cli.rs:15-17 parallel');
    expect(where(locate('rust', 'cli_option', 'jobs'))[0]).toBe('*src/cli.rs:15-17 parallel');
  });
  it('points a configuration key at the serde field, also through rename', () => {
    expect(where(locate('rust', 'configuration_key', 'timeout_secs'))).toEqual([
      '*src/config.rs:6-7 timeout_secs',
      'src/deploy.rs:18-18 timeout_secs',
      'src/upload.rs:3-3 timeout_secs',
      'src/upload.rs:4-4 timeout_secs',
    ]);
    expect(where(locate('rust', 'configuration_key', 'retry-limit'))[0]).toBe('*src/config.rs:8-9 retries');
  });
  it('is ambiguous for a bare namesake and exact for a qualified one', () => {
    expect(locate('rust', 'symbol', 'validate')).toEqual({
      kind: 'ambiguous',
      candidates: ['src/config.rs:23 function validate', 'src/deploy.rs:21 function validate'],
    });
    expect(where(locate('rust', 'symbol', 'config::validate'))).toEqual(['*src/config.rs:23-28 validate', 'src/config.rs:19-19 validate']);
    expect(where(locate('rust', 'symbol', 'crate::deploy::validate'))).toEqual(['*src/deploy.rs:21-26 validate', 'src/deploy.rs:11-11 validate']);
  });
  it('locates a struct with its derive attributes and a method through its impl type', () => {
    expect(where(locate('rust', 'symbol', 'Args'))[0]).toBe('*src/cli.rs:3-18 Args');
    expect(where(locate('rust', 'symbol', 'Args::from_env'))[0]).toBe('*src/cli.rs:21-23 from_env');
  });
  it('locates unit and integration tests in test code', () => {
    expect(where(locate('rust', 'test', 'tests::empty_plan_is_rejected'))).toEqual(['*src/deploy.rs:32-36 empty_plan_is_rejected']);
    expect(where(locate('rust', 'test', 'dry_run::dry_run_uploads_nothing'))).toEqual(['*tests/cli.rs:10-14 dry_run_uploads_nothing']);
  });
  it('answers a module through its declaration when the module file never spells its name', () => {
    expect(where(locate('rust', 'module', 'config'))).toEqual(['*src/main.rs:2-2 config', 'src/config.rs:1-28']);
  });
  it('keeps symbols defined only in test code out of the primary location', () => {
    const r = locate('rust', 'symbol', 'empty_plan_is_rejected');
    expect(r.kind).toBe('unresolved');
    if (r.kind === 'unresolved') expect(r.reason).toContain('src/deploy.rs:32');
  });
});

describe('typescript fixture', () => {
  it('points --dry-run and -n at the commander .option() call', () => {
    const expected = ['*src/cli.ts:15-15', 'src/cli.ts:23-23 dryRun', 'src/deploy.ts:16-16 dryRun', 'src/cli.ts:7-7 dryRun', 'src/deploy.ts:5-5 dryRun'];
    expect(where(locate('typescript', 'cli_option', '--dry-run'))).toEqual(expected);
    expect(where(locate('typescript', 'cli_option', '-n'))).toEqual(expected);
  });
  it('points a configuration key at its read from the parsed file, in any spelling', () => {
    const expected = ['*src/config.ts:12-12', 'src/deploy.ts:19-19 timeoutSecs', 'src/config.ts:5-5 timeoutSecs'];
    expect(where(locate('typescript', 'configuration_key', 'timeoutSecs'))).toEqual(expected);
    expect(where(locate('typescript', 'configuration_key', 'timeout_secs'))).toEqual(expected);
  });
  it('resolves namesakes by module qualifier', () => {
    expect(locate('typescript', 'symbol', 'validate').kind).toBe('ambiguous');
    expect(where(locate('typescript', 'symbol', 'config.validate'))[0]).toBe('*src/config.ts:18-20 validate');
    expect(where(locate('typescript', 'symbol', 'deploy.validate'))[0]).toBe('*src/deploy.ts:9-11 validate');
    expect(where(locate('typescript', 'symbol', 'ShipitConfig.timeoutSecs'))[0]).toBe('*src/config.ts:5-5 timeoutSecs');
  });
  it('locates it() blocks by title, with or without their describe path', () => {
    expect(where(locate('typescript', 'test', 'skips upload in dry run'))).toEqual(['*test/deploy.test.ts:5-8 skips upload in dry run']);
    expect(where(locate('typescript', 'test', 'cli > parses --dry-run'))).toEqual(['*test/cli.test.ts:5-8 parses --dry-run']);
  });
  it('serves a file subject as the file head and a module as its file', () => {
    expect(where(locate('typescript', 'file', './src/deploy.ts'))).toEqual(['*src/deploy.ts:1-21']);
    expect(where(locate('typescript', 'module', 'config'))).toEqual(['*src/config.ts:1-20']);
    expect(locate('typescript', 'file', 'src/missing.ts').kind).toBe('unresolved');
    expect(locate('typescript', 'file', 'src')).toEqual({ kind: 'unresolved', reason: 'src is a directory; ask for it as a module' });
  });
});

describe('python fixture', () => {
  it('points --dry-run at the whole multi-line add_argument call', () => {
    expect(where(locate('python', 'cli_option', '--dry-run'))).toEqual([
      '*shipit/cli.py:10-15',
      'shipit/cli.py:23-23 dry_run',
      'shipit/deploy.py:9-9 dry_run',
      'shipit/deploy.py:12-12 dry_run',
    ]);
    expect(where(locate('python', 'cli_option', '--jobs'))[0]).toBe('*shipit/cli.py:16-16 parallel');
  });
  it('points a configuration key at its dict read, member reads first', () => {
    expect(where(locate('python', 'configuration_key', 'timeout_secs'))).toEqual([
      '*shipit/config.py:13-13',
      'shipit/config.py:7-7 timeout_secs',
      'shipit/deploy.py:14-14 timeout_secs',
      'shipit/config.py:5-5 timeout_secs',
      'shipit/upload.py:1-1 timeout_secs',
      'shipit/upload.py:3-3 timeout_secs',
    ]);
  });
  it('resolves namesakes by dotted module path', () => {
    expect(locate('python', 'symbol', 'validate')).toEqual({
      kind: 'ambiguous',
      candidates: ['shipit/config.py:18 function validate', 'shipit/deploy.py:4 function validate'],
    });
    expect(where(locate('python', 'symbol', 'shipit.config.validate'))).toEqual(['*shipit/config.py:18-20 validate', 'shipit/config.py:14-14 validate']);
  });
  it('locates a test by pytest node id and by bare name', () => {
    expect(where(locate('python', 'test', 'tests/test_deploy.py::TestCli::test_parses_dry_run'))).toEqual(['*tests/test_deploy.py:11-13 test_parses_dry_run']);
    expect(where(locate('python', 'test', 'test_dry_run_uploads_nothing'))).toEqual(['*tests/test_deploy.py:5-7 test_dry_run_uploads_nothing']);
  });
  it('locates a dotted module as its file', () => {
    expect(where(locate('python', 'module', 'shipit.config'))).toEqual(['*shipit/config.py:1-20']);
  });
});

describe('go fixture', () => {
  it('points --dry-run at the flag.Bool statement and follows the pointer and field', () => {
    expect(where(locate('go', 'cli_option', '--dry-run'))).toEqual([
      '*main.go:14-14 dryRun',
      'main.go:24-24 dryRun',
      'deploy/deploy.go:27-27 DryRun',
      'deploy/deploy.go:11-11 DryRun',
    ]);
    expect(where(locate('go', 'cli_option', 'jobs'))[0]).toBe('*main.go:16-16 jobs');
  });
  it('points a configuration key at the tagged struct field', () => {
    expect(where(locate('go', 'configuration_key', 'timeout_secs'))).toEqual([
      '*config/config.go:12-12 TimeoutSecs',
      'deploy/deploy.go:34-34 TimeoutSecs',
      'config/config.go:20-20 TimeoutSecs',
      'upload/upload.go:8-8 timeoutSecs',
      'upload/upload.go:9-9 timeoutSecs',
    ]);
  });
  it('resolves namesakes by package', () => {
    expect(locate('go', 'symbol', 'Validate').kind).toBe('ambiguous');
    expect(where(locate('go', 'symbol', 'config.Validate'))).toEqual(['*config/config.go:27-32 Validate', 'config/config.go:24-24 Validate']);
    expect(where(locate('go', 'symbol', 'deploy.Validate'))[0]).toBe('*deploy/deploy.go:15-20 Validate');
  });
  it('locates a Test function and a package', () => {
    expect(where(locate('go', 'test', 'TestDryRunUploadsNothing'))).toEqual(['*deploy/deploy_test.go:9-14 TestDryRunUploadsNothing']);
    expect(where(locate('go', 'module', 'deploy'))).toEqual(['*deploy/deploy.go:1-35']);
  });
});

describe('subjects the static analyzer cannot name', () => {
  it('leaves a behavior unresolved with a reason', () => {
    const r = locate('go', 'behavior', 'uploads are retried on timeout');
    expect(r.kind).toBe('unresolved');
    if (r.kind === 'unresolved') expect(r.reason).toMatch(/named subjects only/);
  });
  it('reports an option that is declared nowhere', () => {
    expect(locate('python', 'cli_option', '--verbose')).toEqual({ kind: 'unresolved', reason: 'no declaration of cli option --verbose' });
  });
});
