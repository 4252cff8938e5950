// The `needle` binary as shipped: the compiled CLI (dist/src/cli/main.js)
// bundled into dist/src/bundle/, one file per lazily loaded part (commands,
// the static analyzer, the Codex client, the change workflow), so a process
// start reads a handful of files instead of resolving and linking ~110 ES
// modules (issue "warm hits": server start). Packages stay external:
// better-sqlite3 is native and the grammars are WASM files found by package
// path. The bundle sits one directory below dist/src/ like every module
// directory, so code that finds its siblings from its own location (the
// static analyzer's identity reads dist/src/evidence and dist/src/core) reads
// the same files from either entry.
import { defineConfig } from 'rolldown';

export default defineConfig({
  // The static analyzer's thread is started by file (workers/static-thread.ts finds it next to its own chunk).
  input: { needle: 'dist/src/cli/main.js', 'analyzer-thread': 'dist/src/evidence/analyzer-thread.js' },
  platform: 'node',
  // Bare specifiers (packages, node: builtins) load at run time as they do unbundled.
  external: (id) => !id.startsWith('.') && !id.startsWith('/'),
  output: {
    dir: 'dist/src/bundle',
    format: 'esm',
    cleanDir: true,
    chunkFileNames: '[name]-[hash].js',
  },
});
