// The `@@need … @@end` block a main model writes at the end of its turn when
// it wants evidence through the hook transport (reference semantic-core §1).
// One block becomes the same NeedRequest the need_context tool builds, so
// both transports compile to the same NeedIR and the same need_id.
//
//   @@need
//   @route trace.state-flow
//   @subject cli_option:--dry-run
//   @require runtime_flow
//   @prefer focused_tests
//
//   Trace how --dry-run reaches the upload.
//   @@end
//
// The legacy form `@@need:<route>` + body + `@@end` is accepted too; its
// subject comes from an `@subject` line or the first `kind:name` in the body.
import { HOOKS, NEED } from '../core/limits.js';
import { DEFAULT_WORLD, type NeedRequest, type WorldSelector } from '../core/need.js';
import { FACETS, PREDICATES, ROUTE_IDS, SUBJECT_KINDS, type Capability, type Predicate, type RouteId, type SubjectKind } from '../core/semantic.js';

export type MarkerParse =
  | { readonly kind: 'need'; readonly request: NeedRequest }
  | { readonly kind: 'malformed'; readonly problem: string };

const OPEN = '@@need';
const CLOSE = '@@end';

const SUBJECT_ALIASES: Record<string, SubjectKind> = {
  'cli-option': 'cli_option',
  option: 'cli_option',
  flag: 'cli_option',
  'config-key': 'configuration_key',
  config_key: 'configuration_key',
  'configuration-key': 'configuration_key',
  behaviour: 'behavior',
};

const snake = (word: string): string => word.trim().toLowerCase().replace(/-/g, '_');

function subjectKind(word: string): SubjectKind | null {
  const w = word.trim().toLowerCase();
  const k = SUBJECT_ALIASES[w] ?? snake(w);
  return (SUBJECT_KINDS as readonly string[]).includes(k) ? (k as SubjectKind) : null;
}

class Malformed extends Error {}

/** Text has at least one line that opens a block: the cheap test before parsing. */
export function hasMarker(text: string): boolean {
  return /^[ \t]*@@need(?::|[ \t]*$)/m.test(text);
}

/**
 * Every block in the text, in order, at most HOOKS.maxBlocksPerMessage. A
 * block that does not parse is reported with its problem; the others still
 * count. Text outside blocks is ignored.
 */
export function parseMarkers(text: string): MarkerParse[] {
  const out: MarkerParse[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length && out.length < HOOKS.maxBlocksPerMessage; i++) {
    const head = lines[i]!.trim();
    if (head !== OPEN && !head.startsWith(`${OPEN}:`)) continue;
    const end = lines.findIndex((l, j) => j > i && (l.trim() === CLOSE || l.trim() === OPEN || l.trim().startsWith(`${OPEN}:`)));
    if (end === -1 || lines[end]!.trim() !== CLOSE) {
      out.push({ kind: 'malformed', problem: end === -1 ? 'the block has no closing `@@end` line' : 'a block may not contain another `@@need`' });
      if (end === -1) break;
      i = end - 1;
      continue;
    }
    const body = lines.slice(i + 1, end);
    try {
      if (Buffer.byteLength(lines.slice(i, end + 1).join('\n')) > HOOKS.maxBlockBytes)
        throw new Malformed(`the block is longer than ${HOOKS.maxBlockBytes} bytes`);
      out.push({ kind: 'need', request: head === OPEN ? typedBlock(body) : legacyBlock(head.slice(OPEN.length + 1).trim(), body) });
    } catch (e) {
      if (!(e instanceof Malformed)) throw e;
      out.push({ kind: 'malformed', problem: e.message });
    }
    i = end;
  }
  return out;
}

interface Headers {
  route?: RouteId;
  subject?: { kind: SubjectKind; name: string };
  required: Capability[];
  preferred: Capability[];
  world?: WorldSelector;
}

function typedBlock(lines: readonly string[]): NeedRequest {
  const h: Headers = { required: [], preferred: [] };
  let at = 0;
  while (at < lines.length && lines[at]!.trim() === '') at++;
  for (; at < lines.length && lines[at]!.trim() !== ''; at++) header(h, lines[at]!.trim());
  const task = lines.slice(at).join('\n').trim();
  return finish(h, task);
}

function legacyBlock(routeText: string, lines: readonly string[]): NeedRequest {
  const h: Headers = { required: [], preferred: [] };
  h.route = route(routeText);
  const body: string[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (t.startsWith('@')) header(h, t);
    else body.push(line);
  }
  const task = body.join('\n').trim();
  if (!h.subject) {
    const m = /\b([a-z][a-z_-]*):(\S+)/i.exec(task);
    const kind = m ? subjectKind(m[1]!) : null;
    if (m && kind) h.subject = { kind, name: unquote(m[2]!.replace(/[.,;:)\]]+$/, '')) };
  }
  return finish(h, task);
}

function finish(h: Headers, task: string): NeedRequest {
  if (!h.route) throw new Malformed('missing `@route` (one of ' + ROUTE_IDS.join(', ') + ')');
  if (!h.subject) throw new Malformed('missing `@subject kind:name`');
  if (task === '') throw new Malformed('missing the body: one line after a blank line saying what the evidence is for');
  if (Buffer.byteLength(task) > NEED.taskMaxBytes) throw new Malformed(`the body is longer than ${NEED.taskMaxBytes} bytes`);
  return { route: h.route, subject: h.subject, required: h.required, preferred: h.preferred, world: h.world ?? DEFAULT_WORLD, task };
}

function header(h: Headers, line: string): void {
  const m = /^@([a-z]+)(?:\s+(.*))?$/.exec(line);
  if (!m) throw new Malformed(`\`${preview(line)}\` is not a header (\`@name value\`); put a blank line before the body`);
  const value = (m[2] ?? '').trim();
  switch (m[1]) {
    case 'route':
      if (h.route) throw new Malformed('`@route` given twice');
      h.route = route(value);
      return;
    case 'subject':
      if (h.subject) throw new Malformed('one `@subject` per block');
      h.subject = subject(value);
      return;
    case 'require':
    case 'prefer': {
      const list = m[1] === 'require' ? h.required : h.preferred;
      const max = m[1] === 'require' ? NEED.maxRequired : NEED.maxPreferred;
      const cap = capability(value);
      if ([...h.required, ...h.preferred].some((c) => c.kind === cap.kind)) throw new Malformed(`${cap.kind} is named twice`);
      if (list.length >= max) throw new Malformed(`at most ${max} \`@${m[1]}\` lines`);
      list.push(cap);
      return;
    }
    case 'world':
      if (h.world) throw new Malformed('`@world` given twice');
      h.world = world(value);
      return;
    case 'coordination':
      if (value !== 'wait-response' && value !== 'continue-working') throw new Malformed('`@coordination` is wait-response or continue-working');
      return;
    default:
      throw new Malformed(`unknown header \`@${preview(m[1]!)}\` (use @route, @subject, @require, @prefer, @world)`);
  }
}

function route(value: string): RouteId {
  if (!(ROUTE_IDS as readonly string[]).includes(value)) throw new Malformed(`unknown route \`${preview(value)}\` (one of ${ROUTE_IDS.join(', ')})`);
  return value as RouteId;
}

function unquote(text: string): string {
  if (!text.startsWith('"')) {
    if (/[\s"\\]/.test(text)) throw new Malformed('a bare subject name has no spaces, quotes or backslashes; quote it');
    return text;
  }
  if (!/^"(?:[^"\\]|\\["\\])*"$/.test(text)) throw new Malformed('a quoted subject name ends with `"` and escapes only `\\"` and `\\\\`');
  return text.slice(1, -1).replace(/\\(["\\])/g, '$1');
}

function subject(value: string): { kind: SubjectKind; name: string } {
  const colon = value.indexOf(':');
  const kind = colon > 0 ? subjectKind(value.slice(0, colon)) : null;
  if (!kind) throw new Malformed(`\`@subject\` is kind:name with kind one of ${SUBJECT_KINDS.join(', ')}`);
  const name = unquote(value.slice(colon + 1).trim());
  if (!/\S/.test(name) || Buffer.byteLength(name) > NEED.subjectNameMaxBytes)
    throw new Malformed(`the subject name is 1..${NEED.subjectNameMaxBytes} bytes of text`);
  return { kind, name };
}

function pairs(words: readonly string[], what: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq <= 0) throw new Malformed(`${what}: \`${preview(w)}\` is not key=value`);
    const key = snake(w.slice(0, eq));
    if (out.has(key)) throw new Malformed(`${what}: ${key} given twice`);
    out.set(key, w.slice(eq + 1));
  }
  return out;
}

function capability(value: string): Capability {
  const [first, ...rest] = value.split(/\s+/).filter(Boolean);
  const kind = snake(first ?? '');
  if (!(PREDICATES as readonly string[]).includes(kind)) throw new Malformed(`\`@require\`/\`@prefer\` names one of ${PREDICATES.join(', ')}`);
  const legal = FACETS[kind as Predicate] as Readonly<Record<string, readonly string[]>>;
  const facets: Record<string, string> = {};
  for (const [k, v] of pairs(rest, kind)) {
    const allowed = legal[k];
    if (!allowed) throw new Malformed(`${kind} has no facet ${preview(k)} (${Object.keys(legal).join(', ')})`);
    const val = snake(v);
    if (!allowed.includes(val)) throw new Malformed(`${kind}.${k} is one of ${allowed.join(', ')}`);
    facets[k] = val;
  }
  return { kind: kind as Predicate, facets };
}

function world(value: string): WorldSelector {
  const p = pairs(value.split(/\s+/).filter(Boolean), '@world');
  for (const k of p.keys())
    if (!['source', 'platform', 'features'].includes(k)) throw new Malformed('`@world` takes source=, platform= and features=');
  for (const v of p.values())
    if (Buffer.byteLength(v) > NEED.worldStringMaxBytes) throw new Malformed(`a @world value is at most ${NEED.worldStringMaxBytes} bytes`);
  return { source: p.get('source') ?? DEFAULT_WORLD.source, platform: p.get('platform') ?? DEFAULT_WORLD.platform, features: p.get('features') ?? DEFAULT_WORLD.features };
}

function preview(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const t = text.replace(/[\u0000-\u001f`]/g, ' ');
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}
