// The control plane's gate. It serves one user on one machine, so every
// request must prove it came from the page `needle ui` printed:
//  - Host must be exactly the loopback address and port we bound (a DNS
//    rebinding page reaches us under its own host name and is refused);
//  - reads need the random token, from the printed URL once (then a cookie,
//    HttpOnly, SameSite=Strict, named after the port) or the cookie alone;
//  - state-changing requests need the token in a header, which only our own
//    pages know (it is in the page, which other origins cannot read), and an
//    Origin header equal to ours (CSRF), and a JSON body (no simple form post).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_HEADER = 'x-needle-token';

export type Verdict = { readonly ok: true; readonly setCookie: boolean } | { readonly ok: false; readonly status: number; readonly reason: string };

export function freshToken(): string {
  return randomBytes(32).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

export class Gate {
  readonly host: string;
  readonly origin: string;
  readonly cookieName: string;

  constructor(
    readonly token: string,
    port: number,
  ) {
    this.host = `127.0.0.1:${port}`;
    this.origin = `http://${this.host}`;
    this.cookieName = `needle_ui_${port}`;
  }

  cookieHeader(): string {
    return `${this.cookieName}=${this.token}; Path=/; HttpOnly; SameSite=Strict`;
  }

  private hostOk(req: IncomingMessage): boolean {
    return req.headers.host === this.host;
  }

  private cookieOk(req: IncomingMessage): boolean {
    const c = cookies(req.headers.cookie).get(this.cookieName);
    return c !== undefined && same(c, this.token);
  }

  /** GET/HEAD: right Host, and the token from the cookie or (first load) the query. */
  read(req: IncomingMessage, url: URL): Verdict {
    if (!this.hostOk(req)) return { ok: false, status: 421, reason: 'wrong Host: this server answers only to the address it printed' };
    if (this.cookieOk(req)) return { ok: true, setCookie: false };
    const q = url.searchParams.get('token');
    if (q !== null && same(q, this.token)) return { ok: true, setCookie: true };
    return { ok: false, status: 401, reason: 'missing or wrong token: open the URL `needle ui` printed' };
  }

  /** POST: right Host, our Origin, the token header and a JSON body. */
  write(req: IncomingMessage): Verdict {
    if (!this.hostOk(req)) return { ok: false, status: 421, reason: 'wrong Host: this server answers only to the address it printed' };
    const origin = req.headers.origin;
    if (origin !== this.origin) return { ok: false, status: 403, reason: 'cross-origin request refused (Origin must be this server)' };
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return { ok: false, status: 403, reason: 'cross-site request refused' };
    const header = req.headers[TOKEN_HEADER];
    if (typeof header !== 'string' || !same(header, this.token)) return { ok: false, status: 403, reason: `missing or wrong ${TOKEN_HEADER} header` };
    if (!/^application\/json(;|$)/.test(req.headers['content-type'] ?? '')) return { ok: false, status: 415, reason: 'state-changing requests take a JSON body' };
    return { ok: true, setCookie: false };
  }
}

/** Headers on every response: nothing framed, sniffed, cached, referred or loaded from elsewhere. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
};
