// `needle …`: finds the command whose words match, handles --help and
// --version for every command, and turns failures into exit codes (2 for a
// bad invocation, 1 for anything else), each reported as one line.
import { safeEcho } from './args.js';
import { failed, runCommand, UsageError, wantsHelp, type CliCommand, type CliIO } from './command.js';
import * as registry from './commands/index.js';
import { NEEDLE_VERSION } from '../mcp/version.js';

function isCommand(value: unknown): value is CliCommand {
  const c = value as CliCommand;
  return typeof c === 'object' && c !== null && Array.isArray(c.path) && typeof c.run === 'function';
}

export const COMMANDS: readonly CliCommand[] = Object.values(registry)
  .filter(isCommand)
  .sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.path.join(' ').length));
  return [
    'needle — proof-gated repository evidence for coding agents',
    '',
    'Usage: needle <command> [options]   (needle <command> --help for details)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  --help, -h     show help',
    '  --version, -V  print the version',
    '',
  ].join('\n');
}

function find(argv: readonly string[]): { command: CliCommand; rest: string[] } | null {
  let best: CliCommand | null = null;
  for (const c of COMMANDS)
    if (c.path.every((word, i) => argv[i] === word) && (!best || c.path.length > best.path.length)) best = c;
  return best ? { command: best, rest: argv.slice(best.path.length) } : null;
}

/** Groups such as `profile` or `mcp`: the commands under a word, for help. */
function group(word: string): CliCommand[] {
  return COMMANDS.filter((c) => c.path[0] === word);
}


export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
      io.stdout.write(overview());
      return argv.length === 0 ? 2 : 0;
    }
    if (argv[0] === '--version' || argv[0] === '-V') {
      io.stdout.write(`needle ${NEEDLE_VERSION}\n`);
      return 0;
    }
    const found = find(argv);
    if (!found) {
      const members = group(argv[0]!);
      if (members.length > 0 && (argv.length === 1 || wantsHelp(argv))) {
        io.stdout.write(members.map((c) => `  needle ${c.path.join(' ')}  ${c.summary}`).join('\n') + '\n');
        return wantsHelp(argv) ? 0 : 2;
      }
      throw new UsageError(`unknown command \`${safeEcho(argv[0]!)}\`; run needle --help`);
    }
    return await runCommand(found.command, found.rest, io);
  } catch (e) {
    return failed(e, io);
  }
}
