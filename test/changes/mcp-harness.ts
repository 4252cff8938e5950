// Harness for the end-to-end change tests: a real git repository and data
// directory per test, role profiles whose implementer and verifier are real
// node programs (or the Codex App Server simulator), the built `needle mcp
// serve` driven by the official MCP SDK client, and the built CLI spawned for
// `needle change …`.
import { execFile } from 'node:child_process';
import { copyFileSync, chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { blake3 } from '../../src/core/digest.js';
import type { ChangeRoleConfig, RoleProfile } from '../../src/core/profile.js';
import { openDataDir } from '../../src/store/datadir.js';
import { activateProfile, createProfileRevision } from '../../src/store/profiles.js';
import { CLI, ROOT, requireBuild } from '../mcp/fixtures.js';
import { git } from '../support/git.js';

export const PROFILE_ID = 'e2e';
export const CRITERIA = ['add() returns the sum of its arguments', 'sum() adds every number in a list'];
export const ORIGINAL_ADD = 'export function add(a, b) {\n  return a - b;\n}\n';
export const FIXED_ADD = 'export function add(a, b) {\n  return a + b;\n}\n';
export const NEW_SUM = "import { add } from '../add.mjs';\n\nexport const sum = (xs) => xs.reduce(add, 0);\n";
/** The patch every implementer here produces: one update and one create in a new directory. */
export const PATCHED = { 'src/add.mjs': FIXED_ADD, 'src/lib/sum.mjs': NEW_SUM } as const;

export const PREPARE_ARGS = {
  task: 'Make add() return the sum of its arguments and add a sum() helper under src/lib.',
  acceptance_criteria: CRITERIA,
  allowed_paths: [{ path: 'src', scope: 'subtree' }],
};

export interface World {
  readonly base: string;
  readonly repo: string;
  readonly dataDir: string;
  readonly scripts: string;
  readonly cleanup: () => void;
}

export function makeWorld(): World {
  requireBuild();
  const base = mkdtempSync(join(tmpdir(), 'needle-mcp-e2e-'));
  const repo = join(base, 'repo');
  const scripts = join(base, 'scripts');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(scripts);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'src/add.mjs'), ORIGINAL_ADD);
  writeFileSync(join(repo, 'README.md'), '# calc\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'init');
  return { base, repo, dataDir: join(base, 'data'), scripts, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function installProfile(w: World, doc: RoleProfile, id = PROFILE_ID): void {
  const { db } = openDataDir(w.dataDir);
  try {
    activateProfile(db, id, createProfileRevision(db, id, doc));
  } finally {
    db.close();
  }
}

export function commandProfile(implementer: string, verifier: string): RoleProfile {
  return {
    explorer: [{ adapter: 'static' }],
    implementer: { adapter: 'command', argv: [process.execPath, implementer], prompt: 'stdin', timeout_ms: 60_000 },
    verifier: { adapter: 'command', argv: [process.execPath, verifier], prompt: 'file', timeout_ms: 60_000 },
    test_execution: 'trusted',
    require_sandbox: false,
  };
}

function nodeScript(w: World, name: string, body: string): string {
  const file = join(w.scripts, `${name}.mjs`);
  writeFileSync(file, `import fs from 'node:fs';\n${body}\n`);
  return file;
}

/**
 * An implementer that reads its task from stdin, makes the patch, and prints
 * progress followed by its report (the report is an account, never the patch).
 */
export function implementerScript(w: World): string {
  const report = {
    summary: 'add() adds; sum() reduces with add()',
    changed_files: [
      { path: 'src/add.mjs', operation: 'update' },
      { path: 'src/lib/sum.mjs', operation: 'create' },
    ],
    acceptance_coverage: CRITERIA.map((criterion) => ({ criterion, status: 'addressed', evidence: 'src/add.mjs, src/lib/sum.mjs' })),
    residual_risks: [],
  };
  return nodeScript(
    w,
    'implementer',
    `const task = fs.readFileSync(0, 'utf8');
if (!task.includes(${JSON.stringify(PREPARE_ARGS.task)})) { console.error('no task on stdin'); process.exit(3); }
console.log('editing...');
fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)});
fs.mkdirSync('src/lib', { recursive: true });
fs.writeFileSync('src/lib/sum.mjs', ${JSON.stringify(NEW_SUM)});
console.log(${JSON.stringify(JSON.stringify(report))});`,
  );
}

/**
 * A verifier that judges the materialised checkout by running it: the verdict
 * is `verified` only when add() and sum() really add, `rejected` otherwise.
 */
export function verifierScript(w: World): string {
  return nodeScript(
    w,
    'verifier',
    `const prompt = fs.readFileSync(process.env.NEEDLE_PROMPT_FILE, 'utf8');
const criteria = ${JSON.stringify(CRITERIA)};
let ok = criteria.every((c) => prompt.includes(c));
try {
  const { add } = await import(process.cwd() + '/src/add.mjs');
  const { sum } = await import(process.cwd() + '/src/lib/sum.mjs');
  ok = ok && add(2, 3) === 5 && sum([1, 2, 3, 4]) === 10;
} catch { ok = false; }
console.log('ran add() and sum() in the checkout');
console.log(JSON.stringify({ verdict: ok ? 'verified' : 'rejected',
  acceptance_coverage: criteria.map((criterion) => ({ criterion, status: ok ? 'addressed' : 'unaddressed', evidence: 'executed the modules' })),
  findings: ok ? [] : ['add() or sum() does not add'] }));`,
  );
}

/** An implementer that edits the checkout, starts a child that ignores SIGTERM, and never finishes. */
export function hangingImplementerScript(w: World): string {
  return nodeScript(
    w,
    'hanging-implementer',
    `import { spawn } from 'node:child_process';
fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)});
spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)", 'hanging-implementer-child'], { stdio: 'ignore' });
setInterval(() => {}, 1000);`,
  );
}

/** Host pids whose command line mentions `marker` (sandboxed processes included). */
export function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // the process exited while we looked
    }
  }
  return pids;
}

/** Bounded wait for a condition only observable by looking (process tables). */
export async function eventually(what: string, cond: () => boolean, withinMs = 15_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The Codex App Server simulator behind a `codex` executable. Under
 * bubblewrap a codex worker sees only its run directory and the executable's
 * package directory, so the simulator and its scenario are copied into a
 * package of their own; it keeps no log (nothing outside the run is writable).
 */
export function codexSimulator(w: World, name: string, scenario: unknown): ChangeRoleConfig {
  const pkg = join(w.base, `codex-${name}`);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: `codex-${name}`, private: true }));
  copyFileSync(join(ROOT, 'test/support/codex-sim/sim.mjs'), join(pkg, 'sim.mjs'));
  writeFileSync(join(pkg, 'scenario.json'), JSON.stringify(scenario));
  const exe = join(pkg, 'codex');
  writeFileSync(exe, `#!/bin/sh\nexec "${process.execPath}" "${join(pkg, 'sim.mjs')}" --scenario "${join(pkg, 'scenario.json')}" "$@"\n`);
  chmodSync(exe, 0o755);
  return { adapter: 'codex', model: 'gpt-sim-mini', codex_path: exe, timeout_ms: 60_000 };
}

/** path → mode and BLAKE3 of every entry below `dir`, `.git` included. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      if (st.isDirectory()) {
        out[`${r}/`] = `dir ${st.mode}`;
        walk(r);
      } else if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(join(dir, r))}`;
      else out[r] = `${st.mode} ${blake3(readFileSync(join(dir, r)))}`;
    }
  };
  walk('');
  return out;
}

export interface Served {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Resolves with all stderr so far once it matches `pattern` (bounded). */
  stderrMatching(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** `needle mcp serve` for the world's repository, connected with the official SDK client. */
export async function serve(w: World, profileId = PROFILE_ID, extra: readonly string[] = []): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', 'serve', '--role-profile', profileId, '--data-dir', w.dataDir, '--repository', w.repo, ...extra],
    cwd: w.repo,
    stderr: 'pipe',
  });
  let stderr = '';
  const listeners = new Set<() => void>();
  transport.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const l of listeners) l();
  });
  const client = new Client({ name: 'needle-e2e', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    stderrMatching: (pattern, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(stderr)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(stderr);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`server stderr never matched ${pattern}; got: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    close: () => client.close(),
  };
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built `needle` binary run in the repository with the world's data directory. */
export function needle(w: World, ...argv: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...argv],
      { cwd: w.repo, env: { ...process.env, NEEDLE_DATA_DIR: w.dataDir }, timeout: 60_000, encoding: 'utf8' },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

/** The digest `needle change show` tells the user to quote to `apply --if-match`. */
export async function changeDigest(w: World, id: string): Promise<{ digest: string; state: string }> {
  const shown = await needle(w, 'change', 'show', id, '--json');
  if (shown.code !== 0) throw new Error(`needle change show failed: ${shown.stderr}`);
  const d = JSON.parse(shown.stdout) as { change_digest: string; state: string };
  return { digest: d.change_digest, state: d.state };
}

export function readText(w: World, rel: string): string {
  return readFileSync(join(w.repo, rel), 'utf8');
}

export function writeText(w: World, rel: string, text: string): void {
  mkdirSync(dirname(join(w.repo, rel)), { recursive: true });
  writeFileSync(join(w.repo, rel), text);
}
