// GET /charts/<id>.png: chart images from the ChartStore (playground, Teams).
import type { ChartStore } from '../charts/chart-store.js';
import type { Route } from './http-server.js';
import { bestEffort } from '../core/best-effort.js';

export function chartRoutes(charts: ChartStore): Route {
  return async (req, res) => {
    const match = /^\/charts\/([0-9a-f]{32})\.png$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'GET' || !match) return false;
    const png = await bestEffort(charts.get(match[1]), `reading chart ${match[1]}`);
    if (!png) res.writeHead(404, { 'content-type': 'text/plain' }).end('This chart has expired.');
    else res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'private, max-age=3600' }).end(png);
    return true;
  };
}
