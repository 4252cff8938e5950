import { it } from 'vitest';
import { createStaticWorker } from '../../src/evidence/static-worker.js';
import { harness, makeRepo, need, options, TS_FILES } from '../resolve/fixture.js';

const FILES: Record<string, string> = {
  ...TS_FILES,
  'src/deploy.ts': [
    "import { parseOptions } from './config.js';",
    '',
    'const handlers: Record<string, (on: boolean) => string> = { dryRun: (on) => (on ? "skipped" : "uploaded") };',
    'export function deploy(argv: string[]): string {',
    '  const opts = parseOptions(argv);',
    '  const key = Object.keys(opts)[0]!;',
    '  return handlers[key]!(opts[key as keyof typeof opts]);',
    '}',
    '',
  ].join('\n'),
};

it('explore', async () => {
  for (const files of [TS_FILES, FILES]) {
    const repo = makeRepo(files);
    const h = harness(repo);
    const s = createStaticWorker();
    const n = need(repo, 'trace.state-flow', { kind: 'cli_option', name: '--dry-run' });
    const out = await s.run({ need: n, missing: n.required.concat(n.preferred), root: repo.root, covered: [], deadline: Date.now() + 60000, signal: new AbortController().signal });
    console.log(JSON.stringify(out.proposals, null, 1), out.outcome);
    const r = await h.engine([s]).resolve(n, options());
    console.log(r.resolution, r.satisfied, r.missing, r.context);
    const b = need(repo, 'locate.implementation', { kind: 'behavior', name: 'skips the upload in dry run mode' });
    const rb = await h.engine([s]).resolve(b, options());
    console.log(rb.resolution, rb.satisfied, rb.missing);
    repo.cleanup();
  }
});
