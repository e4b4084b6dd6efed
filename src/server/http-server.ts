// The bot's own HTTP server: health for containers and a status page. Channel
// endpoints (Slack events, Teams messages, the playground) mount here as routes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { UserError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { dataFreshness } from '../db/freshness.js';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<boolean>;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export function healthRoutes(pool: pg.Pool, startedAt: Date): Route {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET') return false;
    if (url.pathname === '/healthz') {
      try {
        await pool.query('SELECT 1');
        json(res, 200, { status: 'ok', database: 'up' });
      } catch (error) {
        // the reason, never the URL: pg's messages name host and port at most
        json(res, 503, { status: 'unavailable', database: 'down', reason: (error as Error).message });
      }
      return true;
    }
    if (url.pathname === '/status') {
      try {
        json(res, 200, { startedAt: startedAt.toISOString(), data: await dataFreshness(pool) });
      } catch (error) {
        json(res, 503, { startedAt: startedAt.toISOString(), database: 'down', reason: (error as Error).message });
      }
      return true;
    }
    return false;
  };
}

export async function startHttpServer(host: string, port: number, routes: Route[], logger: Logger): Promise<RunningServer> {
  const server = http.createServer(async (req, res) => {
    try {
      for (const route of routes) if (await route(req, res)) return;
      json(res, 404, { error: `Nothing at ${req.method} ${req.url}` });
    } catch (error) {
      logger.error(`HTTP ${req.method} ${req.url}: ${(error as Error).message}`);
      if (!res.headersSent) json(res, 500, { error: 'Internal error; see the server log.' });
      else res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      // the usual first-run stumble: say which setting moves it
      if (error.code === 'EADDRINUSE')
        reject(
          new UserError(
            `Port ${port} on ${host} is taken by another program: stop it, or set PORT to a free port (e.g. PORT=${port + 1} npm start).`,
          ),
        );
      else if (error.code === 'EACCES')
        reject(new UserError(`Port ${port} on ${host} needs privileges this user lacks: set PORT to 1024 or above.`));
      // a HOST that names no address of this machine (it was read as PostgreSQL going away)
      else if (error.code === 'ENOTFOUND' || error.code === 'EADDRNOTAVAIL' || error.code === 'EAI_AGAIN')
        reject(
          new UserError(
            `HOST=${host} is not an address of this machine (${error.code}): use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`,
          ),
        );
      else reject(error);
    });
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
