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

/** Code copied in from other projects: never evidence about this one. */
const VENDORED = /(^|\/)(vendor|node_modules|third_party)\//;

export function isVendoredPath(path: string): boolean {
  return VENDORED.test(path);
}

/** Longer lines are minified or generated (`examples/minified/app.js:1`), not code a maintainer would point to. */
const GENERATED_LINE_CHARS = 1_000;

export function isGeneratedLine(text: string): boolean {
  return text.length > GENERATED_LINE_CHARS;
}
