// The names this deployment answers to in a Host header: the loopback ones,
// HOST (unless it listens on every address), PUBLIC_BASE_URL's host and
// PLAYGROUND_ALLOWED_HOSTS. The playground and the export links check the same
// list, so a name that reaches one reaches the other (DNS rebinding: a page
// whose name resolves to this machine must not be answered).
import type { Config } from '../config/env.js';

export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD = ['0.0.0.0', '::', '[::]'];

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
}

/** The names besides the loopback ones (lower case, no port). */
export function namedHosts(config: Config): string[] {
  const own = WILDCARD.includes(config.host) ? [] : [config.host.includes(':') ? `[${config.host}]` : config.host];
  const publicHost = config.publicBaseUrl ? [new URL(config.publicBaseUrl).hostname] : [];
  return [...new Set([...config.playground.allowedHosts, ...own, ...publicHost].map((h) => h.toLowerCase()))].filter(
    (h) => !LOOPBACK_NAMES.includes(h),
  );
}
