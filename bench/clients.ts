/* eslint-disable @typescript-eslint/no-explicit-any -- the mocks record untyped request JSON */
// Shared pieces for driving the real clients offline, used by the test suite
// (test/hooks/) and by `npm run bench -- client`: loopback mock model servers
// (Anthropic Messages over SSE, OpenAI Responses over SSE), the client
// binaries from node_modules, a small TypeScript repository, and `needle`
// itself from dist/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEEDLE_BIN } from '../src/mcp/version.js';
import { bundledCodexPath } from '../src/workers/codex/worker.js';

/** The checkout: this file runs from bench/ (tests) and from dist/bench/ (the benchmark). */
function checkoutRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src', 'cli'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the checkout root');
    dir = up;
  }
  return dir;
}
const ROOT = checkoutRoot();
/** The `needle` binary as installed (package.json `bin`), for the client drivers and the tests that use them. */
export { NEEDLE_BIN };

export interface Recorded {
  readonly url: string;
  readonly headers: Record<string, unknown>;
  readonly body: Record<string, any>;
}

export interface Mock {
  readonly port: number;
  readonly requests: Recorded[];
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok((server.address() as AddressInfo).port)));
}

/** A request's JSON body; a body that is not JSON reads as {} (assertions on it then fail visibly). */
export function readJsonBody(req: IncomingMessage): Promise<Record<string, any>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve({});
      }
    });
  });
}

function serve(handler: (rec: Recorded, res: ServerResponse) => void): Promise<Mock> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    void readJsonBody(req).then((body) => {
      const rec = { url: `${req.method} ${req.url}`, headers: req.headers, body };
      requests.push(rec);
      handler(rec, res);
    });
  });
  return listen(server).then((port) => ({
    port,
    requests,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }));
}

export type AnthropicReply = { text: string } | { tool: { name: string; input: object } };

/** Anthropic Messages API: `POST /v1/messages` answered with one scripted SSE message per request. */
export function anthropicMock(script: (req: Recorded, n: number) => AnthropicReply): Promise<Mock> {
  let n = 0;
  return serve((rec, res) => {
    if (!rec.url.startsWith('POST /v1/messages') || rec.url.includes('count_tokens')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
      return;
    }
    n += 1;
    const reply = script(rec, n);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev('message_start', {
      message: { id: `msg_${n}`, type: 'message', role: 'assistant', model: rec.body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
    });
    if ('text' in reply) {
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text } });
    } else {
      ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${n}`, name: reply.tool.name, input: {} } });
      ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } });
    }
    ev('content_block_stop', { index: 0 });
    ev('message_delta', { delta: { stop_reason: 'text' in reply ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } });
    ev('message_stop', {});
    res.end();
  });
}

/** OpenAI Responses API: `POST /v1/responses`, one scripted assistant message (or exec_command call) per request. */
export function responsesMock(script: (req: Recorded, n: number) => string | { exec: string }): Promise<Mock> {
  let n = 0;
  return serve((rec, res) => {
    if (rec.url !== 'POST /v1/responses') {
      res.writeHead(404).end();
      return;
    }
    n += 1;
    const reply = script(rec, n);
    const id = `resp_${n}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const item =
      typeof reply === 'string'
        ? { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: reply, annotations: [] }] }
        : { type: 'function_call', id: `fc_${n}`, name: 'exec_command', call_id: `call_${n}`, arguments: JSON.stringify({ cmd: reply.exec }) };
    for (const e of [
      { type: 'response.created', response: { id } },
      { type: 'response.output_item.done', output_index: 0, item },
      {
        type: 'response.completed',
        response: { id, usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 } },
      },
    ])
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    res.end();
  });
}

/** The Claude Code native binary installed by npm, when it runs here; otherwise why not. */
export function claudeBinary(): { path: string } | { skip: string } {
  const candidates = [
    join(ROOT, `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`),
    join(ROOT, 'node_modules/@anthropic-ai/claude-code/bin/claude.exe'),
  ];
  const path = candidates.find((p) => existsSync(p));
  if (!path) return { skip: 'the @anthropic-ai/claude-code binary for this platform is not installed' };
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', HOME: tmpdir() } });
  if (r.status !== 0 || !/Claude Code/.test(r.stdout)) return { skip: `claude --version does not run here (${(r.error?.message ?? r.stderr).split('\n', 1)[0]})` };
  return { path };
}

export function codexBinary(): { path: string } | { skip: string } {
  const path = bundledCodexPath();
  if (!path) return { skip: 'the @openai/codex binary for this platform is not installed' };
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) return { skip: `codex --version does not run here (${(r.error?.message ?? r.stderr).split('\n', 1)[0]})` };
  return { path };
}

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};

/** A tiny TypeScript CLI whose --dry-run option the static worker locates. */
export function makeRepo(): { root: string; dataDir: string; tmp: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'needle-hooks-'));
  const root = join(tmp, 'repo');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(
    join(root, 'src/cli.ts'),
    [
      "import { Command } from 'commander';",
      'export function main(argv: string[]): string {',
      "  const program = new Command('ship').option('--dry-run', 'upload nothing').parse(argv);",
      '  const opts = program.opts<{ dryRun?: boolean }>();',
      "  return opts.dryRun ? 'skipped' : 'uploaded';",
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'package.json'), '{"name":"ship","private":true}\n');
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'init');
  const dataDir = join(tmp, 'data');
  needle(['init', '--data-dir', dataDir], root);
  return { root, dataDir, tmp };
}

export function needle(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(process.execPath, [NEEDLE_BIN, ...args], { cwd, encoding: 'utf8', env, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`needle ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a client with a hard deadline; the whole process group is killed past it. */
/**
 * The environment Claude Code runs in offline against a loopback mock: an
 * isolated HOME and config directory, a fake key, no nonessential traffic.
 */
export function claudeCodeEnv(home: string, mock: Pick<Mock, 'port'>, configDir = join(home, '.claude')): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${mock.port}`,
    ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // Connect MCP servers before the first model request instead of in the
    // background: otherwise whether that request lists Needle's tools depends
    // on how fast the server starts on a loaded machine ("still connecting").
    MCP_CONNECTION_NONBLOCKING: '0',
  };
}

export function runClient(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; input?: string }): Promise<Run> {
  return new Promise((ok) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], detached: true });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code, stdout, stderr });
    });
  });
}

/** Everything the model was sent in one request, as one string. */
export const sent = (r: Recorded): string => JSON.stringify(r.body);

/** The tool_result blocks of a request, as the model receives them (text). */
export function toolResults(r: Recorded): string[] {
  const out: string[] = [];
  for (const m of (r.body.messages ?? []) as { content?: unknown }[])
    if (Array.isArray(m.content))
      for (const c of m.content as { type?: string; content?: unknown }[])
        if (c.type === 'tool_result')
          out.push(typeof c.content === 'string' ? c.content : (c.content as { text?: string }[]).map((p) => p.text ?? '').join(''));
  return out;
}

/**
 * What a user's review in Codex's /hooks records, done through Codex's own
 * app-server: hooks/list gives each hook's key and current hash, and
 * config/batchWrite stores `[hooks.state."<key>"] trusted_hash` in
 * $CODEX_HOME/config.toml. Needle never computes the hash; neither does this.
 */
export async function trustCodexHooks(codex: string, cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(codex, ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map<number, (msg: any) => void>();
  let buf = '';
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (typeof msg.id === 'number') pending.get(msg.id)?.(msg);
    }
  });
  let id = 0;
  const call = (method: string, params: unknown): Promise<any> =>
    new Promise((ok, fail) => {
      const n = ++id;
      const timer = setTimeout(() => fail(new Error(`${method}: no answer in 30 s`)), 30_000);
      pending.set(n, (msg) => {
        clearTimeout(timer);
        if (msg.error) fail(new Error(`${method}: ${JSON.stringify(msg.error)}`));
        else ok(msg.result);
      });
      child.stdin.write(`${JSON.stringify({ id: n, method, params })}\n`);
    });
  try {
    await call('initialize', { clientInfo: { name: 'needle-test', title: null, version: '0' }, capabilities: null });
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const listed = await call('hooks/list', { cwds: [cwd] });
    const hooks = (listed.data as { hooks: { key: string; currentHash: string; trustStatus: string }[] }[]).flatMap((e) => e.hooks).filter((h) => h.trustStatus === 'untrusted' || h.trustStatus === 'modified');
    if (hooks.length > 0)
      await call('config/batchWrite', { edits: [{ keyPath: 'hooks.state', value: Object.fromEntries(hooks.map((h) => [h.key, { trusted_hash: h.currentHash }])), mergeStrategy: 'upsert' }] });
    return hooks.length;
  } finally {
    child.kill('SIGKILL');
  }
}
