#!/usr/bin/env node
// The `needle` binary. A lifecycle hook runs on every turn of the client, so
// `needle hook …` skips the command registry (and everything it loads) and
// loads the resolver only when a turn actually asks for evidence.
const argv = process.argv.slice(2);
const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  interactive: Boolean(process.stderr.isTTY),
};
const hookCall = argv[0] === 'hook' && !argv.includes('--help') && !argv.includes('-h');
process.exitCode = hookCall
  ? await (await import('./commands/hook.js')).runHook(argv.slice(1), io)
  : await (await import('./dispatch.js')).runCli(argv, io);
