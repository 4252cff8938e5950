// Residual intent (SPEC §5): an exact anchor in the task wording that the typed
// need does not carry. Cached evidence must not be served as if it answered it.
import { blake3, type Digest } from './digest.js';
import type { SubjectKind } from './semantic.js';

export interface Residual {
  readonly digest: Digest;
  readonly anchors: readonly string[];
  readonly mandatory: true;
}

const TRIM = /^[,.;:()[\]"'`{}<>!?]+|[,.;:()[\]"'`{}<>!?]+$/g;
const SOURCE_EXT = /\.(rs|ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|toml|json|ya?ml|java|kt|c|h|cc|cpp|hpp|rb|sh)$/;
const IDENT = '[A-Za-z_][A-Za-z0-9_]*';
const DOTTED = new RegExp(`^${IDENT}(\\.${IDENT}){2,}$`);
const LONG_FLAG = /^--[A-Za-z0-9][A-Za-z0-9_-]*(=.*)?$/;

function isAnchor(token: string): boolean {
  return LONG_FLAG.test(token) || token.includes('::') || DOTTED.test(token) || SOURCE_EXT.test(token);
}

function namesSubject(token: string, subject: { kind: SubjectKind; name: string }): boolean {
  const bare = token.replace(/=.*$/, '');
  if (bare === subject.name || token === subject.name) return true;
  return subject.kind === 'file' && bare.replace(/^\.\//, '') === subject.name.replace(/^\.\//, '');
}

export function findResidual(task: string, subject: { kind: SubjectKind; name: string }): Residual | null {
  const anchors = [
    ...new Set(
      task
        .split(/\s+/)
        .map((t) => t.replace(TRIM, ''))
        .filter((t) => t.length > 2 && isAnchor(t) && !namesSubject(t, subject)),
    ),
  ].sort();
  if (anchors.length === 0) return null;
  return { digest: blake3(anchors.join('\n')), anchors, mandatory: true };
}
