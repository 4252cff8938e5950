// The throw-away PostgreSQL cluster the team cache tests run against. It lives
// with the benchmarks (bench/pg-cluster.ts) because `npm run bench -- team`
// starts the same cluster from dist/, where the tests are not compiled.
export * from '../../bench/pg-cluster.js';
