// Fixtures for the worker tests: a real git repository, a compiled need, a
// simulator wrapper per scenario, and a byte-level fingerprint of a directory
// tree (worktree and .git) to prove nothing of the user's repository changed.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, lstatSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake3 } from '../../src/core/digest.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest, type CompiledNeed } from '../../src/core/need.js';
import type { RouteId } from '../../src/core/semantic.js';
import { expect } from 'vitest';
import { git } from '../support/git.js';
import { gone } from './procs.js';

export const SIM = fileURLToPath(new URL('../support/codex-sim/sim.mjs', import.meta.url));

export const FLAGS_TS = `export interface Options {\n  dryRun: boolean;\n}\n\nexport function parse(argv: string[]): Options {\n  return { dryRun: argv.includes('--dry-run') };\n}\n`;

/** A small repository with one commit and one dirty file, under a fresh temp dir. */
export function makeRepo(): { root: string; base: string } {
  const base = mkdtempSync(join(tmpdir(), 'needle-workers-'));
  const root = join(base, 'repo');
  mkdirSync(join(root, 'src'), { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 't@example.com');
  git(root, 'config', 'user.name', 'T');
  writeFileSync(join(root, 'src', 'flags.ts'), FLAGS_TS);
  writeFileSync(join(root, 'README.md'), '# fixture\n');
  git(root, 'add', '.');
  git(root, 'commit', '-q', '-m', 'init');
  writeFileSync(join(root, 'README.md'), '# fixture (dirty)\n');
  return { root, base };
}

export function needFor(root: string, route: RouteId = 'locate.implementation', name = '--dry-run'): CompiledNeed {
  const roots = git(root, 'rev-list', '--max-parents=0', 'HEAD').trim().split('\n');
  return compileNeed(
    { route, subject: { kind: 'cli_option', name }, required: [], preferred: [], world: DEFAULT_WORLD, task: `where is ${name} handled` },
    lineageDigest(roots),
  );
}

/** Writes the scenario and an executable wrapper that runs the simulator with it. */
export function simulator(dir: string, name: string, scenario: unknown): { exe: string; log: string } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  const log = join(dir, `${name}.log`);
  const exe = join(dir, `${name}-codex`);
  writeFileSync(file, JSON.stringify(scenario));
  writeFileSync(exe, `#!/bin/sh\nexec "${process.execPath}" "${SIM}" --scenario "${file}" --log "${log}" "$@"\n`);
  chmodSync(exe, 0o755);
  return { exe, log };
}

export type SimEvent = Record<string, unknown> & { event: string };
export function readLog(log: string): SimEvent[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SimEvent);
}

/** Bounded wait for a log event written by the simulator process. */
export async function waitForEvent(log: string, pred: (e: SimEvent) => boolean, withinMs = 10_000): Promise<SimEvent> {
  const end = Date.now() + withinMs;
  for (;;) {
    const hit = readLog(log).find(pred);
    if (hit) return hit;
    if (Date.now() > end) throw new Error(`simulator never logged the expected event (${log})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** path → digest of every entry under dir, .git included; symlinks by target, dirs by presence. */
export function fingerprint(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      if (st.isDirectory()) {
        out.set(`${r}/`, `dir:${st.mode}`);
        walk(r);
      } else if (st.isSymbolicLink()) out.set(r, `link:${readlinkSync(join(dir, r))}`);
      else out.set(r, `${st.mode}:${blake3(readFileSync(join(dir, r)))}`);
    }
  };
  walk('');
  return out;
}

export const IMPLEMENTATION = {
  locations: [{ role: 'primary', path: 'src/flags.ts', symbol: 'dryRun', start_line: 1, end_line: 3 }],
  gaps: [],
};

/**
 * How a stopped Codex turn ends, as the simulator logged it: `turn/interrupt`
 * was sent, then the app server and the grandchild it spawned are gone.
 */
export async function expectInterruptedAndKilled(simLog: string): Promise<void> {
  const log = readLog(simLog);
  expect(log.some((e) => e.event === 'request' && e.method === 'turn/interrupt')).toBe(true);
  expect(await gone(log.find((e) => e.event === 'start')!.pid as number)).toBe(true);
  expect(await gone(log.find((e) => e.event === 'grandchild')!.pid as number)).toBe(true);
}
