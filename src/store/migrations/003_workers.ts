import type { Migration } from './index.js';

export const workers: Migration = {
  id: 3,
  name: 'workers',
  sql: `
`,
};
