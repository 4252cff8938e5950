// Runs the whole suite once and ends with the plain count line CI looks for.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const report = 'test-results.json';
rmSync(report, { force: true });
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`, ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit' });
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests;
  failed = json.numFailedTests + (json.numRuntimeErrorTestSuites ?? 0);
  // Skipped tests (no bubblewrap, no strace, no codex binary) are counted, never silent.
  skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
} catch {
  failed = Math.max(1, failed);
}
// The contract's last line stays exactly `N passed, N failed`; the skip count comes just before it.
console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 ? 0 : 1);
