// Test fixtures for the MCP, CLI and store tests: real git repositories and
// data directories in temp dirs, the built server as a child process driven
// line by line, and an in-process session for fast property tests.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { blake3 } from '../../src/core/digest.js';
import type { CompiledNeed } from '../../src/core/need.js';
import type { Engine, EngineResult } from '../../src/core/resolution.js';
import type { RoleProfile } from '../../src/core/profile.js';
import { Connection } from '../../src/mcp/connection.js';
import { freezeRepository, freezeSession } from '../../src/mcp/freeze.js';
import { serializeMessage } from '../../src/mcp/jsonrpc.js';
import { McpSession } from '../../src/mcp/session.js';
import { NEEDLE_BIN } from '../../src/mcp/version.js';
import { BypassEngine } from '../../src/mcp/bypass-engine.js';
import type { ChangeTools } from '../../src/mcp/tools/change.js';
import { flushBookkeeping } from '../../src/store/bookkeeping.js';
import { openDataDir } from '../../src/store/datadir.js';
import { activateProfile, createProfileRevision } from '../../src/store/profiles.js';
import { git } from '../support/git.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The `needle` binary as installed (package.json `bin`: the bundle `npm run build` writes). */
export const CLI = NEEDLE_BIN;

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test builds first)`);
}

const cleanups: (() => void)[] = [];
export function cleanupAll(): void {
  while (cleanups.length) cleanups.pop()!();
}

export function tempDir(prefix = 'needle-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A small committed repository with a CLI option worth asking about. */
export function makeRepo(): string {
  const dir = join(tempDir('needle-repo-'), 'repo');
  mkdirSync(join(dir, 'src'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'src/options.ts'), 'export const dryRun = process.argv.includes("--dry-run");\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'root');
  return dir;
}

export function countRows(dbFile: string, table: string): number {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export function queryRows<T>(dbFile: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

// JSON-RPC replies are inspected field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = Record<string, any>;

/** An outgoing JSON-RPC request as tests write it. */
export interface Rpc {
  readonly id: unknown;
  readonly [key: string]: unknown;
}

/** Collects outgoing messages and lets a test await a specific one. */
export class Outbox {
  readonly messages: Message[] = [];
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];

  /** Takes each message as the server writes it: through its serializer (a remembered answer is JSON text already). */
  push = (sent: object): void => {
    const m = JSON.parse(serializeMessage(sent)) as Message;
    this.messages.push(m);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(m)) return true;
      w.resolve(m);
      return false;
    });
  };

  waitFor(match: (m: Message) => boolean, timeoutMs = 15_000, what = 'message'): Promise<Message> {
    const found = this.messages.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolveWait, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.messages).slice(-2000)}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolveWait(m);
        },
      });
    });
  }

  /** The reply, once the bookkeeping group commit that follows it has run (store/bookkeeping.ts). */
  reply(id: unknown, timeoutMs?: number): Promise<Message> {
    return this.waitFor((m) => 'id' in m && JSON.stringify(m.id) === JSON.stringify(id) && !('method' in m), timeoutMs, `reply to ${JSON.stringify(id)}`).then(
      (m) => new Promise<Message>((done) => setImmediate(() => done(m))),
    );
  }
}

export interface ServerOptions {
  readonly repo: string;
  readonly dataDir: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Role profile id (default `local`). */
  readonly profile?: string;
}

/** The built server as a child process, driven by raw lines. */
export class ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly out = new Outbox();
  stderr = '';
  private readonly exited: Promise<number | null>;

  constructor(o: ServerOptions) {
    requireBuild();
    this.child = spawn(
      process.execPath,
      [CLI, 'mcp', 'serve', '--role-profile', o.profile ?? 'local', '--data-dir', o.dataDir, '--repository', o.repo, ...(o.args ?? [])],
      { env: { ...process.env, ...o.env }, stdio: 'pipe' },
    );
    let buffer = '';
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.out.push(JSON.parse(line));
      }
    });
    this.child.stderr.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    this.exited = new Promise((r) => this.child.on('exit', (code) => r(code)));
    cleanups.push(() => this.child.kill('SIGKILL'));
  }

  /** Writes raw text in a single write (tests rely on several lines arriving together). */
  write(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  send(...messages: object[]): void {
    this.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  }

  /** Sends and resolves once the lines are in the server's stdin pipe. */
  sent(...messages: object[]): Promise<void> {
    return new Promise((done, fail) => this.child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''), (e) => (e ? fail(e) : done())));
  }

  async request(message: Rpc): Promise<Message> {
    this.send(message);
    return this.out.reply(message.id);
  }

  async initialize(version = '2025-06-18', id: unknown = 'init'): Promise<Message> {
    const reply = await this.request({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '0' } } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }

  /** Closes stdin and waits for the exit code. */
  async close(timeoutMs = 15_000): Promise<number | null> {
    this.child.stdin.end();
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`server did not exit; stderr: ${this.stderr}`)), timeoutMs)),
    ]);
  }
}

/** Resolves once `check` holds, testing it after each short timer; fails after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const LOCATE_ARGS = {
  route: 'locate.implementation',
  subject: { kind: 'cli_option', name: '--dry-run' },
  task: 'Find where --dry-run is declared.',
};

export function callNeed(id: unknown, args: unknown, meta?: object): Rpc {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'need_context', arguments: args, ...(meta ? { _meta: meta } : {}) } };
}

export interface InProcess {
  readonly session: McpSession;
  readonly connection: Connection;
  readonly out: Outbox;
  readonly dbFile: string;
  line(message: unknown): void;
  request(message: Rpc): Promise<Message>;
  /** Commits the queued bookkeeping rows, as a pause of the client would. */
  settle(): void;
  close(): void;
}

export interface InProcessOptions {
  readonly engine?: Engine;
  readonly cacheOnly?: boolean;
  readonly profile?: RoleProfile;
  readonly changeTools?: ChangeTools;
  readonly repo?: string;
}

/** A real session (real SQLite, real git repo) behind an in-process Connection. */
export function inProcess(o: InProcessOptions = {}): InProcess {
  const dataDir = tempDir('needle-data-');
  const { db, dbFile } = openDataDir(dataDir);
  let profileId = 'local';
  if (o.profile) {
    profileId = 'custom';
    activateProfile(db, profileId, createProfileRevision(db, profileId, o.profile));
  }
  const frozen = freezeSession({
    db,
    dataDir,
    repository: freezeRepository(o.repo ?? makeRepo()),
    profileId,
    mainModel: 'test-model',
    cacheOnly: o.cacheOnly ?? true,
    changeToolsAvailable: o.changeTools !== undefined,
  });
  const session = new McpSession({
    frozen,
    db,
    engine: o.engine ?? new BypassEngine('test bypass'),
    ...(o.changeTools ? { changeTools: o.changeTools } : {}),
  });
  const out = new Outbox();
  const connection = new Connection(session, out.push);
  const line = (message: unknown): void => connection.receiveLine(typeof message === 'string' ? message : JSON.stringify(message));
  return {
    session,
    connection,
    out,
    dbFile,
    line,
    // The rows of an answered call are committed as they would be once the
    // client pauses (store/bookkeeping.ts), so that a test reads them at once.
    async request(message) {
      line(message);
      const reply = await out.reply(message.id);
      flushBookkeeping(db);
      return reply;
    },
    settle: () => flushBookkeeping(db),
    close: () => db.close(),
  };
}

export async function initialized(p: InProcess, version = '2025-06-18'): Promise<void> {
  await p.request({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version } });
}

/** A served composite hit for `need`, as a scripted engine returns it. */
export const servedAll = (need: CompiledNeed, extra: Partial<EngineResult> = {}): EngineResult => ({
  resolution: { kind: 'composite_hit', artifact_ids: [blake3('a1'), blake3('a2')], certificate_id: blake3('cert'), plan_id: blake3('plan') },
  satisfied: need.required.map((o) => o.predicate),
  missing: [],
  context: '[NEEDLE_CONTEXT]\nprimary: src/options.ts:1-1 dryRun\n[/NEEDLE_CONTEXT]',
  cacheHit: true,
  workerSpawned: false,
  modelWorkersStarted: 0,
  reuseUnit: 'artifact',
  claimIds: [],
  resultDigest: blake3('result'),
  ...extra,
});

// A commander option with an environment override, so the flow has all five roles.
export const SHIP: Record<string, string> = {
  'package.json': '{ "name": "ship", "type": "module", "scripts": { "test": "vitest run" }, "devDependencies": { "vitest": "^2.0.0" } }\n',
  'README.md': '# ship\n',
  'src/cli.ts': [
    "import { Command } from 'commander';",
    "import { deploy } from './deploy.js';",
    '',
    'export function main(argv: string[]): string {',
    "  const program = new Command('ship').option('--dry-run', 'upload nothing').parse(argv);",
    '  const opts = program.opts<{ dryRun?: boolean }>();',
    "  const dryRun = opts.dryRun ?? process.env.SHIP_DRY_RUN === '1';",
    '  return deploy({ dryRun });',
    '}',
    '',
  ].join('\n'),
  'src/deploy.ts': [
    'export interface DeployOptions {',
    '  dryRun: boolean;',
    '}',
    '',
    'export function deploy(options: DeployOptions): string {',
    "  if (options.dryRun) return 'skipped';",
    "  return 'uploaded';",
    '}',
    '',
  ].join('\n'),
  'src/config.ts': ['export function loadConfig(path: string): string {', '  return path;', '}', ''].join('\n'),
  'test/deploy.test.ts': [
    "import { describe, expect, it } from 'vitest';",
    "import { deploy } from '../src/deploy.js';",
    '',
    "describe('deploy', () => {",
    "  it('skips the upload in dry run', () => {",
    "    expect(deploy({ dryRun: true })).toBe('skipped');",
    '  });',
    '});',
    '',
  ].join('\n'),
};
