// The shape every `needle <command>` module implements, so the dispatcher can
// list, document and run commands without knowing them.

export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
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
