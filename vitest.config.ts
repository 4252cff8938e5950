import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // Only with --coverage (`npm run coverage`, not part of `npm test`): line and
    // branch coverage of src/ as the in-process tests reach it; code that runs
    // only in spawned processes (the built CLI and server) is not counted.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text', 'text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
