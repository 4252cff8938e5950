// Sixth round of shapes met in real CLIs: a TypeScript environment variable
// read as a member (`process.env.APP_X`, where Python writes
// `os.environ['APP_X']`) into a settings record that a getter returns, and a
// consumer that destructures the field it needs (`const { quietBell } =
// await loadSettings()`) before deciding on it. Both used to leave the flow
// without a producer or without its consumer, and the validator refused it.
import { describe, expect, it } from 'vitest';
import type { Location } from '../../src/core/contracts.js';
import { compileNeed, DEFAULT_WORLD, lineageDigest } from '../../src/core/need.js';
import { traceFlow } from '../../src/evidence/flow/trace.js';
import { SnapshotReader } from '../../src/validate/snapshot-reader.js';
import { validateProposal } from '../../src/validate/validate.js';
import { fixtureRepos, type Files } from './fixtures/flow-tests-fixtures.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

const TS_CHIME: Files = {
  'package.json': lines('{ "name": "chime", "type": "module" }'),
  'src/settings.ts': lines(
    'export interface Settings {', //                                      1
    '  volume: number', //                                                  2
    '  quietBell: boolean', //                                              3
    '}', //                                                                 4
    '', //                                                                  5
    'const defaults: Settings = {', //                                      6
    '  volume: 5,', //                                                      7
    '  quietBell: false,', //                                               8
    '}', //                                                                 9
    '', //                                                                  10
    'let cached: Settings | undefined', //                                  11
    '', //                                                                  12
    'export async function loadSettings(): Promise<Settings> {', //         13
    '  if (!cached) {', //                                                  14
    '    cached = { ...defaults }', //                                      15
    '    if (process.env.CHIME_QUIET_BELL !== undefined)', //               16
    "      cached.quietBell = process.env.CHIME_QUIET_BELL === 'true'", //  17
    '  }', //                                                               18
    '  return cached', //                                                   19
    '}', //                                                                 20
  ),
  'src/ring.ts': lines(
    "import { loadSettings } from './settings'", //                         1
    '', //                                                                  2
    'export async function ring(times: number): Promise<string[]> {', //    3
    '  const { quietBell, volume } = await loadSettings()', //              4
    '  const out: string[] = []', //                                        5
    '  for (let i = 0; i < times; i++) {', //                               6
    '    if (!quietBell) {', //                                             7
    '      out.push(`ding ${volume}`)', //                                  8
    '    }', //                                                             9
    '  }', //                                                               10
    '  return out', //                                                      11
    '}', //                                                                 12
  ),
  // A namesake: a parameter called `quietBell` that nothing destructured from the settings.
  'src/other.ts': lines(
    'export function describe(quietBell: boolean): string {', //            1
    "  if (quietBell) return 'silent'", //                                  2
    "  return 'loud'", //                                                   3
    '}', //                                                                 4
  ),
};

const repo = fixtureRepos();
const subject = { kind: 'configuration_key', name: 'CHIME_QUIET_BELL' } as const;
const primary: Location = { role: 'primary', path: 'src/settings.ts', symbol: null, start_line: 16, end_line: 17 };

describe('an environment variable read as a member and a field destructured by its consumer', () => {
  it('cites the member read as the producer and follows the destructured field to the branch it decides', () => {
    const { ctx } = repo(TS_CHIME);
    const result = traceFlow(ctx, subject, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const at = (path: string, line: number) =>
      result.payload.steps.filter((s) => s.location.path === path && s.location.start_line <= line && line <= s.location.end_line).map((s) => s.role);
    expect(result.payload.steps[0]!.role).toBe('producer');
    expect(at('src/settings.ts', 17)).toContain('producer');
    expect(at('src/ring.ts', 4)).toEqual(['transformation']);
    expect(at('src/ring.ts', 7)).toEqual(['consumer']);
    expect(result.payload.steps.at(-1)!.role).toBe('consumer');
    // Only the field the value travels in is followed: neither `volume` nor a parameter that happens to be called `quietBell`.
    expect(result.payload.steps.filter((s) => s.location.path === 'src/ring.ts' && s.location.start_line === 8)).toEqual([]);
    expect(result.payload.steps.some((s) => s.location.path === 'src/other.ts')).toBe(false);
  });

  it('is a flow the validator certifies as complete', () => {
    const { root, ctx } = repo(TS_CHIME);
    const result = traceFlow(ctx, subject, primary);
    if (result.kind !== 'found') throw new Error(result.reason);
    const need = compileNeed({ route: 'trace.state-flow', subject, required: [], preferred: [], world: DEFAULT_WORLD, task: 'trace CHIME_QUIET_BELL' }, lineageDigest(['0'.repeat(40)]));
    const verdict = validateProposal(new SnapshotReader(root), need, need.required, { predicate: 'runtime_flow', payload: result.payload });
    expect(verdict.ok ? 'ok' : verdict.reasons.join('; ')).toBe('ok');
  });
});
