// Semantic identities (SPEC §5): the need id ignores wording and route but
// covers subject, obligations and world; ids are stable across runs and
// machines (golden values below are literals, not recomputed).
import { blake3 as hashWasmBlake3 } from 'hash-wasm';
import { describe, expect, it } from 'vitest';
import { compileNeed, lineageDigest, requestDigest, type NeedRequest } from '../../src/core/need.js';

const lineage = lineageDigest(['4b825dc642cb6eb9a060e54bf8d69288fbee4904']);
const base: NeedRequest = {
  route: 'trace.state-flow',
  subject: { kind: 'cli_option', name: '--crlf' },
  required: [
    { kind: 'implementation_location', facets: { polarity: 'positive', selection: 'primary' } },
    { kind: 'runtime_flow', facets: { scenario: 'default', completeness: 'contract_complete', granularity: 'stepwise' } },
  ],
  preferred: [{ kind: 'focused_tests', facets: { polarity: 'positive', selection: 'representative', completeness: 'open_world' } }],
  world: { source: 'current', platform: 'current', features: 'default' },
  task: 'Trace how --crlf changes matching and search line terminators.',
};
const id = (r: NeedRequest) => compileNeed(r, lineage).id;

describe('need identity', () => {
  it('is unchanged by rewording the task, but the request digest changes', () => {
    const reworded = { ...base, task: 'How does the --crlf flag affect line terminators when searching?' };
    expect(id(reworded)).toBe(id(base));
    expect(compileNeed(reworded, lineage).requestDigest).not.toBe(compileNeed(base, lineage).requestDigest);
  });

  it('is unchanged by CRLF versus LF in the task for the request digest', () => {
    expect(requestDigest({ ...base, task: 'a\r\nb' })).toBe(requestDigest({ ...base, task: 'a\nb' }));
  });

  it('changes with the world', () => {
    expect(id({ ...base, world: { ...base.world, features: 'all' } })).not.toBe(id(base));
    expect(id({ ...base, world: { ...base.world, platform: 'linux-x64' } })).not.toBe(id(base));
    expect(id({ ...base, world: { ...base.world, toolchain_digest: `b3:${'1'.repeat(64)}` } })).not.toBe(id(base));
    expect(compileNeed(base, lineageDigest(['ffffffffffffffffffffffffffffffffffffffff'])).id).not.toBe(id(base));
  });

  it('changes with the obligations', () => {
    const testsRequired = { ...base, required: [...base.required, base.preferred[0]!], preferred: [] };
    expect(id(testsRequired)).not.toBe(id(base));
    expect(id({ ...base, preferred: [] })).not.toBe(id(base));
  });

  it('changes with the subject', () => {
    expect(id({ ...base, subject: { kind: 'cli_option', name: '--crlf2' } })).not.toBe(id(base));
    expect(id({ ...base, subject: { kind: 'symbol', name: '--crlf' } })).not.toBe(id(base));
  });

  it('does not depend on the route once the merged obligations are equal', () => {
    const locate: NeedRequest = { ...base, route: 'locate.implementation', required: [{ kind: 'implementation_location', facets: {} }], preferred: [] };
    const explicit: NeedRequest = {
      ...locate,
      required: [{ kind: 'implementation_location', facets: { polarity: 'positive', selection: 'primary', granularity: 'exact_location' } }],
    };
    expect(id(locate)).toBe(id(explicit));
  });

  it('has golden values that never change across runs and machines', () => {
    const need = compileNeed(base, lineage);
    expect(lineage).toBe('b3:afccb56370acfb708d255e10a339486b453ddf1230bfc7746a5fd9e88b3779c5');
    expect(need.subject.id).toBe('b3:157af0a375965dbef46ded2081f7ea7e458657f4f669bac0a364e09ba0632a3d');
    expect(need.world.id).toBe('b3:cdaca46542e4a756c5b27ea024462c22386e19ddecff41cbcb7de3309d5c5fed');
    expect(need.id).toBe('b3:ce9db8b4784b545e3051e364bf04685b7e7162dd1486b40fcd51c33db861e4d8');
    expect(need.requestDigest).toBe('b3:f1a7b273c0509cb30c786e4b639762519c5bd10d028d9fad9ec24fd8d0cd16a6');
  });

  it('matches the documented byte layout, recomputed here with a separate BLAKE3 call', async () => {
    // "needle-canonical\0" | u64le(len(domain)) | domain | (u64le(len(field)) | field)*
    const u64 = (n: number) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(BigInt(n));
      return b;
    };
    const field = (b: Buffer) => Buffer.concat([u64(b.length), b]);
    const u16 = (n: number) => {
      const b = Buffer.alloc(2);
      b.writeUInt16LE(n);
      return b;
    };
    const domain = Buffer.from('repository-lineage');
    const root = Buffer.from('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    const bytes = Buffer.concat([Buffer.from('needle-canonical\0'), u64(domain.length), domain, field(u16(2)), field(u16(1)), field(root)]);
    expect(`b3:${await hashWasmBlake3(bytes)}`).toBe(lineage);
  });
});
