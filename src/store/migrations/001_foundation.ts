import type { Migration } from './index.js';

export const foundation: Migration = {
  id: 1,
  name: 'foundation',
  sql: `
`,
};
