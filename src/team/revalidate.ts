// Re-validation of a row fetched from the team cache (issue 12, "trusted by
// none"). A remote certificate is a proposal like any worker's: its identities
// must be internally consistent, every dependency must equal the local bytes,
// the same validators that gate worker output must accept its payload on the
// local snapshot, and certifying it locally must reproduce the very
// certificate id the publisher claimed — coverage (facets), manifest and
// claims are derived here, never taken from the row. Excerpts are never
// stored remotely: the FrontierView reads them from the local bytes.
import { canonical, type Digest } from '../core/digest.js';
import type { CompiledNeed } from '../core/need.js';
import type { NewCertificate } from '../store/evidence/certificates.js';
import { artifactId, certificateId, certify, manifestDigest, validatorDefinition } from '../validate/certificate.js';
import { SnapshotReader, unsafePathReason } from '../validate/snapshot-reader.js';
import { validateProposal } from '../validate/validate.js';
import { repoFileDigest } from '../repo/paths.js';
import type { RemoteCertificate, RemoteDependency } from './rows.js';

/** Why a remote row was rejected; `needle stats` counts by these. */
export type RejectionReason = 'malformed' | 'mismatch' | 'forged_identity' | 'validation' | 'coverage_or_manifest' | 'claims';

export type Revalidation =
  | { readonly kind: 'accepted'; readonly certificate: NewCertificate }
  /** About other bytes (or another needle version): not evidence for this clone, not a forgery either. */
  | { readonly kind: 'not_applicable'; readonly why: string }
  | { readonly kind: 'rejected'; readonly reason: RejectionReason; readonly detail: string };

function localDigest(root: string, path: string): Digest | null {
  return unsafePathReason(path) === null ? repoFileDigest(root, path) : null;
}

/** Identity of "this remote certificate against these local bytes": a rejection is never retried for the same key. */
export function localBytesKey(root: string, certificateIdText: string, deps: readonly RemoteDependency[]): Digest {
  return canonical('team-cache-local-bytes')
    .text(certificateIdText)
    .list(deps, (h, d) => h.text(d.path).text(localDigest(root, d.path) ?? '-'))
    .finish();
}

const rejected = (reason: RejectionReason, detail: string): Revalidation => ({ kind: 'rejected', reason, detail });

type LocationPayload = { locations: { role: string; path: string }[]; gaps: string[] };

/**
 * A certificate whose other files changed here may still carry a primary
 * location whose own file did not: the claim a local stale artifact would
 * still serve. It is imported as a smaller artifact — the primary locations
 * alone, resting only on their files — after the same validators accepted it
 * on the local bytes; its claims must be claims the publisher published.
 */
function primaryClaims(
  root: string,
  need: CompiledNeed,
  row: RemoteCertificate,
  deps: readonly RemoteDependency[],
  differing: readonly RemoteDependency[],
): Revalidation {
  const notHere: Revalidation = { kind: 'not_applicable', why: `local bytes differ: ${differing.map((d) => d.path).slice(0, 3).join(', ')}` };
  if (row.predicate !== 'implementation_location' || typeof row.payload !== 'object' || row.payload === null) return notHere;
  const payload = row.payload as Partial<LocationPayload>;
  if (!Array.isArray(payload.locations) || !Array.isArray(payload.gaps)) return notHere;
  const primaries = payload.locations.filter((l) => typeof l === 'object' && l !== null && l.role === 'primary');
  const paths = new Set(primaries.map((l) => l.path));
  const own = deps.filter((d) => paths.has(d.path));
  if (primaries.length === 0 || own.length !== paths.size || own.some((d) => differing.includes(d))) return notHere;
  const asked = [...need.required, ...need.preferred].filter((o) => o.predicate === row.predicate).map((o) => ({ ...o, facets: {} }));
  if (asked.length === 0) return rejected('mismatch', `${row.predicate} was not asked for`);
  const reader = new SnapshotReader(root);
  const verdict = validateProposal(reader, need, asked, { predicate: row.predicate, payload: { locations: primaries, gaps: payload.gaps } });
  if (!verdict.ok) return rejected('validation', verdict.reasons.join('; '));
  const local = certify({
    need,
    validated: verdict,
    cited: reader.reads(),
    observed: own,
    observationComplete: true,
    snapshotDigest: () => {
      throw new Error('a worktree_semantic certificate needs no snapshot');
    },
  });
  const theirs = new Set(row.claims.map((c) => c.claimId));
  if (!local.claims.every((c) => theirs.has(c.id))) return rejected('claims', 'its primary claims are not the ones it published');
  return { kind: 'accepted', certificate: local };
}

export function revalidate(root: string, need: CompiledNeed, row: RemoteCertificate): Revalidation {
  if (row.subjectId !== need.subject.id || row.worldId !== need.world.id || row.lineage !== need.world.lineage)
    return rejected('mismatch', 'subject, world or lineage differs from the need it was fetched for');
  if (row.subjectKind !== need.subject.kind || row.subjectName !== need.subject.name) return rejected('mismatch', 'subject name differs from its id');
  if (row.validatorDefinition !== validatorDefinition(row.predicate)) return { kind: 'not_applicable', why: 'issued under other validator rules' };
  if (row.scope !== 'worktree_semantic') return { kind: 'not_applicable', why: `scope ${row.scope} is bound to the publisher's snapshot` };
  // The row's own identities must hold together before any byte is compared.
  const sorted = [...row.dependencies].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (sorted.some((d, i) => i > 0 && d.path === sorted[i - 1]!.path)) return rejected('forged_identity', 'duplicate dependency path');
  if (manifestDigest('worktree_semantic', null, sorted) !== row.manifestDigest) return rejected('forged_identity', 'dependency list does not match its manifest digest');
  if (artifactId(row.predicate, row.subjectId, row.worldId, row.payload) !== row.artifactId) return rejected('forged_identity', 'payload does not match its artifact id');
  if (certificateId(row.artifactId, row.predicate, row.worldId, row.manifestDigest, row.facets) !== row.certificateId)
    return rejected('forged_identity', 'certificate id does not match its artifact, manifest and coverage');
  for (const d of sorted) if (unsafePathReason(d.path) !== null) return rejected('malformed', `unsafe dependency path`);
  const differing = sorted.filter((d) => localDigest(root, d.path) !== d.digest);
  if (differing.length > 0) return primaryClaims(root, need, row, sorted, differing);

  // The same validators as for a worker's proposal, on the local snapshot.
  const asked = [...need.required, ...need.preferred].filter((o) => o.predicate === row.predicate).map((o) => ({ ...o, facets: {} }));
  if (asked.length === 0) return rejected('mismatch', `${row.predicate} was not asked for`);
  const reader = new SnapshotReader(root);
  const verdict = validateProposal(reader, need, asked, { predicate: row.predicate, payload: row.payload });
  if (!verdict.ok) return rejected('validation', verdict.reasons.join('; '));
  const local = certify({
    need,
    validated: verdict,
    cited: reader.reads(),
    observed: sorted,
    observationComplete: true,
    snapshotDigest: () => {
      throw new Error('a worktree_semantic certificate needs no snapshot');
    },
  });
  if (local.artifactId !== row.artifactId) return rejected('forged_identity', 'the payload is not in canonical form');
  if (local.certificateId !== row.certificateId)
    return rejected('coverage_or_manifest', 'certifying it locally gives another certificate (coverage or dependency manifest differs)');
  const mine = local.claims.map((c) => c.id).sort();
  const theirs = row.claims.map((c) => c.claimId).sort();
  if (mine.length !== theirs.length || mine.some((id, i) => id !== theirs[i])) return rejected('claims', 'its claims are not the ones its payload yields');
  return { kind: 'accepted', certificate: local };
}
