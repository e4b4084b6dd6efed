// Who may use the playground. It answers questions with no login, so:
// - on a loopback HOST it serves this machine only, and checks the Host header
//   (a web page whose name resolves to 127.0.0.1, DNS rebinding, must not reach
//   it) and the Origin header (another site's page must not post to it);
// - on any other HOST it needs PLAYGROUND_TOKEN, and without one it is off;
// - with a token, a browser opens /?token=... once and gets a cookie; scripts
//   send Authorization: Bearer.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { Config } from '../../config/env.js';
import { LOOPBACK_NAMES, isLoopback, namedHosts } from '../../server/host-names.js';

export interface PlaygroundAccess {
  /** HOST: the address the HTTP server listens on */
  host: string;
  /** PLAYGROUND_TOKEN */
  token?: string;
  /** Host header names accepted besides the loopback ones (lower case, no port) */
  allowedHosts: string[];
  /** questions a minute, per client address (the bucket's refill) */
  perMinute: number;
  /** the most a client's bucket holds (RATE_LIMIT_USER_BURST); unset: perMinute */
  burst?: number;
}

const COOKIE = 'datadesk_playground';

export function playgroundAccess(config: Config): PlaygroundAccess {
  return {
    host: config.host,
    token: config.playground.token,
    allowedHosts: namedHosts(config),
    perMinute: config.rateLimits.userPerMinute,
    burst: config.rateLimits.userBurst,
  };
}

/** Why the playground is not served, or undefined when it is. */
export function playgroundOff(access: PlaygroundAccess): string | undefined {
  if (isLoopback(access.host) || access.token) return undefined;
  return (
    `the playground is off: HOST=${access.host} is not a loopback address and PLAYGROUND_TOKEN is not set, ` +
    'so anyone who reaches this port could use it. Slack, Teams, /healthz and /status work as usual. ' +
    'To use the playground, set PLAYGROUND_TOKEN (openssl rand -hex 16) and open /?token=... once, or set HOST=127.0.0.1.'
  );
}

export interface Refusal {
  status: number;
  error: string;
  headers?: Record<string, string>;
}

/** The name in a Host header, lower case, without the port ("[::1]:3000" -> "[::1]"). */
function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  return h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d*$/, '');
}

/** Host and Origin: the request names this server, and a page of this server sent it. */
export function checkOrigin(req: http.IncomingMessage, access: PlaygroundAccess): Refusal | undefined {
  const host = req.headers.host ?? '';
  const name = hostName(host);
  if (!LOOPBACK_NAMES.includes(name) && !access.allowedHosts.includes(name)) {
    return {
      status: 403,
      error:
        `Host "${host}" is not one this playground answers to (${[...LOOPBACK_NAMES, ...access.allowedHosts].join(', ')}). ` +
        'Open it by one of those names, or add the name to PLAYGROUND_ALLOWED_HOSTS.',
    };
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = undefined; // "null" (sandboxed pages, file:) or garbage
  }
  if (originHost?.toLowerCase() !== host.toLowerCase()) {
    return {
      status: 403,
      error: `Cross-origin request refused: a page from ${origin} may not use this playground (only pages from http://${host}).`,
    };
  }
  return undefined;
}

const digest = (s: string) => createHash('sha256').update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));
/** The cookie holds a value derived from the token, not the token itself. */
const cookieValue = (token: string) => createHmac('sha256', token).update('datadesk playground cookie').digest('hex');

function cookies(req: http.IncomingMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/** Whether an offered token (from /?token=... or a bearer header) is the token, in constant time. */
export const isToken = (offered: string, token: string): boolean => sameSecret(offered, token);

/** Whether the request carries the token: as a bearer token or as the cookie of /?token=... */
export function hasToken(req: http.IncomingMessage, token: string): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return isToken(bearer, token);
  const cookie = cookies(req).get(COOKIE);
  return cookie !== undefined && sameSecret(cookie, cookieValue(token));
}

/**
 * The Set-Cookie of a browser that opened /?token=...: HttpOnly so page scripts
 * cannot read it, SameSite=Lax so other sites' requests do not carry it (top-level
 * navigations still do, or the redirect after the link would arrive without it).
 */
export function tokenCookie(req: http.IncomingMessage, token: string): string {
  const secure = req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
  return `${COOKIE}=${cookieValue(token)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${30 * 24 * 3600}${secure}`;
}

export const needsToken = (): Refusal => ({
  status: 401,
  error: 'This playground needs its token (PLAYGROUND_TOKEN): open /?token=... once in the browser, or send Authorization: Bearer ...',
  headers: { 'www-authenticate': 'Bearer realm="datadesk playground"' },
});
