// The validators' definition of test code (issue 14 item 8), which the static
// worker follows: one definition, owned outside the worker.
import { describe, expect, it } from 'vitest';
import { isTestPath } from '../../src/core/test-code.js';

describe('isTestPath', () => {
  it('recognises the test conventions of the supported ecosystems and nothing else', () => {
    for (const p of ['tests/a.rs', 'pkg/__tests__/x.js', 'src/Spec/y.rb', 'test_cli.py', 'cli_test.go', 'a/b.test.ts', 'c.spec.mjsx'.replace('mjsx', 'mjs'), 'conftest.py', 'x/testdata/f.txt'])
      expect(isTestPath(p), p).toBe(true);
    for (const p of ['src/testing_utils.py', 'src/latest/a.ts', 'contest.py', 'src/attest.ts', 'spec.ts', 'src/test.ts'])
      expect(isTestPath(p), p).toBe(false);
  });
});
