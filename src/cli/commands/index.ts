// The command registry: adding a command is one `export *` line. Command
// modules export only CliCommand values; the dispatcher collects them all.
export * from './init.js';
export * from './mcp-serve.js';
export * from './doctor.js';
export * from './profile.js';
export * from './context.js';
export * from './cache.js';
export * from './needs.js';
export * from './runs.js';
export * from './stats.js';
export * from './change.js';
export * from './team-cache.js';
export * from './hook.js';
export * from './enable.js';
export * from './ui.js';
