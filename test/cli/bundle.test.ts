// The `needle` binary users run is the bundle `npm run build` writes
// (rolldown.config.mjs, package.json `bin`); the compiled entry
// dist/src/cli/main.js stays runnable (the development set's runner uses it).
// Every MCP, hook and UI test spawns the bundle through test/mcp/fixtures.ts;
// this file checks what those tests cannot see: that the bundle loads only
// packages an installation has, and that both entries are the same program.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEEDLE_BIN } from '../../src/mcp/version.js';
import { CLI, requireBuild, ROOT } from '../mcp/fixtures.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { needle: string }; dependencies: Record<string, string> };
const COMPILED = join(ROOT, 'dist/src/cli/main.js');

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

describe('the shipped binary', () => {
  it('is the bundle package.json declares, and the tests run it', () => {
    requireBuild();
    expect(NEEDLE_BIN).toBe(join(ROOT, pkg.bin.needle));
    expect(CLI).toBe(NEEDLE_BIN);
    expect(dirname(NEEDLE_BIN)).toBe(join(ROOT, 'dist/src/bundle'));
    expect(readFileSync(NEEDLE_BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('imports nothing but Node built-ins and the runtime dependencies', () => {
    requireBuild();
    const dir = dirname(NEEDLE_BIN);
    const allowed = new Set([...Object.keys(pkg.dependencies), ...builtinModules]);
    const imported = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/(?:^|\n)\s*import\s[^'"]*?from\s+["']([^"'.][^"']*)["']|\bimport\(\s*["']([^"'.][^"']*)["']\s*\)|\brequire\(\s*["']([^"'.][^"']*)["']\s*\)/g)) {
        const specifier = m[1] ?? m[2] ?? m[3]!;
        imported.add(specifier.startsWith('node:') ? specifier.slice(5) : packageOf(specifier));
      }
    }
    expect(imported.size).toBeGreaterThan(0);
    expect([...imported].filter((p) => !allowed.has(p))).toEqual([]);
  });

  it('answers as the compiled entry does', () => {
    requireBuild();
    expect(existsSync(COMPILED)).toBe(true);
    const run = (entry: string, ...args: string[]) => execFileSync(process.execPath, [entry, ...args], { encoding: 'utf8' });
    expect(run(NEEDLE_BIN, '--version')).toBe(run(COMPILED, '--version'));
    expect(run(NEEDLE_BIN, '--help')).toBe(run(COMPILED, '--help'));
  });
});
