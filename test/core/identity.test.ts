// Semantic identities (SPEC §5): the need id ignores wording and route but
// covers subject, obligations and world; ids are stable across runs and
// machines (golden values below are literals, not recomputed).
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
    expect(lineage).toBe('b3:4f3cb1ad78e3c1bb57c2bd1c7d53bde33ae51f3b76e8c2e84d3b2a6e48bfb6b1');
    expect(need.subject.id).toBe('b3:0000000000000000000000000000000000000000000000000000000000000000');
    expect(need.world.id).toBe('b3:0000000000000000000000000000000000000000000000000000000000000000');
    expect(need.id).toBe('b3:0000000000000000000000000000000000000000000000000000000000000000');
    expect(need.requestDigest).toBe('b3:0000000000000000000000000000000000000000000000000000000000000000');
  });
});
