// Real git repositories, real SQLite files and scripted workers (small node
// programs written into temp dirs) for the change tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RoleProfile } from '../../src/core/profile.js';
import { openDb, type Db } from '../../src/store/db.js';
import type { ChangeDeps } from '../../src/changes/deps.js';
import { detectSandbox, type SandboxInfo } from '../../src/workers/sandbox.js';
import { git } from '../support/git.js';
import { expect } from 'vitest';
import { ChangeError } from '../../src/changes/model.js';

export const CRITERIA = ['add() returns the sum', 'a test covers add()'];

export interface Env {
  readonly root: string;
  readonly dataDir: string;
  readonly scripts: string;
  readonly db: Db;
  readonly cleanup: () => void;
}

export function write(root: string, rel: string, text: string | Buffer): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** `parent`: where the temp directory is made (default the system temp dir). */
export function makeEnv(parent: string = tmpdir()): Env {
  const base = mkdtempSync(join(parent, 'needle-changes-'));
  const root = join(base, 'repo');
  const dataDir = join(base, 'data');
  const scripts = join(base, 'scripts');
  mkdirSync(root);
  mkdirSync(scripts);
  git(root, 'init', '-q', '--initial-branch=main');
  git(root, 'config', 'user.email', 't@example.invalid');
  git(root, 'config', 'user.name', 'T');
  write(root, 'src/add.mjs', 'export function add(a, b) {\n  return a - b;\n}\n');
  write(root, 'test/add.test.mjs', "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/add.mjs';\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n");
  write(root, 'README.md', '# demo\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  const db = openDb(join(dataDir, 'needle.sqlite3'));
  return {
    root,
    dataDir,
    scripts,
    db,
    cleanup: () => {
      db.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** A node program the workers run; `body` is ES module code. */
export function script(env: Env, name: string, body: string): string {
  const file = join(env.scripts, `${name}.mjs`);
  writeFileSync(file, `import fs from 'node:fs';\nimport path from 'node:path';\n${body}\n`);
  return file;
}

export const FIXED_ADD = 'export function add(a, b) {\n  return a + b;\n}\n';

/** An implementer that fixes add() and prints a well-formed report. */
export function goodImplementer(env: Env, name = 'impl'): string {
  return script(
    env,
    name,
    `fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)});
console.log(JSON.stringify({ summary: 'fix add', changed_files: [{ path: 'src/add.mjs', operation: 'update' }],
  acceptance_coverage: ${JSON.stringify(CRITERIA)}.map((criterion) => ({ criterion, status: 'addressed', evidence: 'src/add.mjs' })),
  residual_risks: [] }));`,
  );
}

/** A verifier that prints a fixed verdict (coverage for every criterion with `status`). */
export function verdictVerifier(env: Env, verdict: string, opts: { status?: string; findings?: string[]; name?: string; criteria?: string[] } = {}): string {
  const body = {
    verdict,
    acceptance_coverage: (opts.criteria ?? CRITERIA).map((criterion) => ({ criterion, status: opts.status ?? 'addressed', evidence: 'read the file' })),
    findings: opts.findings ?? [],
  };
  return script(env, opts.name ?? `verifier-${verdict}`, `console.log('checking...');\nconsole.log(${JSON.stringify(JSON.stringify(body))});`);
}

export function profile(implementer: string, verifier: string, extra: Partial<RoleProfile> = {}): RoleProfile {
  return {
    explorer: [{ adapter: 'static' }],
    implementer: { adapter: 'command', argv: [process.execPath, implementer], prompt: 'stdin', timeout_ms: 60_000 },
    verifier: { adapter: 'command', argv: [process.execPath, verifier], prompt: 'file', timeout_ms: 60_000 },
    test_execution: 'untrusted',
    require_sandbox: false,
    ...extra,
  };
}

export const NO_SANDBOX: SandboxInfo = { bwrap: null, active: false, reason: 'disabled by the test' };

export function deps(env: Env, p: RoleProfile, extra: Partial<ChangeDeps> = {}): ChangeDeps {
  return { db: env.db, repoRoot: env.root, runsRoot: join(env.dataDir, 'runs'), profile: p, sandbox: detectSandbox(), ...extra };
}

export const ARGS = {
  task: 'Make add() return the sum of its arguments.',
  acceptance_criteria: CRITERIA,
  allowed_paths: [{ path: 'src', scope: 'subtree' }] as { path: string; scope: 'exact' | 'subtree' }[],
};

export const signal = () => new AbortController().signal;

/** The ChangeError `f` throws (failing the test when it throws anything else or nothing). */
export function refusal(f: () => unknown): ChangeError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ChangeError);
    return e as ChangeError;
  }
  throw new Error('expected a refusal');
}
