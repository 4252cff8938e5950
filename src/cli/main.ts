#!/usr/bin/env node
// The `needle` binary. A lifecycle hook runs on every turn of the client, so
// `needle hook …` skips the command registry (and everything it loads) and
// loads the resolver only when a turn actually asks for evidence; `needle mcp
// serve` skips the registry too.
const argv = process.argv.slice(2);
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  // Made when first read: `mcp serve` reads a piped stdin through its own
  // handle (mcp/stdin-source.ts), and a second handle on descriptor 0 may not exist.
  get stdin(): NodeJS.ReadableStream {
    return process.stdin;
  },
  stdinFd: 0,
  env: process.env,
  cwd: process.cwd(),
  interactive: Boolean(process.stderr.isTTY),
};
const helpAsked = argv.includes('--help') || argv.includes('-h');
const hookCall = argv[0] === 'hook' && !helpAsked;
// An MCP client starts a server per session and waits for its initialize
// answer: `mcp serve` loads its own command only, not the whole registry.
const serveCall = argv[0] === 'mcp' && argv[1] === 'serve';
process.exitCode = hookCall
  ? await (await import('./commands/hook.js')).runHook(argv.slice(1), io)
  : serveCall
    ? await serve(argv.slice(2))
    : await (await import('./dispatch.js')).runCli(argv, io);

async function serve(rest: string[]): Promise<number> {
  const { failed, runCommand } = await import('./command.js');
  try {
    return await runCommand((await import('./commands/mcp-serve.js')).mcpServeCommand, rest, io);
  } catch (e) {
    return failed(e, io);
  }
}
