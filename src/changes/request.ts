// Normalises prepare_change arguments once. The MCP layer already enforces its
// published schema; this re-checks what safety rests on (paths, bounds,
// uniqueness) because the CLI and tests call prepareChange directly.
import { CHANGE } from '../core/limits.js';
import type { Digest } from '../core/digest.js';
import { isProtectedPath, normalizeRelativePath } from '../repo/paths.js';
import { ChangeError, oneLine, type AllowedPath, type ChangeRequest, type PrepareChangeArgs } from './model.js';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

function invalid(field: string, reason: string): ChangeError {
  return new ChangeError('invalid_request', oneLine(`${field}: ${reason}`));
}

function texts(field: string, values: readonly string[], min: number, max: number, maxBytes: number): string[] {
  if (values.length < min || values.length > max) throw invalid(field, `must have ${min}..${max} item(s), got ${values.length}`);
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (typeof v !== 'string' || !/\S/.test(v)) throw invalid(`${field}[${i}]`, 'must not be blank');
    if (bytes(v) > maxBytes) throw invalid(`${field}[${i}]`, `must be at most ${maxBytes} bytes`);
    if (seen.has(v)) throw invalid(`${field}[${i}]`, 'duplicates an earlier item');
    seen.add(v);
  });
  return [...values];
}

function ids(field: string, values: readonly string[], max: number): Digest[] {
  if (values.length > max) throw invalid(field, `must have at most ${max} item(s)`);
  const out = values.map((v, i) => {
    const hex = typeof v === 'string' ? v.toLowerCase().replace(/^b3:/, '') : '';
    if (!/^[0-9a-f]{64}$/.test(hex)) throw invalid(`${field}[${i}]`, 'must be a b3: digest');
    return `b3:${hex}` as Digest;
  });
  if (new Set(out).size !== out.length) throw invalid(field, 'contains duplicates');
  return out;
}

/** One allowed path, normalised; refuses unsafe and protected paths. */
export function normalizeAllowedPath(entry: AllowedPath, field: string): AllowedPath {
  if (entry.scope !== 'exact' && entry.scope !== 'subtree') throw invalid(`${field}.scope`, 'must be exact or subtree');
  const raw = typeof entry.path === 'string' ? entry.path.replace(/\\/g, '/') : '';
  if (bytes(raw) > 1024) throw invalid(`${field}.path`, 'must be at most 1024 bytes');
  const path = normalizeRelativePath(raw);
  if (path === null || path === '' || path === '.') throw invalid(`${field}.path`, `unsafe path ${JSON.stringify(raw.slice(0, 80))}`);
  if (isProtectedPath(path)) throw invalid(`${field}.path`, `protected path is not writable: ${path}`);
  return { path, scope: entry.scope };
}

export function normalizeRequest(args: PrepareChangeArgs): ChangeRequest {
  if (typeof args.task !== 'string' || !/\S/.test(args.task)) throw invalid('task', 'must not be blank');
  if (bytes(args.task) > CHANGE.taskMaxBytes) throw invalid('task', `must be at most ${CHANGE.taskMaxBytes} bytes`);
  const criteria = texts('acceptance_criteria', args.acceptance_criteria ?? [], CHANGE.minCriteria, CHANGE.maxCriteria, CHANGE.criterionMaxBytes);
  const entries = args.allowed_paths ?? [];
  if (entries.length < CHANGE.minAllowedPaths || entries.length > CHANGE.maxAllowedPaths)
    throw invalid('allowed_paths', `must have ${CHANGE.minAllowedPaths}..${CHANGE.maxAllowedPaths} item(s), got ${entries.length}`);
  const allowed = entries.map((e, i) => normalizeAllowedPath(e, `allowed_paths[${i}]`));
  const seen = new Set<string>();
  allowed.forEach((a, i) => {
    if (seen.has(a.path)) throw invalid(`allowed_paths[${i}].path`, `duplicates ${a.path}`);
    seen.add(a.path);
  });
  return {
    task: args.task,
    acceptance_criteria: criteria,
    allowed_paths: allowed,
    artifact_ids: ids('artifact_ids', args.artifact_ids ?? [], CHANGE.maxArtifactIds),
    claim_ids: ids('claim_ids', args.claim_ids ?? [], CHANGE.maxClaimIds),
    constraints: texts('constraints', args.constraints ?? [], 0, CHANGE.maxConstraints, CHANGE.criterionMaxBytes),
  };
}

export function inScope(path: string, allowed: readonly AllowedPath[]): boolean {
  return allowed.some((a) => (a.scope === 'exact' ? path === a.path : path === a.path || path.startsWith(`${a.path}/`)));
}
