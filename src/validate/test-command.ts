// Canonical test commands (SPEC §6, §8): an argv that a parent could run as
// is, with no shell, that selects one test and cannot reach the network or run
// a whole workspace.
import type { FocusedTests, TestRunner } from '../core/contracts.js';
import { lastSegment } from './location.js';
import { clip } from './snapshot-reader.js';
import { escapeRegExp } from '../core/text.js';

const SHELL_SYNTAX = /[|;&<>`\n\r\0]|\$\(/;

/** Flags that widen the run to a workspace, redirect configuration or reach a network. */
const FORBIDDEN_FLAGS: Record<TestRunner, readonly string[]> = {
  cargo: ['--workspace', '--all', '--all-targets', '--manifest-path', '--config', '-Z', '--registry', '--index'],
  go: ['-exec', '-toolexec', '-modfile', '-mod=mod', '-C'],
  pytest: ['-c', '--rootdir', '--confcutdir', '-p', '--pyargs'],
  npx: ['--yes', '-y', '--package', '-p', '--registry', '--config', '-c'],
  npm: ['--registry', '--prefix', '--workspaces', '--workspace', '-w', '-ws'],
};

function forbidden(runner: TestRunner, arg: string): boolean {
  return FORBIDDEN_FLAGS[runner].some((f) => arg === f || arg.startsWith(`${f}=`));
}

/** The command words each runner must start with. */
export function runnerPrefix(runner: TestRunner, argv: readonly string[]): string | null {
  const [a0, a1, a2] = argv;
  switch (runner) {
    case 'cargo':
      return a0 === 'cargo' && a1 === 'test' ? null : 'a cargo test plan must start with `cargo test`';
    case 'go':
      return a0 === 'go' && a1 === 'test' ? null : 'a go test plan must start with `go test`';
    case 'pytest':
      if (a0 === 'pytest') return null;
      return (a0 === 'python' || a0 === 'python3') && a1 === '-m' && a2 === 'pytest'
        ? null
        : 'a pytest plan must start with `pytest` or `python -m pytest`';
    case 'npx':
      if (a0 === 'npx' && (a1 === 'vitest' || a1 === 'jest' || a1 === 'mocha' || a1 === 'ava' || a1 === 'tap')) return null;
      return a0 === 'node' && a1 === '--test' ? null : 'an npx plan must run vitest, jest, mocha, ava, tap or `node --test`';
    case 'npm':
      if (a0 === 'npm' && (a1 === 'test' || a1 === 't' || (a1 === 'run' && a2 !== undefined))) return null;
      return a0 === 'node' && a1 === '--test' ? null : 'an npm plan must be `npm test` or `npm run <script>`';
  }
}

/** Name fragments of the identifier that the argv must mention. */
export function identifierNeedles(plan: Pick<FocusedTests, 'runner' | 'identifier'>): string[] {
  const id = plan.identifier;
  if (plan.runner === 'cargo' || plan.runner === 'pytest') return [id, lastSegment(id.replace(/\[.*\]$/, ''))];
  if (plan.runner === 'go') return [id, id.split('/')[0]!];
  // vitest -t, jest -t, mocha --grep, tap --grep and node --test-name-pattern take a regular
  // expression, so a title with `.` or `(` is named in its escaped form (ava's --match the title itself).
  return [id, escapeRegExp(id)];
}

/** Reasons the argv is not canonical; empty when it is. */
export function checkArgv(plan: FocusedTests): string[] {
  const reasons: string[] = [];
  const prefix = runnerPrefix(plan.runner, plan.argv);
  if (prefix) reasons.push(`argv: ${prefix}`);
  plan.argv.forEach((arg, i) => {
    if (SHELL_SYNTAX.test(arg)) reasons.push(`argv[${i}]: shell syntax is not allowed: ${clip(arg, 60)}`);
    if (arg !== arg.trim()) reasons.push(`argv[${i}]: leading or trailing whitespace`);
    if (forbidden(plan.runner, arg))
      reasons.push(`argv[${i}]: ${clip(arg, 60)} widens the run or reaches outside the repository`);
    if (arg.endsWith('/...') || arg === '...') reasons.push(`argv[${i}]: ${arg} selects every package`);
  });
  if (['install', 'add', 'get', 'exec', 'update'].includes(plan.argv[1] ?? ''))
    reasons.push(`argv[1]: ${plan.argv[1]} is not a test command`);
  const needles = identifierNeedles(plan);
  if (!plan.argv.slice(1).some((arg) => needles.some((n) => n.length > 0 && arg.includes(n))))
    reasons.push(`argv does not name the identifier ${clip(plan.identifier, 80)}`);
  return reasons;
}
