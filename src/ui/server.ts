// `needle ui`: a loopback HTTP server over one data directory. Every request
// passes the gate (security.ts) first; pages are server-rendered HTML with the
// same data as JSON under /api; the only writes are invalidating a
// certificate, applying a verified change and activating a profile revision,
// each confirmed; /events pushes
// an activity mark (server-sent events) so open pages can offer a refresh.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDataDir } from '../store/datadir.js';
import { activityMark } from '../store/evidence/reports.js';
import { CSS, JS } from './assets.js';
import { ActionError, type Page, type UiContext } from './context.js';
import { errorPage, layout } from './html.js';
import { cachePage, certificatePage, invalidateAction } from './pages/cache.js';
import { applyAction, changePage, changesPage } from './pages/changes.js';
import { needPage, needsPage } from './pages/needs.js';
import { overviewPage } from './pages/overview.js';
import { activateAction, profilesPage, runsPage } from './pages/profiles.js';
import { freshToken, Gate, SECURITY_HEADERS } from './security.js';

export interface UiOptions {
  readonly dataDir: string;
  /** Repository freshness is computed against; null when there is none. */
  readonly repository: string | null;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** How often the activity mark is polled for live updates. */
  readonly pollMs?: number;
  readonly now?: () => number;
}

export interface UiServer {
  /** The URL to open, with the token. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ROUTES: readonly (readonly [RegExp, Page<any>])[] = [
  [/^\/$/, overviewPage],
  [/^\/needs$/, needsPage],
  [/^\/needs\/([^/]+)$/, needPage],
  [/^\/cache$/, cachePage],
  [/^\/cache\/([^/]+)$/, certificatePage],
  [/^\/changes$/, changesPage],
  [/^\/changes\/([^/]+)$/, changePage],
  [/^\/profiles$/, profilesPage],
  [/^\/runs$/, runsPage],
];

const ACTIONS: readonly (readonly [RegExp, (ctx: UiContext, id: string, body: Record<string, unknown>) => { message: string; next: string }])[] = [
  [/^\/api\/cache\/([^/]+)\/invalidate$/, invalidateAction],
  [/^\/api\/changes\/([^/]+)\/apply$/, applyAction],
  [/^\/api\/profiles\/([^/]+)\/activate$/, activateAction],
];

function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ActionError(413, 'request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        const v = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error();
        resolve(v as Record<string, unknown>);
      } catch {
        reject(new ActionError(400, 'the body must be a JSON object'));
      }
    });
    req.on('error', reject);
  });
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export async function startUi(opts: UiOptions): Promise<UiServer> {
  const data = openDataDir(opts.dataDir);
  const ctx: UiContext = { db: data.db, dataDir: opts.dataDir, repository: opts.repository, now: opts.now ?? Date.now };
  const token = freshToken();
  let gate: Gate | null = null;
  const streams = new Set<ServerResponse>();
  let mark = activityMark(data.db);

  const page = (req: IncomingMessage, res: ServerResponse, url: URL, setCookie: boolean): void => {
    const extra: Record<string, string> = setCookie ? { 'set-cookie': gate!.cookieHeader() } : {};
    if (setCookie) {
      url.searchParams.delete('token');
      // One leading slash only: `//host` would be a redirect to another site.
      send(res, 303, 'text/plain; charset=utf-8', 'see other', { ...extra, location: `/${url.pathname.replace(/^\/+/, '')}${url.search}` });
      return;
    }
    if (url.pathname === '/assets/app.css') return send(res, 200, 'text/css; charset=utf-8', CSS);
    if (url.pathname === '/assets/app.js') return send(res, 200, 'text/javascript; charset=utf-8', JS);
    if (url.pathname === '/events') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
      res.write(`retry: 2000\nevent: activity\ndata: ${mark}\n\n`);
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    const api = url.pathname.startsWith('/api/');
    const path = api ? (url.pathname === '/api/overview' ? '/' : url.pathname.slice(4)) : url.pathname;
    for (const [pattern, p] of ROUTES) {
      const m = pattern.exec(path);
      if (!m) continue;
      const id = m[1] === undefined ? null : decode(m[1]);
      const d = m[1] !== undefined && id === null ? null : p.data(ctx, url.searchParams, id);
      if (d === null) return api ? json(res, 404, { error: 'not found' }) : send(res, 404, 'text/html; charset=utf-8', errorPage(404, 'Not found'));
      if (api) return json(res, 200, d);
      return send(res, 200, 'text/html; charset=utf-8', layout(p.title(d), path, p.view(d, url.searchParams), token));
    }
    return api ? json(res, 404, { error: 'not found' }) : send(res, 404, 'text/html; charset=utf-8', errorPage(404, 'Not found'));
  };

  const action = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    for (const [pattern, act] of ACTIONS) {
      const m = pattern.exec(url.pathname);
      const id = m?.[1] === undefined ? null : decode(m[1]);
      if (!m || id === null) continue;
      const body = await readBody(req);
      const result = act(ctx, id, body);
      return json(res, 200, result);
    }
    json(res, 404, { error: 'not found' });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const verdict = method === 'GET' ? gate!.read(req, url) : method === 'POST' ? gate!.write(req) : { ok: false as const, status: 405, reason: 'method not allowed' };
    if (!verdict.ok) {
      req.resume();
      if (url.pathname.startsWith('/api/') || method !== 'GET') return json(res, verdict.status, { error: verdict.reason });
      return send(res, verdict.status, 'text/html; charset=utf-8', errorPage(verdict.status, verdict.reason));
    }
    try {
      if (method === 'GET') return page(req, res, url, verdict.setCookie);
      action(req, res, url).catch((e: unknown) => {
        if (e instanceof ActionError) json(res, e.status, { error: e.message, ...(e.rule ? { rule: e.rule } : {}) });
        else json(res, 500, { error: (e as Error).message });
      });
    } catch (e) {
      send(res, 500, 'text/plain; charset=utf-8', `internal error: ${(e as Error).message}`);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  gate = new Gate(token, port);

  const timer = setInterval(() => {
    const now = activityMark(data.db);
    if (now === mark) return;
    mark = now;
    for (const s of streams) s.write(`event: activity\ndata: ${mark}\n\n`);
  }, opts.pollMs ?? 1000);
  timer.unref();

  return {
    url: `${gate.origin}/?token=${token}`,
    origin: gate.origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        for (const s of streams) s.end();
        server.close(() => {
          data.db.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
