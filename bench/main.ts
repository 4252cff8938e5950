// `npm run bench -- <suite> [options]`: runs a benchmark suite, prints a
// markdown table with the command that produced it, and with --write-readme
// replaces the suite's marked section of README.md (the quality suite writes
// its section unless --no-write).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { clientTable, measureClaudeCode } from './client.js';
import { NEEDLE_BIN } from './clients.js';
import { runMcpBench } from './mcp.js';
import { replaceSection } from './readme.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const CLAUDE_CODE_VERSION = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@anthropic-ai/claude-code'];

const USAGE = `usage: npm run bench -- mcp [--iterations N (100..100000)] [--pings N (10..10000)] [--write-readme]
       npm run bench -- client [--write-readme]
       npm run bench -- evidence [--quick] [--write-readme]
       npm run bench -- team [--url URL] [--repeats N] [--files N] [--write-readme]
       npm run bench -- quality [--dev-set DIR] [--mirrors DIR] [--tasks a,b] [--no-write] [--help]`;

function bounded(value: string | undefined, fallback: number, min: number, max: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} must be an integer in ${min}..${max}`);
  return n;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'evidence') {
    // The evidence suite is its own entry point (it spawns servers and generates repositories).
    return spawnSync(process.execPath, [join(here, 'evidence', 'main.js'), ...argv.slice(1)], { stdio: 'inherit' }).status ?? 1;
  }
  if (argv[0] === 'team') {
    // The team cache next to the local cache, PostgreSQL on loopback (a throw-away cluster unless --url).
    return spawnSync(process.execPath, [join(here, 'team.js'), ...argv.slice(1)], { stdio: 'inherit' }).status ?? 1;
  }
  if (argv[0] === 'quality') {
    // The scored development set outside this repository, run against dist/; writes README.md unless --no-write.
    return spawnSync(process.execPath, [join(here, 'quality', 'main.js'), ...argv.slice(1)], { stdio: 'inherit' }).status ?? 1;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { iterations: { type: 'string' }, pings: { type: 'string' }, 'write-readme': { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const [suite] = parsed.positionals;
  if (suite === 'client' && parsed.positionals.length === 1) return clientSuite(parsed.values['write-readme'] === true);
  if (suite !== 'mcp' || parsed.positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const iterations = bounded(parsed.values.iterations, 10_000, 100, 100_000, '--iterations');
  const pings = bounded(parsed.values.pings, 500, 10, 10_000, '--pings');
  const cliPath = NEEDLE_BIN;
  const echoPath = join(here, 'echo.js');
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing; run npm run build`);
  const table = await runMcpBench({ iterations, pings, cliPath, echoPath });
  const command = `npm run bench -- mcp --iterations ${iterations} --pings ${pings}`;
  const report = `${table}\n\nCommand: \`${command}\` (${machine()}, ${new Date().toISOString().slice(0, 10)})\n`;
  process.stdout.write(report);
  if (parsed.values['write-readme']) {
    replaceSection(join(root, 'README.md'), 'mcp', report);
    process.stdout.write('README.md updated\n');
  }
  return 0;
}

const machine = (): string => `Node ${process.version}, ${platform()}-${arch()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}`;

/** What the model receives per answer through the real Claude Code (offline, mock model). */
async function clientSuite(writeReadme: boolean): Promise<number> {
  if (!existsSync(NEEDLE_BIN)) throw new Error(`${NEEDLE_BIN} is missing; run npm run build`);
  const loadAtStart = loadavg()[0]!;
  const measured = await measureClaudeCode();
  if ('skip' in measured) {
    process.stderr.write(`bench client: ${measured.skip}\n`);
    return 1;
  }
  const report = `${clientTable(measured.sizes)}\n\nCommand: \`npm run bench -- client\` (Claude Code ${CLAUDE_CODE_VERSION}, ${machine()}, 1-minute load average ${loadAtStart.toFixed(1)} at start, ${new Date().toISOString().slice(0, 10)}). Sizes do not depend on load.\n`;
  process.stdout.write(report);
  if (process.env.NEEDLE_SHOW_TOOL_RESULT) process.stdout.write(`\n${measured.sample}\n`);
  if (writeReadme) {
    replaceSection(join(root, 'README.md'), 'client', report);
    process.stdout.write('README.md updated\n');
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`bench: ${(e as Error).message}\n`);
    process.exitCode = 1;
  },
);
