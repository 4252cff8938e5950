// What counts as test code: the trusted validators' definition (a location
// or flow step in test code does not answer a question about production code;
// a focused test must be a test). It lives here, not in the evidence worker,
// so that the validators own it and the worker follows it (issue 14 item 8):
// a worker that changed its own notion of "test" could otherwise fool its
// checker the same way.

/** Paths that hold tests by the conventions of the supported ecosystems. */
export function isTestPath(path: string): boolean {
  const p = path.toLowerCase();
  const base = p.slice(p.lastIndexOf('/') + 1);
  return (
    /(^|\/)(tests?|__tests__|spec|testdata|testing)\//.test(p) ||
    /^test_.*\.py$/.test(base) ||
    /_test\.(py|go)$/.test(base) ||
    /\.(test|spec)\.[cm]?[jt]sx?$/.test(base) ||
    base === 'conftest.py'
  );
}
