#!/usr/bin/env node
// A Codex App Server simulator for Needle's tests: speaks the App Server's
// NDJSON JSON-RPC on stdio and plays one scenario file (see README.md here).
// Everything it receives and every decision it gets back is appended to a log
// file as JSON lines, so tests can assert on what Needle really sent.
import process from 'node:process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout } from 'node:timers';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const take = (flag) => {
  const i = args.indexOf(flag);
  if (i < 0) return null;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const scenarioFile = take('--scenario');
const logFile = take('--log');
const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8'));
const log = (entry) => logFile && appendFileSync(logFile, `${JSON.stringify(entry)}\n`);

if (args[0] === '--version') {
  process.stdout.write(`${scenario.version ?? 'codex-cli 0.171.0'}\n`);
  process.exit(0);
}
if (args[0] === 'app-server' && args.includes('--help')) {
  process.stdout.write(scenario.help ?? 'Usage: codex app-server [OPTIONS]\n  -c, --config <key=value>\n      --strict-config\n      --listen <URL>\n');
  process.exit(0);
}
if (args[0] !== 'app-server') {
  process.stderr.write(`sim: unsupported invocation ${args.join(' ')}\n`);
  process.exit(2);
}

log({ event: 'start', argv: args, env: process.env, cwd: process.cwd(), pid: process.pid });

const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
let serverId = 0; // the real server numbers its own requests from 0
const waiting = new Map();
const serverRequest = (method, params, id = serverId++) =>
  new Promise((resolve) => {
    waiting.set(id, resolve);
    send({ id, method, params });
  });

const threadId = 'thr_sim';
let checkout = null;
let turnIndex = 0;
let active = null; // { turnId, spec, done }
const usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
const children = [];

function complete(turn, status, error) {
  if (turn.done) return;
  turn.done = true;
  send({ method: 'turn/completed', params: { threadId, turn: { id: turn.turnId, status, items: [], error: error ? { message: error } : null } } });
  if (active === turn) active = null;
}

async function play(turn) {
  const { turnId } = turn;
  for (const step of turn.spec.steps ?? []) {
    if (turn.done) return;
    if ('complete' in step) return complete(turn, step.complete, step.message);
    if ('delta' in step) send({ method: 'item/agentMessage/delta', params: { threadId, turnId, itemId: 'msg', delta: step.delta } });
    else if ('message' in step) {
      const text = typeof step.message === 'string' ? step.message : JSON.stringify(step.message);
      send({ method: 'item/completed', params: { threadId, turnId, completedAtMs: Date.now(), item: { type: 'agentMessage', id: `msg_${turnId}`, text } } });
    } else if ('usage' in step) {
      const last = { inputTokens: step.usage.input ?? 0, cachedInputTokens: step.usage.cached ?? 0, outputTokens: step.usage.output ?? 0 };
      for (const k of Object.keys(usage)) usage[k] += last[k];
      const full = (t) => ({ ...t, reasoningOutputTokens: 0, totalTokens: t.inputTokens + t.outputTokens });
      send({ method: 'thread/tokenUsage/updated', params: { threadId, turnId, tokenUsage: { total: full(usage), last: full(last) } } });
    } else if ('approval' in step) {
      const a = step.approval;
      const cwd = a.cwd === 'outside' ? '/' : a.cwd ?? checkout;
      const params = {
        threadId, turnId, itemId: `call_${serverId}`, startedAtMs: Date.now(), command: a.command, cwd,
        commandActions: [{ type: 'unknown', command: a.command }],
        ...(a.network ? { networkApprovalContext: { host: 'example.com', protocol: 'https' } } : {}),
      };
      const res = await serverRequest('item/commandExecution/requestApproval', params, a.id);
      log({ event: 'decision', command: a.command, response: res });
    } else if ('write' in step) {
      // An in-workspace edit, made the way codex makes one: directly, with no approval.
      const target = resolve(checkout, step.write.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, step.write.content);
      log({ event: 'wrote', path: target });
    } else if ('fileChange' in step) {
      // A patch outside the writable roots: codex asks first and writes only when accepted.
      const target = resolve(checkout, step.fileChange.path);
      const params = { threadId, turnId, itemId: `patch_${serverId}`, startedAtMs: Date.now(), reason: 'write outside the workspace', grantRoot: dirname(target) };
      const res = await serverRequest('item/fileChange/requestApproval', params);
      log({ event: 'decision', fileChange: target, response: res });
      if (res?.decision === 'accept' || res?.decision === 'acceptForSession') writeFileSync(target, step.fileChange.content ?? '');
    } else if ('spawnSleep' in step) {
      const child = spawn('sleep', [String(step.spawnSleep)], { stdio: 'ignore' });
      children.push(child);
      log({ event: 'grandchild', pid: child.pid });
    } else if ('error' in step) {
      send({ method: 'error', params: { threadId, turnId, willRetry: false, error: { message: step.error } } });
    } else if ('notify' in step) {
      send({ method: step.notify, params: step.params ?? {} });
    } else if ('hang' in step) {
      return; // waits for turn/interrupt (or for the kill)
    }
  }
  complete(turn, 'completed');
}

async function onRequest(msg) {
  log({ event: 'request', method: msg.method, params: msg.params });
  switch (msg.method) {
    case 'initialize':
      return send({ id: msg.id, result: { userAgent: 'codex-sim/0.171.0' } });
    case 'thread/start':
      checkout = msg.params.cwd;
      send({ method: 'thread/started', params: { thread: { id: threadId } } });
      return send({ id: msg.id, result: { thread: { id: threadId } } });
    case 'turn/start': {
      const spec = (scenario.turns ?? [])[turnIndex++] ?? { steps: [{ complete: 'failed', message: 'simulator has no more turns' }] };
      const turn = { turnId: `turn_${turnIndex}`, spec, done: false };
      active = turn;
      if (spec.collide) {
        // A server request that reuses the id of the client's pending turn/start.
        const res = await serverRequest('item/commandExecution/requestApproval', {
          threadId, turnId: turn.turnId, itemId: 'call_collide', startedAtMs: Date.now(), command: 'curl https://example.com', cwd: checkout, commandActions: [],
        }, msg.id);
        log({ event: 'decision', command: 'curl https://example.com', response: res });
      }
      const reply = () => send({ id: msg.id, result: { turn: { id: turn.turnId, status: 'inProgress', items: [] } } });
      // `replyAfterMs`: the turn runs before its turn/start answer is sent (an answer still in the pipe when a cancel comes).
      if (spec.replyAfterMs !== undefined) {
        setTimeout(reply, spec.replyAfterMs);
        return play(turn);
      }
      reply();
      return play(turn);
    }
    case 'turn/interrupt': {
      send({ id: msg.id, result: {} });
      if (active && !active.spec.ignoreInterrupt) complete(active, 'interrupted');
      return;
    }
    default:
      return send({ id: msg.id, error: { code: -32601, message: `sim: unknown method ${msg.method}` } });
  }
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.method === undefined) {
    log({ event: 'reply', id: msg.id, result: msg.result, error: msg.error });
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    w?.(msg.result ?? { error: msg.error });
    return;
  }
  if (msg.id === undefined) return log({ event: 'notification', method: msg.method });
  void onRequest(msg);
});
rl.on('close', () => {
  log({ event: 'stdin-closed' });
  if (!scenario.ignoreStdinClose) process.exit(0);
});
