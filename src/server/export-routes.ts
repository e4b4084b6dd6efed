// GET /exports/<token>.csv: the rows of an answer whose card carries this
// link (Teams), by the delivery's unguessable token; see src/export/. Served
// only under the names this deployment answers to (PUBLIC_BASE_URL's host,
// HOST, loopback), at most `perMinute` a minute per client address, and a few
// times an hour per link and per address (export/download-limits.ts).
import type { Config } from '../config/env.js';
import { LOOPBACK_NAMES, namedHosts } from './host-names.js';
import { RateLimiter } from '../core/rate-limit.js';
import type { Logger } from '../core/logger.js';
import type { ExportSettings } from '../export/csv-export.js';
import { DownloadLimits } from '../export/download-limits.js';
import { sendCsvExport } from '../export/csv-response.js';
import type { Deliveries } from '../jobs/deliveries.js';
import type { Route } from './http-server.js';

export const exportLink = (baseUrl: string, token: string) => `${baseUrl}/exports/${token}.csv`;

/** The host names export links may be fetched under: the loopback ones and those the playground answers to (HOST, PUBLIC_BASE_URL, PLAYGROUND_ALLOWED_HOSTS). */
export function exportHosts(config: Config): string[] {
  return [...new Set([...LOOPBACK_NAMES, ...namedHosts(config)])];
}

const refuse = (res: Parameters<Route>[1], status: number, error: string, headers: Record<string, string> = {}) =>
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify({ error }));

export function exportRoutes(
  deliveries: Deliveries,
  settings: ExportSettings,
  logger: Logger,
  access: { hosts: string[]; perMinute: number; downloads?: DownloadLimits },
): Route {
  const limiter = new RateLimiter(access.perMinute);
  const downloads = access.downloads ?? new DownloadLimits();
  return async (req, res) => {
    const match = /^\/exports\/([0-9a-f]{32})\.csv$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'GET' || !match) return false;
    const host = (req.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    if (!access.hosts.includes(host)) {
      refuse(res, 403, `This server does not answer to the name "${host}".`);
      return true;
    }
    const who = req.socket.remoteAddress ?? 'unknown';
    const wait = limiter.take(who);
    if (wait > 0) {
      refuse(res, 429, `Too many downloads: at most ${access.perMinute} a minute. Try again in ${wait} s.`, {
        'retry-after': String(wait),
      });
      return true;
    }
    const counted = downloads.take(match[1], who);
    if ('refused' in counted) {
      refuse(res, 429, counted.refused, { 'retry-after': String(counted.retryAfterS) });
      return true;
    }
    try {
      const row = await deliveries.byExportToken(match[1]);
      await sendCsvExport(res, row?.answer, settings, logger, who);
    } finally {
      // only a download served counts (not "no such answer", "busy, try again", a refusal or an error)
      if (!(res.headersSent && res.statusCode === 200)) counted.refund();
    }
    return true;
  };
}
