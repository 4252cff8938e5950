// Cargo plans for a crate laid out the way large CLIs are: a [[bin]] whose root
// is outside src/, modules pulled in by `mod` chains, and an integration target
// whose tests are stamped out by a project macro.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FocusedTests, Proposal } from '../../src/core/contracts.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { makeRepo, need, type Repo } from '../resolve/fixture.js';

const FILES: Record<string, string> = {
  'Cargo.toml': [
    '[package]',
    'name = "lister"',
    'version = "0.1.0"',
    'autotests = false',
    '',
    '[[bin]]',
    'name = "ls2"',
    'path = "crates/app/main.rs"',
    '',
    '[[test]]',
    'name = "suite"',
    'path = "tests/suite.rs"',
    '',
  ].join('\n'),
  'crates/app/main.rs': 'mod opts;\n\nfn main() {\n    let o = opts::parse();\n    println!("{}", o.row_limit);\n}\n',
  'crates/app/opts/mod.rs': 'mod defs;\n\npub use defs::parse;\n',
  'crates/app/opts/defs.rs': [
    'pub struct Opts {',
    '    pub row_limit: usize,',
    '}',
    '',
    'pub fn parse() -> Opts {',
    '    Opts { row_limit: 10 }',
    '}',
    '',
    '#[cfg(test)]',
    'mod tests {',
    '    #[test]',
    '    fn row_limit_defaults_to_ten() {',
    '        assert_eq!(super::parse().row_limit, 10);',
    '    }',
    '}',
    '',
  ].join('\n'),
  'crates/app/stray.rs': '#[test]\nfn row_limit_stray() {\n    assert!(true);\n}\n',
  'tests/suite.rs': '#[macro_use]\nmod macros;\n\nmod listing;\n',
  'tests/macros.rs': 'macro_rules! lstest {\n    ($name:ident, $body:expr) => {\n        #[test]\n        fn $name() { $body }\n    };\n}\n',
  'tests/listing.rs': 'lstest!(row_limit_cuts_output, {\n    let args = ["--row-limit", "2"];\n    assert_eq!(args.len(), 2);\n});\n',
};

let repo: Repo;
beforeAll(() => {
  repo = makeRepo(FILES);
});
afterAll(() => repo.cleanup());

const subject = { kind: 'cli_option' as const, name: '--row-limit' };

function verdict(payload: Partial<FocusedTests> & Pick<FocusedTests, 'argv' | 'identifier' | 'location'>): string {
  const p: Proposal = {
    predicate: 'focused_tests',
    payload: { runner: 'cargo', cwd_relative: '.', selection: 'representative', evidence_paths: [payload.location.path], ...payload },
  };
  const n = need(repo, 'tests.relevant', subject);
  const v = validateProposal(new SnapshotReader(repo.root), n, n.required, p);
  return v.ok ? 'ok' : v.reasons.join('\n');
}

const loc = (path: string, start: number, end: number) => ({ role: 'primary' as const, path, symbol: null, start_line: start, end_line: end });

describe('cargo targets outside src/', () => {
  it('accepts a unit test of a [[bin]] whose root lies elsewhere, reached through mod declarations', () => {
    const plan = {
      argv: ['cargo', 'test', '--bin', 'ls2', 'opts::defs::tests::row_limit_defaults_to_ten', '--', '--exact'],
      identifier: 'opts::defs::tests::row_limit_defaults_to_ten',
      location: loc('crates/app/opts/defs.rs', 12, 14),
    };
    expect(verdict(plan)).toBe('ok');
    expect(verdict({ ...plan, argv: ['cargo', 'test', '--bin', 'nope', plan.identifier] })).toMatch(/no binary target nope/);
    expect(verdict({ ...plan, identifier: 'defs::tests::row_limit_defaults_to_ten', argv: ['cargo', 'test', '--bin', 'ls2', 'defs::tests::row_limit_defaults_to_ten'] })).toMatch(
      /does not start with the module path opts::defs/,
    );
  });

  it('rejects a file no mod declaration links to the target', () => {
    expect(
      verdict({ argv: ['cargo', 'test', '--bin', 'ls2', 'stray::row_limit_stray'], identifier: 'stray::row_limit_stray', location: loc('crates/app/stray.rs', 1, 4) }),
    ).toMatch(/not part of the target rooted at crates\/app\/main.rs/);
  });

  it('accepts a macro-stamped integration test in a module beside the [[test]] root', () => {
    const plan = {
      argv: ['cargo', 'test', '--test', 'suite', 'listing::row_limit_cuts_output', '--', '--exact'],
      identifier: 'listing::row_limit_cuts_output',
      location: loc('tests/listing.rs', 1, 4),
    };
    expect(verdict(plan)).toBe('ok');
    expect(verdict({ ...plan, identifier: 'listing::row_limit_missing', argv: ['cargo', 'test', '--test', 'suite', 'listing::row_limit_missing'] })).toMatch(
      /identifier listing::row_limit_missing is not defined/,
    );
  });

  it('certifies what the static worker proposes for such a crate', async () => {
    const n = need(repo, 'tests.relevant', subject);
    const out = await createStaticWorker().run({
      need: n,
      missing: n.required,
      root: repo.root,
      covered: [],
      deadline: Date.now() + 60_000,
      signal: new AbortController().signal,
    });
    const proposal = out.proposals.find((p) => p.predicate === 'focused_tests');
    expect(proposal?.payload).toMatchObject({ argv: ['cargo', 'test', '--test', 'suite', 'listing::row_limit_cuts_output', '--', '--exact'] });
    const v = validateProposal(new SnapshotReader(repo.root), n, n.required, proposal!);
    expect(v.ok ? 'ok' : v.reasons.join('\n')).toBe('ok');
  });
});
