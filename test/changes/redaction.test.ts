// Redaction as a second wall (issue "Hardening" 3): the value of every
// variable a profile hands a worker (`env_allowlist`, `provider.env_key`) is
// cut out of what the worker hands back before anything is validated or
// stored, and a patch that writes it into a file is refused whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareChange } from '../../src/changes/prepare.js';
import { verifyChange } from '../../src/changes/verify.js';
import { ChangeError } from '../../src/changes/model.js';
import { ARGS, CRITERIA, deps, FIXED_ADD, makeEnv, profile, script, signal, type Env } from './fixture.js';

const SECRET = 'anthropic-test-secret-7c1e9b2d';
let env: Env;
beforeAll(() => {
  env = makeEnv();
});
afterAll(() => env.cleanup());

const dbBytes = () => {
  env.db.pragma('wal_checkpoint(TRUNCATE)');
  return readFileSync(join(env.dataDir, 'needle.sqlite3'));
};

function withSecret(implementer: string, verifier: string) {
  const p = profile(implementer, verifier);
  const allow = { env_allowlist: ['NEEDLE_TEST_AGENT_KEY'] };
  return deps(env, { ...p, implementer: { ...p.implementer!, ...allow } as typeof p.implementer, verifier: { ...p.verifier!, ...allow } as typeof p.verifier }, {
    env: { ...process.env, NEEDLE_TEST_AGENT_KEY: SECRET },
  });
}

describe('credentials handed to a command worker never come back', () => {
  it('are cut out of the implementer report and the verifier findings; nothing stored or returned holds them', async () => {
    const implementer = script(
      env,
      'leaky-impl',
      `fs.writeFileSync('src/add.mjs', ${JSON.stringify(FIXED_ADD)});
const key = process.env.NEEDLE_TEST_AGENT_KEY;
console.log(JSON.stringify({ summary: 'fix add using ' + key, changed_files: [{ path: 'src/add.mjs', operation: 'update' }],
  acceptance_coverage: ${JSON.stringify(CRITERIA)}.map((criterion) => ({ criterion, status: 'addressed', evidence: 'key ' + key })),
  residual_risks: ['leaked ' + key] }));`,
    );
    const verifier = script(
      env,
      'leaky-verifier',
      `const key = process.env.NEEDLE_TEST_AGENT_KEY;
console.log(JSON.stringify({ verdict: 'verified', acceptance_coverage: ${JSON.stringify(CRITERIA)}.map((criterion) => ({ criterion, status: 'addressed', evidence: 'saw ' + key })), findings: ['the key is ' + key] }));`,
    );
    const d = withSecret(implementer, verifier);
    const prepared = await prepareChange(d, ARGS, signal());
    expect(JSON.stringify(prepared)).not.toContain(SECRET);
    expect(prepared.summary).toBe('fix add using [redacted NEEDLE_TEST_AGENT_KEY]');
    const verified = await verifyChange(d, { change_id: prepared.change_id }, signal());
    expect(JSON.stringify(verified)).not.toContain(SECRET);
    expect(JSON.stringify(verified)).toContain('[redacted NEEDLE_TEST_AGENT_KEY]');
    expect(dbBytes().includes(Buffer.from(SECRET))).toBe(false);
  });

  it('a patch that writes the key into a file is refused as credential and not stored', async () => {
    const implementer = script(env, 'key-writer', `fs.writeFileSync('src/add.mjs', 'export const key = ' + JSON.stringify(process.env.NEEDLE_TEST_AGENT_KEY) + ';\\n');`);
    const err = await prepareChange(withSecret(implementer, implementer), ARGS, signal()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ChangeError);
    expect((err as ChangeError).rule).toBe('credential');
    expect((err as ChangeError).message).toContain('NEEDLE_TEST_AGENT_KEY');
    expect((err as ChangeError).message).not.toContain(SECRET);
    expect(dbBytes().includes(Buffer.from(SECRET))).toBe(false);
  });
});
