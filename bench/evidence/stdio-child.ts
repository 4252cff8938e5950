// Runs one warm-hit measurement (stdio.ts measureStdioSideBySide: one row,
// or rows side by side) in a process of its own and prints the measurements
// as one JSON line. The client that times
// sub-millisecond round trips is then a fresh process doing only that: the
// benchmark's own process, after its in-process resolutions (tree-sitter's
// WASM, engines, stores) and its server-cold sections, collected garbage in
// the middle of samples (measured: 8–13 collections per 300 samples, one of
// 8.7 ms), which inflated both the hits and the echo floor it times.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { measureStdioSideBySide, type StdioBenchOptions, type StdioMeasurement } from './stdio.js';

// JSON has no NaN (an empty summary's values): carried as a string.
const NAN = 'NaN';
const encode = (_key: string, v: unknown): unknown => (typeof v === 'number' && Number.isNaN(v) ? NAN : v);
const decode = (_key: string, v: unknown): unknown => (v === NAN ? Number.NaN : v);

/** measureStdioSideBySide in a fresh child process; rejects with the child's last stderr line when it fails. */
export function measureStdioInChild(rows: readonly StdioBenchOptions[]): Promise<StdioMeasurement[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(rows)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-2_000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out, decode) as StdioMeasurement[]);
      else reject(new Error(err.trim().split('\n').pop() || `stdio measurement exited with ${code}`));
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const measured = await measureStdioSideBySide(JSON.parse(process.argv[2]!) as StdioBenchOptions[]);
    process.stdout.write(`${JSON.stringify(measured, encode)}\n`);
  } catch (e) {
    process.stderr.write(`${String((e as Error)?.message ?? e).split('\n', 1)[0]}\n`);
    process.exitCode = 1;
  }
}
