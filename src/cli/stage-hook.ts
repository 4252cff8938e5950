// A test hook for the server process (never set in normal use): with
// NEEDLE_TEST_HOOK_STAGE naming a resolution stage and
// NEEDLE_TEST_HOOK_STAGE_GATE a file path, every resolution that reaches that
// stage says so on stderr (stdout is the MCP channel) and holds there until
// the file exists (at most 30 s). A test can then act at a known point — send
// a cancel while the static worker traces, line other servers up behind a
// lease that is certainly held — without sleeping. Once the file exists,
// later arrivals pass at once and are still announced.
import { existsSync, writeSync } from 'node:fs';
import { RESOLUTION_STAGES, type Engine, type ResolutionStage } from '../core/resolution.js';
import { UsageError } from './command.js';

const HOLD_MS = 30_000;

export function stageHookFromEnv(env: NodeJS.ProcessEnv): ((stage: ResolutionStage) => void) | null {
  const wanted = env.NEEDLE_TEST_HOOK_STAGE;
  const gate = env.NEEDLE_TEST_HOOK_STAGE_GATE;
  if (!wanted || !gate) return null;
  if (!(RESOLUTION_STAGES as readonly string[]).includes(wanted)) throw new UsageError(`NEEDLE_TEST_HOOK_STAGE: unknown stage ${wanted} (one of ${RESOLUTION_STAGES.join(', ')})`);
  return (stage) => {
    if (stage !== wanted) return;
    writeSync(2, `needle-test-hook: stage ${stage} (pid ${process.pid})\n`);
    // Holding the whole process is the point: nothing of it may move on.
    const tick = new Int32Array(new SharedArrayBuffer(4));
    const until = Date.now() + HOLD_MS;
    while (!existsSync(gate) && Date.now() < until) Atomics.wait(tick, 0, 0, 10);
  };
}

/** `engine` with the hook from the environment, when one is set. */
export function withStageHook(engine: Engine, env: NodeJS.ProcessEnv): Engine {
  const hook = stageHookFromEnv(env);
  if (!hook) return engine;
  return { ...engine, resolve: (need, opts) => engine.resolve(need, { ...opts, onStage: hook }) };
}
