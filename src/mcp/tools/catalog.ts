// The tools a session publishes (SPEC §4): names, descriptions, annotations,
// input schemas and, under 2025-06-18 only, output schemas.
import { MCP } from '../../core/limits.js';
import type { JsonSchema } from '../../core/schema.js';
import type { RouteId } from '../../core/semantic.js';
import { prepareChangeInputSchema, prepareChangeResultSchema, verifyChangeInputSchema, verifyChangeResultSchema } from './change.js';
import { needContextInputSchema, needContextOutputSchema, type NeedContextInputSchema } from './need-context.js';

export const TOOL_NAMES = ['need_context', 'prepare_change', 'verify_change'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
export const CHANGE_TOOL_NAMES: readonly ToolName[] = ['prepare_change', 'verify_change'];

const DESCRIPTIONS: Record<ToolName, string> = {
  need_context:
    'Typed repository evidence about one subject (symbol, CLI option, configuration key, test, file, module or behavior): ' +
    'where it is implemented, how its value flows at runtime, which focused test proves it. Answers come from ' +
    'validated evidence with paths and line ranges; `satisfied` and `missing` say what is covered. Call it before ' +
    'grepping or opening files, and do not repeat the discovery it covers. A `bypass` status means continue with your own tools.',
  prepare_change:
    'Prepare a change in a disposable checkout: an implementer edits only the allowed paths and Needle derives the patch ' +
    'from the filesystem. Your worktree is not touched. Returns a change_id to pass to verify_change.',
  verify_change:
    'Verify a prepared change in a fresh checkout with an independent read-only verifier that may run certified tests. ' +
    'Verdict: verified, rejected, repairable or inconclusive. Nothing is applied; the user applies a verified change with the needle CLI.',
};

const ANNOTATIONS: Record<ToolName, object> = {
  need_context: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  prepare_change: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  verify_change: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

export interface Catalog {
  readonly needContextInput: NeedContextInputSchema;
  list(protocolVersion: string): object[];
}

export function buildCatalog(routes: readonly RouteId[], changesEnabled: boolean): Catalog {
  const needContextInput = needContextInputSchema(routes);
  const schemas: Record<ToolName, { input: JsonSchema; output: JsonSchema }> = {
    need_context: { input: needContextInput.json, output: needContextOutputSchema.json },
    prepare_change: { input: prepareChangeInputSchema.json, output: prepareChangeResultSchema.json },
    verify_change: { input: verifyChangeInputSchema.json, output: verifyChangeResultSchema.json },
  };
  const names = TOOL_NAMES.filter((n) => changesEnabled || !CHANGE_TOOL_NAMES.includes(n));
  return {
    needContextInput,
    list(protocolVersion) {
      const modern = protocolVersion === MCP.latestProtocolVersion;
      return names.map((name) => ({
        name,
        description: DESCRIPTIONS[name],
        annotations: ANNOTATIONS[name],
        inputSchema: schemas[name].input,
        ...(modern ? { outputSchema: schemas[name].output } : {}),
      }));
    },
  };
}
