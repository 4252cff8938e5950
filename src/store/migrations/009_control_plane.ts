import type { Migration } from './index.js';

// For the control plane (`needle ui`):
//  - the repository each resolution was asked in, on the resolution itself,
//    so the Needs page's repository filter sees every transport (`needle
//    context` records no session row); older rows take it from the latest
//    session step that asked the same need, when there is one;
//  - for a test run during verification, the test evidence id it produced
//    (to find it from a verification's test results) and a bounded excerpt
//    of its output (what the change page shows; the full output is not kept).
export const controlPlane: Migration = {
  id: 9,
  name: 'control_plane',
  sql: `
ALTER TABLE evidence_resolutions ADD COLUMN repository_root TEXT;
UPDATE evidence_resolutions SET repository_root = (
  SELECT m.repository_root FROM need_steps s JOIN mcp_sessions m ON m.id = s.session_id
  WHERE s.need_id = evidence_resolutions.need_id ORDER BY s.id DESC LIMIT 1);
CREATE INDEX evidence_resolutions_by_repository ON evidence_resolutions (repository_root, id);
ALTER TABLE change_attempts ADD COLUMN evidence_id TEXT;
ALTER TABLE change_attempts ADD COLUMN output_excerpt TEXT;
CREATE INDEX change_attempts_by_change ON change_attempts (change_id, revision);
`,
};
