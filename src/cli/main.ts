#!/usr/bin/env node
// The `needle` binary.
import { runCli } from './dispatch.js';

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  interactive: Boolean(process.stderr.isTTY),
});
process.exitCode = code;
