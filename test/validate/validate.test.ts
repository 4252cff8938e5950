import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Proposal } from '../../src/core/contracts.js';
import type { SubjectKind } from '../../src/core/semantic.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { FT_DRY_RUN, IL_DRY_RUN, IL_PARSE_OPTIONS, RF_DRY_RUN, makeRepo, need, type Repo } from '../resolve/fixture.js';

let repo: Repo;
beforeAll(() => {
  repo = makeRepo();
  writeFileSync(join(repo.root, '..', 'outside.ts'), 'export function parseOptions() {}\n');
  symlinkSync(join(repo.root, '..', 'outside.ts'), join(repo.root, 'src/escape.ts'));
});
afterAll(() => repo.cleanup());

function check(p: Proposal, route: 'locate.implementation' | 'trace.state-flow' | 'tests.relevant' = 'locate.implementation', subject: { kind: SubjectKind; name: string } = { kind: 'symbol', name: 'parseOptions' }) {
  const n = need(repo, route, subject);
  return validateProposal(new SnapshotReader(repo.root), n, [...n.required, ...n.preferred], p);
}

function withLocation(loc: Partial<{ path: string; symbol: string | null; start_line: number; end_line: number; role: 'primary' | 'supporting' }>): Proposal {
  const base = IL_PARSE_OPTIONS.payload as { locations: object[] };
  return { predicate: 'implementation_location', payload: { locations: [{ ...base.locations[0], ...loc }], gaps: [] } } as Proposal;
}

function reasons(v: ReturnType<typeof check>): string {
  return v.ok ? '' : v.reasons.join('\n');
}

describe('location validation', () => {
  it('certifies an honest implementation location with full facets', () => {
    const v = check(IL_PARSE_OPTIONS);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.facets).toEqual({ polarity: 'positive', selection: 'primary', granularity: 'exact_location' });
  });

  it('rejects paths outside the repository, absolute paths and symlinks that escape', () => {
    expect(reasons(check(withLocation({ path: '../outside.ts', start_line: 1, end_line: 1 })))).toMatch(/not a canonical relative path/);
    expect(reasons(check(withLocation({ path: '/etc/passwd', start_line: 1, end_line: 1 })))).toMatch(/not a canonical relative path/);
    expect(reasons(check(withLocation({ path: 'src/escape.ts', start_line: 1, end_line: 1 })))).toMatch(/not a regular file inside the repository|symbolic link/);
    expect(reasons(check(withLocation({ path: '.git/config', start_line: 1, end_line: 1 })))).toMatch(/inside \.git/);
  });

  it('rejects a range past the end of the file and ranges over 200 lines', () => {
    expect(reasons(check(withLocation({ start_line: 5, end_line: 40 })))).toMatch(/ends past the end of src\/config.ts \(8 lines\)/);
    repo.write('src/long.ts', `export function parseOptions() {\n${'  x();\n'.repeat(300)}}\n`);
    expect(reasons(check(withLocation({ path: 'src/long.ts', start_line: 1, end_line: 250 })))).toMatch(/spans 250 lines/);
  });

  it('rejects a symbol that does not occur in the range', () => {
    expect(reasons(check(withLocation({ symbol: 'loadConfig' })))).toMatch(/symbol loadConfig does not occur in src\/config.ts:5-8/);
  });

  it('rejects a primary range that does not show the subject', () => {
    expect(reasons(check(withLocation({ start_line: 1, end_line: 3, symbol: 'dryRun' })))).toMatch(/subject parseOptions does not occur/);
  });

  it('rejects a primary location in test code unless the subject is a test', () => {
    const inTest = withLocation({ path: 'test/deploy.test.ts', start_line: 5, end_line: 7, symbol: null });
    expect(reasons(check(inTest, 'locate.implementation', { kind: 'symbol', name: 'deploy' }))).toMatch(/is test code/);
    expect(check(inTest, 'locate.implementation', { kind: 'test', name: 'skips upload in dry run' }).ok).toBe(true);
  });

  it('accepts a behavior subject only where the code mentions what the description talks about', () => {
    const subject = { kind: 'behavior' as const, name: 'the upload is skipped in a dry run' };
    const atBranch = withLocation({ path: 'src/deploy.ts', start_line: 5, end_line: 5, symbol: null });
    expect(check(atBranch, 'locate.implementation', subject).ok).toBe(true);
    const elsewhere = withLocation({ path: 'src/unrelated.ts', start_line: 1, end_line: 1, symbol: null });
    expect(reasons(check(elsewhere, 'locate.implementation', subject))).toMatch(/subject the upload is skipped in a dry run does not occur/);
  });

  it('accepts a file subject only at the file itself', () => {
    const subject = { kind: 'file' as const, name: 'src/deploy.ts' };
    expect(check(withLocation({ path: 'src/deploy.ts', start_line: 1, end_line: 3, symbol: null }), 'locate.implementation', subject).ok).toBe(true);
    expect(reasons(check(withLocation({ start_line: 1, end_line: 3, symbol: null }), 'locate.implementation', subject))).toMatch(/must be the file/);
  });

  it('rejects payloads that break the closed contract, naming the field', () => {
    const bad = { predicate: 'implementation_location', payload: { locations: [{ role: 'primary', path: 'src/config.ts', symbol: null, start_line: 5, end_line: 8, extra: 1 }], gaps: [] } };
    expect(reasons(check(bad as unknown as Proposal))).toMatch(/payload\.locations\[0\]\.extra: unknown field/);
  });
});

describe('runtime flow validation', () => {
  const subject = { kind: 'cli_option' as const, name: '--dry-run' };
  it('is contract_complete with all roles, valid order, a carrier and no gaps', () => {
    const v = check(RF_DRY_RUN, 'trace.state-flow', subject);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.facets.completeness).toBe('contract_complete');
  });

  it('is not contract_complete when a role is missing or gaps remain, so the trace route rejects it', () => {
    const rf = RF_DRY_RUN.payload as { steps: unknown[]; scenario: string; gaps: string[] };
    const noConsumer = { predicate: 'runtime_flow', payload: { ...rf, steps: rf.steps.slice(0, 4) } } as Proposal;
    expect(reasons(check(noConsumer, 'trace.state-flow', subject))).toMatch(/missing roles: consumer/);
    const gaps = { predicate: 'runtime_flow', payload: { ...rf, gaps: ['src/other.ts reads dryRun'] } } as Proposal;
    expect(reasons(check(gaps, 'trace.state-flow', subject))).toMatch(/gap/);
  });

  it('lets the carrier of a negated option show the positive name, and nothing unrelated', () => {
    const negated = check(RF_DRY_RUN, 'trace.state-flow', { kind: 'cli_option', name: '--no-dry-run' });
    expect(negated.ok && negated.facets.completeness).toBe('contract_complete');
    expect(reasons(check(RF_DRY_RUN, 'trace.state-flow', { kind: 'cli_option', name: '--no-upload' }))).toMatch(/no carrier step shows the subject --no-upload/);
  });

  it('rejects a flow whose steps point at lines that do not exist', () => {
    const rf = RF_DRY_RUN.payload as { steps: { location: object }[]; scenario: string; gaps: string[] };
    const steps = [...rf.steps];
    steps[4] = { ...steps[4]!, location: { role: 'supporting', path: 'src/deploy.ts', symbol: null, start_line: 90, end_line: 91 } };
    expect(reasons(check({ predicate: 'runtime_flow', payload: { ...rf, steps } } as Proposal, 'trace.state-flow', subject))).toMatch(/steps\[4\]\.location: range 90-91 ends past/);
  });
});

describe('focused test validation', () => {
  const subject = { kind: 'cli_option' as const, name: '--dry-run' };
  const ft = FT_DRY_RUN.payload as Record<string, unknown>;
  const plan = (over: Record<string, unknown>) => ({ predicate: 'focused_tests', payload: { ...ft, ...over } }) as Proposal;

  it('certifies a vitest plan whose test exists and whose runner is declared', () => {
    expect(reasons(check(FT_DRY_RUN, 'tests.relevant', subject))).toBe('');
  });

  it('rejects a test identifier that does not exist at the location', () => {
    const v = check(plan({ identifier: 'uploads twice', argv: ['npx', 'vitest', 'run', 'test/deploy.test.ts', '-t', 'uploads twice'] }), 'tests.relevant', subject);
    expect(reasons(v)).toMatch(/identifier uploads twice is not defined at test\/deploy.test.ts:5-7/);
  });

  it('rejects shell syntax, workspace-wide flags and argv that does not name the test', () => {
    expect(reasons(check(plan({ argv: ['npx', 'vitest', 'run', 'test/deploy.test.ts', '-t', 'skips upload in dry run', '&&', 'rm'] }), 'tests.relevant', subject))).toMatch(/shell syntax/);
    expect(reasons(check(plan({ argv: ['npx', '--yes', 'vitest', 'skips upload in dry run'] }), 'tests.relevant', subject))).toMatch(/must run vitest|widens/);
    expect(reasons(check(plan({ argv: ['npx', 'vitest', 'run', 'test/deploy.test.ts'] }), 'tests.relevant', subject))).toMatch(/does not name the identifier/);
  });

  it('rejects a runner the project does not declare', () => {
    expect(reasons(check(plan({ argv: ['npx', 'jest', 'test/deploy.test.ts', '-t', 'skips upload in dry run'] }), 'tests.relevant', subject))).toMatch(/neither depends on nor scripts jest/);
  });

  it('derives coverage itself: a worker cannot certify a predicate it was not asked for', () => {
    const v = check(FT_DRY_RUN, 'locate.implementation', subject);
    expect(reasons(v)).toMatch(/focused_tests was not asked for/);
  });
});

describe('cli option subjects', () => {
  it('finds the option under its identifier spellings in the primary range', () => {
    expect(check(IL_DRY_RUN, 'trace.state-flow', { kind: 'cli_option', name: '--dry-run' }).ok).toBe(true);
  });
});
