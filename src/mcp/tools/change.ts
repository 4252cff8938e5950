// prepare_change / verify_change input contracts (SPEC §14, closed at every
// level) and the interface their handlers implement. Output contracts are the
// ones the changes area publishes; the session validates every result
// against them before it is sent.
import { CHANGE, EVIDENCE } from '../../core/limits.js';
import { array, enumOf, object, optional, SchemaError, string, type Infer } from '../../core/schema.js';
import {
  prepareChangeResultSchema,
  verifyChangeResultSchema,
  type PrepareChangeArgs,
  type VerifyChangeArgs,
} from '../../changes/model.js';
import { isProtectedPath, normalizeRelativePath } from '../../repo/paths.js';

const digest = string({ pattern: /^b3:[0-9a-f]{64}$/ });
const text = (maxBytes: number) => string({ nonBlank: true, maxBytes });

export const prepareChangeInputSchema = object({
  task: text(CHANGE.taskMaxBytes),
  acceptance_criteria: array(text(CHANGE.criterionMaxBytes), { min: CHANGE.minCriteria, max: CHANGE.maxCriteria, unique: true }),
  allowed_paths: array(
    object({
      path: string({ minBytes: 1, maxBytes: EVIDENCE.pathMaxBytes, description: 'repository-relative path' }),
      scope: enumOf(['exact', 'subtree'] as const),
    }),
    { min: CHANGE.minAllowedPaths, max: CHANGE.maxAllowedPaths },
  ),
  artifact_ids: optional(array(digest, { max: CHANGE.maxArtifactIds, unique: true })),
  claim_ids: optional(array(digest, { max: CHANGE.maxClaimIds, unique: true })),
  constraints: optional(array(text(CHANGE.criterionMaxBytes), { max: CHANGE.maxConstraints, unique: true })),
});

export const verifyChangeInputSchema = object({
  change_id: string({ pattern: /^chg_[0-9a-f]{24}$/, description: 'the change_id prepare_change returned' }),
});

/** Parses prepare_change arguments; allowed paths come back normalized, unsafe or protected ones are refused. */
export function parsePrepareChange(args: unknown): PrepareChangeArgs {
  const parsed: Infer<typeof prepareChangeInputSchema> = prepareChangeInputSchema.parse(args, 'arguments');
  const seen = new Map<string, number>();
  const allowed_paths = parsed.allowed_paths.map((entry, i) => {
    const field = `arguments.allowed_paths[${i}].path`;
    const raw = entry.path.replace(/\\/g, '/');
    const path = raw.startsWith('./') ? null : normalizeRelativePath(raw);
    if (path === null) throw new SchemaError(field, 'must be a relative path inside the repository without `..`');
    if (isProtectedPath(path)) throw new SchemaError(field, `protected path is not writable: ${path}`);
    const earlier = seen.get(path);
    if (earlier !== undefined) throw new SchemaError(field, `duplicates allowed_paths[${earlier}] after normalization`);
    seen.set(path, i);
    return { path, scope: entry.scope };
  });
  return { ...parsed, allowed_paths };
}

export function parseVerifyChange(args: unknown): VerifyChangeArgs {
  return verifyChangeInputSchema.parse(args, 'arguments');
}

/** Implemented by the changes area; a session without it has the change tools disabled. */
export type { ChangeTools } from '../../changes/tools.js';

export { prepareChangeResultSchema, verifyChangeResultSchema };
