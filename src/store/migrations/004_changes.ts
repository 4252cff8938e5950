import type { Migration } from './index.js';

export const changes: Migration = {
  id: 4,
  name: 'changes',
  sql: `
`,
};
