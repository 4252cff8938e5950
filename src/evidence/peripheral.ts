// Code outside the product proper — examples, demos, benchmarks, docs,
// scripts and tools, fixtures, vendored code — by the name of any directory
// on its path. One list (issue 14 item 7) for both rankings that prefer
// product code: a definition there loses to one in the product's sources,
// and a flow step there comes after the product's steps.

const PERIPHERAL_DIRS = new Set([
  'examples', 'example', 'samples', 'sample', 'demos', 'demo', 'benches', 'bench', 'benchmarks', 'benchmark',
  'docs', 'doc', 'site', 'scripts', 'tools', 'hack', 'contrib', 'fixtures', 'testdata', 'vendor', 'third_party', 'node_modules',
  // Fuzzing harnesses (`fuzz/fuzz_targets/…`) drive the product with made-up inputs.
  'fuzz',
]);

/** Whether a directory of `path` (not its file name) marks it as outside the product proper. */
export function isPeripheralPath(path: string): boolean {
  return path.split('/').slice(0, -1).some((seg) => PERIPHERAL_DIRS.has(seg.toLowerCase()));
}
