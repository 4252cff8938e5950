// A data directory filled the real way for the control-plane tests: needs
// resolved by `needle context` (static worker, cache hits, a bypass), a
// change prepared and verified by command adapters, and a second change left
// unverified. Plus a raw HTTP client that can send any Host/Origin/cookie.
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { contextCommand } from '../../src/cli/commands/context.js';
import type { CliIO } from '../../src/cli/command.js';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { listCertificates } from '../../src/store/evidence/certificates.js';
import { ARGS, deps, goodImplementer, makeEnv, profile, signal, verdictVerifier, type Env } from '../changes/fixture.js';
import { git } from '../support/git.js';

export interface Filled {
  readonly env: Env;
  readonly verifiedChange: string;
  readonly unverifiedChange: string;
  readonly certificate: string;
}

async function context(env: Env, args: string[]): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const io: CliIO = { stdout: out, stderr: new PassThrough(), stdin: new PassThrough(), env: { PATH: process.env.PATH ?? '' }, cwd: env.root, interactive: false };
  const code = await contextCommand.run([...args, '--data-dir', env.dataDir, '--repository', env.root], io);
  if (code !== 0) throw new Error(`needle context exited ${code}`);
  return Buffer.concat(chunks).toString('utf8');
}

export async function resolveNeed(env: Env, route: string, subject: string): Promise<string> {
  return context(env, ['--route', route, '--subject', subject]);
}

export async function fill(): Promise<Filled> {
  const env = makeEnv();
  // A package.json makes the focused test runnable, so tests.relevant can be served too.
  writeFileSync(join(env.root, 'package.json'), JSON.stringify({ name: 'demo', type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n');
  git(env.root, 'add', '-A');
  git(env.root, 'commit', '-q', '-m', 'package.json');
  await resolveNeed(env, 'locate.implementation', 'symbol:add');
  await resolveNeed(env, 'locate.implementation', 'symbol:add');
  await resolveNeed(env, 'tests.relevant', 'symbol:add');
  await resolveNeed(env, 'locate.implementation', 'symbol:nowhere_to_be_found');
  const d = deps(env, profile(goodImplementer(env), verdictVerifier(env, 'verified')));
  const prepared = await prepareChange(d, ARGS, signal());
  const verified = await verifyChange(d, { change_id: prepared.change_id }, signal());
  if (verified.status !== 'verified') throw new Error(`fixture change not verified: ${verified.status}`);
  const second = await prepareChange(d, { ...ARGS, task: 'Make add() return the sum (second attempt, never verified).' }, signal());
  const cert = listCertificates(env.db, 10)[0];
  if (!cert) throw new Error('fixture resolved nothing certifiable');
  return { env, verifiedChange: prepared.change_id, unverifiedChange: second.change_id, certificate: cert.certificateId };
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request with exactly these headers (Host included), bounded by a timeout. */
export function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
