// `npm run bench -- mcp`: the per-request cost of parsing, validating and
// hashing a need_context request, and the ping round trip over real stdio to
// the spawned server next to a bare echo process measured in the same run.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileNeed, lineageDigest, requestDigest } from '../src/core/need.js';
import { ROUTE_IDS } from '../src/core/semantic.js';
import { needContextInputSchema, parseNeedContext } from '../src/mcp/tools/need-context.js';
import { micros, summarize, type Summary } from './stats.js';

/** The example request from the user's transport contract. */
const REQUEST = {
  route: 'trace.state-flow',
  subject: { kind: 'cli_option', name: '--crlf' },
  required: [
    { kind: 'implementation_location', polarity: 'positive', selection: 'primary' },
    { kind: 'runtime_flow', scenario: 'default', completeness: 'contract_complete', granularity: 'stepwise' },
  ],
  preferred: [{ kind: 'focused_tests', polarity: 'positive', selection: 'representative', completeness: 'open_world' }],
  world: { source: 'current', platform: 'current', features: 'default' },
  task: 'Trace how --crlf changes matching and search line terminators.',
};

export interface McpBenchOptions {
  readonly iterations: number;
  readonly pings: number;
  readonly cliPath: string;
  readonly echoPath: string;
}

function timeParse(iterations: number): { parse: Summary; compile: Summary } {
  const bytes = Buffer.from(JSON.stringify(REQUEST));
  const schema = needContextInputSchema(ROUTE_IDS);
  const lineage = lineageDigest(['0000000000000000000000000000000000000000']);
  const parse: number[] = [];
  const compile: number[] = [];
  // Let the JIT settle before measuring.
  for (let i = 0; i < 1_000; i++) compileNeed(parseNeedContext(schema, JSON.parse(bytes.toString('utf8'))), lineage);
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    const req = parseNeedContext(schema, JSON.parse(bytes.toString('utf8')));
    requestDigest(req);
    const t1 = performance.now();
    compileNeed(req, lineage);
    const t2 = performance.now();
    parse.push(t1 - t0);
    compile.push(t2 - t1);
  }
  return { parse: summarize(parse), compile: summarize(compile) };
}

/** Sequential request/response round trips over a child's stdin/stdout. */
async function roundTrips(argv: string[], lines: (i: number) => string, count: number, warmup: string[] = []): Promise<Summary> {
  const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = '';
  let waiting: ((line: string) => void) | null = null;
  const queued: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(line);
      } else queued.push(line);
    }
  });
  const exchange = (line: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reply within 30 s')), 30_000);
      waiting = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
      if (queued.length) waiting(queued.shift()!);
      child.stdin.write(`${line}\n`);
    });
  try {
    for (const line of warmup) await exchange(line);
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await exchange(lines(i));
      samples.push(performance.now() - t0);
    }
    return summarize(samples);
  } finally {
    child.stdin.end();
    child.kill();
  }
}

function fixtureRepo(): { dir: string; repo: string; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'needle-bench-'));
  const repo = join(dir, 'repo');
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  execFileSync('git', ['init', '-q', repo], { env });
  writeFileSync(join(repo, 'main.ts'), 'export const crlf = false;\n');
  execFileSync('git', ['add', '.'], { cwd: repo, env });
  execFileSync('git', ['commit', '-q', '-m', 'bench'], { cwd: repo, env });
  return { dir, repo, dataDir: join(dir, 'data') };
}

export async function runMcpBench(o: McpBenchOptions): Promise<string> {
  const { parse, compile } = timeParse(o.iterations);
  const fx = fixtureRepo();
  try {
    const ping = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' });
    const init = JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18' } });
    const server = await roundTrips(
      [o.cliPath, 'mcp', 'serve', '--role-profile', 'local', '--data-dir', fx.dataDir, '--repository', fx.repo, '--cache-only'],
      ping,
      o.pings,
      [init, ...Array.from({ length: 20 }, (_, i) => ping(-1 - i))],
    );
    const echo = await roundTrips([o.echoPath], ping, o.pings, Array.from({ length: 20 }, (_, i) => ping(-1 - i)));
    const row = (name: string, s: Summary) => `| ${name} | ${s.n} | ${micros(s.p50)} | ${micros(s.p95)} | ${micros(s.max)} |`;
    return [
      '| measurement | n | p50 | p95 | max |',
      '|---|---:|---:|---:|---:|',
      row('need_context parse + validate + request digest', parse),
      row('NeedIR compile (subject, obligation, world, need ids)', compile),
      row('`ping` round trip, needle mcp serve (stdio)', server),
      row('round trip, bare echo process (stdio floor)', echo),
    ].join('\n');
  } finally {
    rmSync(fx.dir, { recursive: true, force: true });
  }
}
