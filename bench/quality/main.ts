// `npm run bench -- quality [options]`: runs the scored evidence development
// set (../shared/evidence-dev, outside this repository) against the built
// product and writes its per-language and per-task tables into README.md
// between <!-- bench:quality --> and <!-- /bench:quality -->. Needs the
// development set and its repository mirrors; without them it says so in
// one line and exits 2, leaving README.md alone. CI never runs it.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { replaceSection } from '../readme.js';
import { reduceQuality, renderQuality } from './report.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const SECTION = 'quality';
const DEFAULT_DEV_SET = '../shared/evidence-dev';
const DEFAULT_MIRRORS = '../.mirror';

const USAGE = `usage: npm run bench -- quality [--dev-set DIR] [--mirrors DIR] [--tasks a,b] [--no-write] [--readme FILE]

Runs the scored evidence development set against the built product
(node <dev-set>/run.mjs, one fresh data directory and needle mcp serve per
task; a copy of dist/ taken at the start, so a rebuild during the run does not
change the product) and writes the per-language and per-task tables, the total line and the
command into the <!-- bench:quality --> section of README.md.

  --dev-set DIR   the development set (run.mjs, oracles/); default ${DEFAULT_DEV_SET}
                  relative to the project root
  --mirrors DIR   bare mirrors laid out as <owner>+<name>/repo; default
                  $EVIDENCE_DEV_MIRRORS, else ${DEFAULT_MIRRORS} relative to the project root
  --tasks a,b     passed to run.mjs: only tasks whose id contains one of these
  --no-write      print the block, leave README.md unchanged
  --readme FILE   the README to update (default: the project's README.md)
  --help          this text

Exit: 0 when the run was scored (a failed runner check, such as a second call
that was not a zero-worker hit, is reported in the tables, not as an exit
code); 2 when the development set, its mirrors or the build are missing, or the
runner reports a setup error (README.md is not touched); 1 on other errors.`;

/** Thrown for what a user fixes by providing something: one line, exit 2. */
class SetupError extends Error {}

/** A path as the README shows it: relative to the project root when it is beside it, else absolute. */
const shown = (p: string): string => {
  const beside = relative(dirname(root), p);
  return beside.startsWith('..') || beside === '' ? p : relative(root, p) || '.';
};

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The repositories the selected oracles need, as `owner/name`; empty when the oracles cannot be read. */
function neededRepositories(devSet: string, tasks: readonly string[]): string[] {
  const needed = new Set<string>();
  const oracles = join(devSet, 'oracles');
  if (!isDir(oracles)) return [];
  for (const dir of readdirSync(oracles)) {
    if (!isDir(join(oracles, dir))) continue;
    for (const file of readdirSync(join(oracles, dir)).filter((f) => f.endsWith('.json'))) {
      try {
        const o = JSON.parse(readFileSync(join(oracles, dir, file), 'utf8')) as { task_id?: unknown; repository?: unknown };
        if (typeof o.task_id !== 'string' || typeof o.repository !== 'string') continue;
        if (tasks.length > 0 && !tasks.some((t) => (o.task_id as string).includes(t))) continue;
        needed.add(o.repository);
      } catch {
        // The runner verifies the oracles and reports what is wrong with them.
      }
    }
  }
  return [...needed].sort();
}

function checkSetup(devSet: string, mirrors: string, tasks: readonly string[]): void {
  if (!existsSync(join(devSet, 'run.mjs'))) {
    throw new SetupError(`no evidence development set at ${shown(devSet)} (no run.mjs there); pass --dev-set DIR`);
  }
  if (!isDir(mirrors)) {
    throw new SetupError(`no repository mirrors at ${shown(mirrors)}; pass --mirrors DIR (bare mirrors laid out as <owner>+<name>/repo, see the development set's README)`);
  }
  const absent = neededRepositories(devSet, tasks).filter((r) => !existsSync(join(mirrors, r.replace('/', '+'), 'repo')));
  if (absent.length > 0) {
    throw new SetupError(`${absent.length} repository mirror(s) missing under ${shown(mirrors)}: ${absent.join(', ')} (want <owner>+<name>/repo)`);
  }
  const cli = join(root, 'dist/src/cli/main.js');
  if (!existsSync(cli)) throw new SetupError(`${shown(cli)} is missing; run npm run build`);
}

interface RunOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string[];
}

/**
 * A copy of the built product taken before the run, so that a rebuild of
 * dist/ while the set runs (minutes) cannot change the product between two
 * tasks. It resolves its dependencies through a link to node_modules and
 * reads its version from a copy of package.json, as dist/ itself does.
 */
function snapshotProduct(scratch: string): string {
  const product = join(scratch, 'product');
  cpSync(join(root, 'dist/src'), join(product, 'dist/src'), { recursive: true });
  copyFileSync(join(root, 'package.json'), join(product, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(product, 'node_modules'), 'dir');
  return join(product, 'dist/src/cli/main.js');
}

const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs run.mjs from the project root against the product at `cli`, its output shown on stderr as progress. */
function runDevSet(argv: readonly string[], cli: string): Promise<RunOutcome> {
  const env = { ...process.env, NEEDLE_CMD: [process.execPath, cli].map(shellQuote).join(' ') };
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      tail.push(...chunk.toString('utf8').split('\n').filter((l) => l.trim() !== ''));
      tail.splice(0, Math.max(0, tail.length - 20));
    });
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stderrTail: tail }));
  });
}

function productCommit(): string | null {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

function writeSection(file: string, report: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(`<!-- bench:${SECTION} -->`)) {
    writeFileSync(file, `${text.replace(/\n*$/, '\n')}\n<!-- bench:${SECTION} -->\n<!-- /bench:${SECTION} -->\n`);
  }
  replaceSection(file, SECTION, report);
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'dev-set': { type: 'string' },
        mirrors: { type: 'string' },
        tasks: { type: 'string' },
        'no-write': { type: 'boolean' },
        readme: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`bench quality: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const devSet = resolve(root, values['dev-set'] ?? DEFAULT_DEV_SET);
  const mirrors = resolve(root, values.mirrors ?? process.env.EVIDENCE_DEV_MIRRORS ?? DEFAULT_MIRRORS);
  const tasks = (values.tasks ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const readme = resolve(values.readme ?? join(root, 'README.md'));

  try {
    checkSetup(devSet, mirrors, tasks);
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    process.stderr.write(`bench quality: ${e.message}; README.md not changed\n`);
    return 2;
  }

  const scratch = mkdtempSync(join(tmpdir(), 'needle-bench-quality-'));
  try {
    const json = join(scratch, 'results.json');
    const taskArgs = tasks.length > 0 ? ['--tasks', tasks.join(',')] : [];
    const loadAtStart = loadavg()[0]!;
    const outcome = await runDevSet([join(devSet, 'run.mjs'), '--mirrors', mirrors, '--json', json, ...taskArgs], snapshotProduct(scratch));
    let results: unknown = null;
    try {
      results = JSON.parse(readFileSync(json, 'utf8'));
    } catch {
      results = null;
    }
    if (outcome.code === 2) {
      const errors = (results as { errors?: unknown } | null)?.errors;
      const first = Array.isArray(errors) && typeof errors[0] === 'string' ? errors[0] : outcome.stderrTail.at(-1);
      process.stderr.write(`bench quality: the development set reported a setup error: ${(first ?? 'no message').split('\n', 1)[0]}; README.md not changed\n`);
      return 2;
    }
    if ((outcome.code !== 0 && outcome.code !== 1) || results === null) {
      const how = outcome.signal ? `was killed by ${outcome.signal}` : `exited ${outcome.code}`;
      throw new Error(`run.mjs ${how}${results === null ? ' without a results file' : ''}; README.md not changed`);
    }
    const tables = reduceQuality(results);
    const options = [
      ...(values['dev-set'] !== undefined ? ['--dev-set', shown(devSet)] : []),
      ...(values.mirrors !== undefined ? ['--mirrors', shown(mirrors)] : []),
      ...taskArgs,
    ];
    const roleProfile = (results as { role_profile?: unknown }).role_profile;
    const report = renderQuality(tables, {
      command: ['npm run bench -- quality', ...options].join(' '),
      runner: ['NEEDLE_CMD="node <copy of dist/>/src/cli/main.js"', 'node', shown(join(devSet, 'run.mjs')), '--mirrors', shown(mirrors), '--json', '<tmp>/results.json', ...taskArgs].join(' '),
      machine: `Node ${process.version}, ${platform()}-${arch()}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, 1-minute load average ${loadAtStart.toFixed(1)} at start`,
      date: new Date().toISOString().slice(0, 10),
      commit: productCommit(),
      roleProfile: typeof roleProfile === 'string' ? roleProfile : 'local',
    });
    process.stdout.write(`${report}\n`);
    if (!values['no-write']) {
      writeSection(readme, report);
      process.stdout.write(`${shown(readme)} updated\n`);
    }
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`bench quality: ${(e as Error).message}\n`);
    process.exitCode = 1;
  },
);
