// The README's main job: resolve a real need on a real repository (this one,
// or the one given as the first argument) with the embedded static worker,
// then ask again and show that the answer is a certified cache hit with zero
// workers. No API key, no network. Uses a fresh data directory so the first
// call is always cold.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// The `needle` binary as installed (package.json `bin`: the bundle `npm run build` writes).
const { NEEDLE_BIN: cli } = await import('../dist/src/mcp/version.js');
const repository = resolve(process.argv[2] ?? join(here, '..'));
const [route, subject] = process.argv[2]
  ? [process.argv[3] ?? 'locate.implementation', process.argv[4]]
  : ['locate.implementation', 'symbol:compileNeed'];
if (!subject) {
  console.error('usage: npm run quickstart -- [REPOSITORY ROUTE KIND:NAME]   e.g. ~/src/tool trace.state-flow cli_option:--dry-run');
  process.exit(2);
}
const dataDir = mkdtempSync(join(tmpdir(), 'needle-quickstart-'));

function needle(args, { json = false } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args, '--data-dir', dataDir], { cwd: repository, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(r.status ?? 1);
  }
  return json ? JSON.parse(r.stdout) : r.stdout;
}

needle(['init']);
const ask = ['context', '--repository', repository, '--route', route, '--subject', subject];
console.log(`$ needle ${ask.join(' ')}\n`);
let started = performance.now();
const first = needle([...ask, '--json'], { json: true });
const coldMs = performance.now() - started;
console.log(first.context || `(no context: ${first.resolution.reason ?? first.resolution.kind})`);
console.log(`\nfirst call:  resolution=${first.resolution.kind} worker_spawned=${first.worker_spawned} (${coldMs.toFixed(0)} ms incl. process start)`);
started = performance.now();
const second = needle([...ask, '--json'], { json: true });
const warmMs = performance.now() - started;
console.log(`second call: resolution=${second.resolution.kind} cache_hit=${second.cache_hit} worker_spawned=${second.worker_spawned} (${warmMs.toFixed(0)} ms incl. process start)`);
console.log(`\ndata directory: ${dataDir}  (try: node ${cli} cache list --data-dir ${dataDir}, or node ${cli} ui --data-dir ${dataDir} for the same in a browser)`);
