// End of input cancels everything in flight (issue "Hardening" 8): a model
// worker stuck in a turn is interrupted and its process group killed, and the
// server exits 0 within 2 s instead of waiting for the worker's own timeout
// (ten minutes in this profile).
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDataDir } from '../../src/store/datadir.js';
import { activateProfile, createProfileRevision } from '../../src/store/profiles.js';
import { eventually, processesMentioning } from '../changes/mcp-harness.js';
import { gone } from '../workers/procs.js';
import { SIM } from '../workers/fixtures.js';
import { callNeed, cleanupAll, LOCATE_ARGS, makeRepo, ServerProcess, tempDir } from './fixtures.js';

afterAll(cleanupAll);

/** The simulator copied next to its scenario, so it runs inside the server's sandbox too (no log: nothing there is writable). */
function hangingCodex(marker: string): { exe: string; scenario: string } {
  const dir = tempDir('needle-sims-');
  const scenario = join(dir, 'hang.json');
  writeFileSync(scenario, JSON.stringify({ turns: [{ steps: [{ spawnSleep: marker }, { hang: true }] }] }));
  copyFileSync(SIM, join(dir, 'sim.mjs'));
  const exe = join(dir, 'codex');
  writeFileSync(exe, `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'sim.mjs')}" --scenario "${scenario}" "$@"\n`);
  chmodSync(exe, 0o755);
  return { exe, scenario };
}

describe('closing stdin', () => {
  it('interrupts a hanging model worker, kills its process group and exits 0 within 2 s', async () => {
    const marker = `${300 + (process.pid % 1000)}.${Date.now() % 100000}`;
    const sim = hangingCodex(marker);
    const dataDir = tempDir('needle-data-');
    const { db } = openDataDir(dataDir);
    const profile = {
      explorer: [{ adapter: 'codex' as const, model: 'gpt-sim-mini', codex_path: sim.exe, timeout_ms: 600_000 }],
      implementer: null,
      verifier: null,
      test_execution: 'untrusted' as const,
      require_sandbox: false,
    };
    activateProfile(db, 'hang', createProfileRevision(db, 'hang', profile));
    db.close();
    const s = new ServerProcess({ repo: makeRepo(), dataDir, profile: 'hang' });
    await s.initialize();
    s.send(callNeed('stuck', LOCATE_ARGS), callNeed('queued', LOCATE_ARGS), { jsonrpc: '2.0', id: 'queued-ping', method: 'ping' });
    // The turn is running once the simulator's grandchild `sleep <marker>` exists.
    await eventually('the model turn hangs', () => processesMentioning(marker).length > 0, 30_000).catch((e: unknown) => {
      throw new Error(`${String(e)}; server said ${JSON.stringify(s.out.messages).slice(0, 1500)}; stderr ${s.stderr.slice(0, 1500)}`);
    });
    const workers = [...processesMentioning(sim.scenario), ...processesMentioning(marker)];
    expect(workers.length).toBeGreaterThan(1);

    const eof = Date.now();
    const code = await s.close(10_000);
    const elapsed = Date.now() - eof;
    expect(code).toBe(0);
    expect(elapsed).toBeLessThan(2_000);
    for (const pid of workers) expect(await gone(pid)).toBe(true);
    expect(s.out.messages.find((m) => m.id === 'queued')?.result.content[0].text).toMatch(/cancelled before it started/);
    expect(s.out.messages.find((m) => m.id === 'queued-ping')?.result).toEqual({});
    const stuck = s.out.messages.find((m) => m.id === 'stuck');
    expect(stuck?.result.isError ?? true).toBe(true);
  }, 60_000);
});
