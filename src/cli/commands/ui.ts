// `needle ui`: the local control plane for one data directory, on 127.0.0.1
// only, with a fresh token in the printed URL. Runs until interrupted.
import { spawn } from 'node:child_process';
import { findRepositoryRoot } from '../../repo/snapshot.js';
import { startUi } from '../../ui/server.js';
import { parseCommandArgs, resolveDataDir, stringOption } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';

function openBrowser(url: string): void {
  // Best effort: the URL is printed either way.
  const child = spawn(process.platform === 'darwin' ? 'open' : 'xdg-open', [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

export const uiCommand: CliCommand = {
  path: ['ui'],
  summary: 'serve the local control plane (needs, cache, changes, savings) on 127.0.0.1',
  help: `Usage: needle ui [--port N] [--open] [--repository R] [--data-dir D]

Serves a read-only-by-default control plane for the data directory on
127.0.0.1 (a free port unless --port) and prints its URL, which carries a
fresh random token: only that URL (then its cookie) is let in. Requests under
another Host name, and state-changing requests without the token header and
this server's own Origin, are refused. Invalidating a certificate and
applying a verified change (the same journaled apply as \`needle change
apply\`, with its digest) each ask for confirmation. Freshness is computed
against --repository (default: the repository of the current directory).
Stop it with Ctrl-C.
`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, { port: { type: 'string' }, open: { type: 'boolean' }, repository: { type: 'string' }, 'data-dir': { type: 'string' } });
    const portText = stringOption(values, 'port');
    const port = portText === undefined ? 0 : Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be an integer 0..65535 (0 picks a free port)');
    const flag = stringOption(values, 'repository');
    let repository: string | null;
    try {
      repository = findRepositoryRoot(flag ?? io.cwd);
    } catch (e) {
      if (flag) throw new UsageError((e as Error).message);
      repository = null;
    }
    const ui = await startUi({ dataDir: resolveDataDir(stringOption(values, 'data-dir'), io.env, io.cwd), repository, port });
    // Handlers first, URL second: whoever reads the URL may stop us right away.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    io.stdout.write(`needle ui: ${ui.url}\n`);
    io.stderr.write('Serving on 127.0.0.1 only; the token in this URL is the key. Ctrl-C stops it.\n');
    if (values.open) openBrowser(ui.url);
    await stopped;
    await ui.close();
    return 0;
  },
};
