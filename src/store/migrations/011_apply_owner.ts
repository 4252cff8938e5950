import type { Migration } from './index.js';

// The process applying a change (issue 14 item 13): start-up recovery rolls
// back only applies whose owner is gone, never one another process (or this
// one) is still writing. Rows from before have no owner and count as gone.
export const applyOwner: Migration = {
  id: 11,
  name: 'apply_owner',
  sql: `
ALTER TABLE change_applies ADD COLUMN owner_pid INTEGER;
`,
};
