// The shape every `needle <command>` module implements, so the dispatcher can
// list, document and run commands without knowing them.

export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  /**
   * The descriptor behind `stdin` when it is the process's own standard input
   * (the binary sets 0; an injected stream leaves it unset): `mcp serve` reads
   * a pipe through it directly (mcp/stdin-source.ts).
   */
  readonly stdinFd?: number;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Whether stderr is a terminal (progress is shown only then). */
  readonly interactive: boolean;
}

export interface CliCommand {
  /** Words that select the command, e.g. ['mcp', 'serve'] or ['cache', 'list']. */
  readonly path: readonly string[];
  readonly summary: string;
  /** Full --help text. */
  readonly help: string;
  run(argv: readonly string[], io: CliIO): Promise<number>;
}

/** Bad invocation: printed as one line on stderr, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Whether `--help`/`-h` appears before a `--` end-of-options marker. */
export const wantsHelp = (argv: readonly string[]): boolean => {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
};

/** Runs one command: --help prints its help; its own arguments are parsed by it. */
export async function runCommand(command: CliCommand, argv: readonly string[], io: CliIO): Promise<number> {
  if (wantsHelp(argv)) {
    io.stdout.write(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
    return 0;
  }
  return await command.run(argv, io);
}

/** A failed command: one line on stderr; exit 2 for a bad invocation, 1 for anything else. */
export function failed(e: unknown, io: CliIO): number {
  const message = ((e as Error)?.message ?? String(e)).split('\n', 1)[0];
  io.stderr.write(`needle: ${message}\n`);
  return e instanceof UsageError ? 2 : 1;
}
