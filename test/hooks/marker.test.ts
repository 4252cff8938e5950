// The @@need block grammar, its one NeedIR with need_context, and the
// settings merge that `needle enable` performs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blake3 } from '../../src/core/digest.js';
import { compileNeed } from '../../src/core/need.js';
import { ROUTE_IDS } from '../../src/core/semantic.js';
import { hasMarker, parseMarkers } from '../../src/hooks/marker.js';
import { parsePayload, PayloadError, stopPayload } from '../../src/hooks/payload.js';
import { disableHooks, enableHooks, enableMcpJson, SettingsError } from '../../src/hooks/settings.js';
import { handleStop } from '../../src/hooks/stop.js';
import { needContextInputSchema, parseNeedContext } from '../../src/mcp/tools/need-context.js';

const LINEAGE = blake3('lineage');
const block = (...lines: string[]) => ['Some prose first.', '@@need', ...lines, '@@end', 'trailing'].join('\n');

function need(text: string) {
  const [first] = parseMarkers(text);
  if (first?.kind !== 'need') throw new Error(`not a need: ${JSON.stringify(first)}`);
  return compileNeed(first.request, LINEAGE);
}

describe('@@need blocks', () => {
  it('compile to the same need_id as the need_context arguments for the same need', () => {
    const viaHook = need(block('@route trace.state-flow', '@subject cli_option:--dry-run', '@prefer focused-tests', '', 'Trace --dry-run.'));
    const args = { route: 'trace.state-flow', subject: { kind: 'cli_option', name: '--dry-run' }, preferred: [{ kind: 'focused_tests' }], task: 'Trace --dry-run.' };
    const viaMcp = compileNeed(parseNeedContext(needContextInputSchema([...ROUTE_IDS]), args), LINEAGE);
    expect(viaHook.id).toBe(viaMcp.id);
    expect(viaHook.requestDigest).toBe(viaMcp.requestDigest);
  });

  it('accepts the legacy @@need:<route> form with the subject in the body', () => {
    const [b] = parseMarkers('@@need:locate.implementation\nWhere is symbol:parseConfig defined?\n@@end');
    expect(b).toMatchObject({ kind: 'need', request: { route: 'locate.implementation', subject: { kind: 'symbol', name: 'parseConfig' } } });
  });

  it('reads quoted subjects and kind aliases', () => {
    const n = need(block('@route locate.implementation', '@subject config-key:"a \\"b\\""', '', 'x'));
    expect(n.subject).toMatchObject({ kind: 'configuration_key', name: 'a "b"' });
  });

  it.each([
    [block('@subject symbol:x', '', 'body'), /missing `@route`/],
    [block('@route nope', '@subject symbol:x', '', 'body'), /unknown route/],
    [block('@route locate.implementation', '', 'body'), /missing `@subject/],
    [block('@route locate.implementation', '@subject symbol:x'), /missing the body/],
    [block('@route locate.implementation', '@subject symbol:x', '@require runtime_flow polarity=negative', '', 'b'), /no facet/],
    [block('@route locate.implementation', '@subject symbol:x', '@bogus 1', '', 'b'), /unknown header/],
    ['@@need\n@route locate.implementation\n@@need\n@@end', /another `@@need`/],
    ['@@need\n@route locate.implementation', /no closing/],
    [`@@need\n@route locate.implementation\n@subject symbol:x\n\n${'y'.repeat(20_000)}\n@@end`, /longer than/],
  ])('reports a malformed block instead of failing (%#)', (text, problem) => {
    const [b] = parseMarkers(text);
    expect(b?.kind).toBe('malformed');
    expect(b?.kind === 'malformed' && b.problem).toMatch(problem);
  });

  it('finds no marker in ordinary text, and ignores inline mentions', () => {
    expect(hasMarker('we could write @@need here')).toBe(false);
    expect(parseMarkers('no blocks at all')).toEqual([]);
  });
});

describe('hook payloads', () => {
  it('keep known fields, drop unknown ones, refuse wrong types and non-JSON', () => {
    const p = parsePayload(JSON.stringify({ session_id: 's', cwd: '/x', hook_event_name: 'Stop', stop_hook_active: false, model: 'm', turn_id: 't' }), stopPayload);
    expect(p).toEqual({ session_id: 's', cwd: '/x', hook_event_name: 'Stop', stop_hook_active: false, turn_id: 't' });
    expect(() => parsePayload('{"session_id":1,"cwd":"/x","hook_event_name":"Stop"}', stopPayload)).toThrow(PayloadError);
    expect(() => parsePayload('not json', stopPayload)).toThrow(/not JSON/);
  });

  it('a Stop the client is already continuing, or one without a marker, never blocks', async () => {
    const deps = { db: null as never, engine: null as never, session: null as never, client: 'codex' as const, signal: new AbortController().signal };
    const base = { session_id: 's', cwd: '/x', hook_event_name: 'Stop' };
    expect(await handleStop({ ...base, stop_hook_active: true, last_assistant_message: block('@route locate.implementation') }, deps)).toBeNull();
    expect(await handleStop({ ...base, last_assistant_message: 'all done' }, deps)).toBeNull();
    const fix = await handleStop({ ...base, last_assistant_message: block('@route nope') }, deps);
    expect(fix?.reason).toMatch(/^Needle could not read your @@need block: unknown route/);
  });
});

describe('settings merge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'needle-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entries = [{ event: 'stop' as const, command: 'node main.js hook stop --client claude-code', timeoutSec: 120 }];

  it('refuses a file that does not parse and leaves it untouched', () => {
    const f = join(dir, 'broken.json');
    writeFileSync(f, '{ "hooks": ');
    expect(() => enableHooks(f, entries)).toThrow(SettingsError);
    expect(readFileSync(f, 'utf8')).toBe('{ "hooks": ');
  });

  it('creates a missing file, is idempotent, and disable removes the file it created', () => {
    const f = join(dir, 'new', 'settings.json');
    expect(enableHooks(f, entries)).toBe('added');
    expect(enableHooks(f, entries)).toBe('unchanged');
    expect(disableHooks(f)).toBe('removed');
    expect(() => readFileSync(f)).toThrow();
  });

  it('keeps a user entry that changed after enable and removes only Needle’s', () => {
    const f = join(dir, 'user.json');
    writeFileSync(f, '{"model":"x"}');
    enableHooks(f, entries);
    const doc = JSON.parse(readFileSync(f, 'utf8'));
    doc.model = 'y';
    writeFileSync(f, JSON.stringify(doc));
    disableHooks(f);
    expect(JSON.parse(readFileSync(f, 'utf8'))).toEqual({ model: 'y' });
  });

  it('refuses to replace an MCP server named needle that it did not write', () => {
    const f = join(dir, 'mcp.json');
    writeFileSync(f, '{"mcpServers":{"needle":{"command":"other"}}}');
    expect(() => enableMcpJson(f, { command: 'node', args: ['main.js', 'mcp', 'serve'] })).toThrow(/did not write/);
  });
});
