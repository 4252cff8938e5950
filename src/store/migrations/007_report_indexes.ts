import type { Migration } from './index.js';

// For the control plane's pages (`needle ui`): the context text each
// resolution served (the answer as the main model saw it; NULL for rows
// written before), and indexes so resolutions paged newest-first within a
// route or a resolution kind, and the worker runs of one need or one day,
// stay index lookups with tens of thousands of rows.
export const reportIndexes: Migration = {
  id: 7,
  name: 'report_indexes',
  sql: `
ALTER TABLE evidence_resolutions ADD COLUMN context_text TEXT;
CREATE INDEX evidence_resolutions_by_route ON evidence_resolutions (route, id);
CREATE INDEX evidence_resolutions_by_kind ON evidence_resolutions (resolution_kind, id);
CREATE INDEX evidence_resolutions_by_need ON evidence_resolutions (need_id);
CREATE INDEX evidence_worker_runs_by_need ON evidence_worker_runs (need_id);
CREATE INDEX evidence_worker_runs_recent ON evidence_worker_runs (created_unix_ms);
CREATE INDEX mcp_sessions_by_repository ON mcp_sessions (repository_root);
`,
};
