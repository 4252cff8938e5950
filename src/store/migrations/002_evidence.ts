import type { Migration } from './index.js';

export const evidence: Migration = {
  id: 2,
  name: 'evidence',
  sql: `
`,
};
