import { it } from 'vitest';
import { AnalysisContext } from '../../src/evidence/context.js';
import { loadLanguages } from '../../src/evidence/parse/treesitter.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { findFocusedTests } from '../../src/evidence/tests/find.js';

const cases: [string, any][] = JSON.parse(process.env.CASES ?? '[]');
it('real', async () => {
  await loadLanguages();
  for (const [repo, subject] of cases) {
    const ctx = new AnalysisContext(`/tmp/realrepos/${repo}`);
    const t0 = Date.now();
    const r = traceFlow(ctx, subject, null);
    const t1 = Date.now();
    console.log(`== ${repo} ${subject.kind}:${subject.name} flow ${t1 - t0}ms`);
    if (r.kind === 'found') {
      for (const s of r.payload.steps) console.log(s.role.padEnd(15), `${s.location.path}:${s.location.start_line}-${s.location.end_line}`, s.location.symbol, '|', s.description);
      console.log('gaps', r.payload.gaps);
    } else console.log(r);
    const t = findFocusedTests(ctx, subject, null);
    console.log(`tests ${Date.now() - t1}ms`, JSON.stringify(t));
  }
}, 300_000);
