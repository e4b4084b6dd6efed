// GET /charts/<id>.png: chart images from the ChartStore (playground, Teams).
import { ChartDrawError, type ChartStore } from '../charts/chart-store.js';
import type { Route } from './http-server.js';
import { bestEffort } from '../core/best-effort.js';

export function chartRoutes(charts: ChartStore): Route {
  return async (req, res) => {
    const match = /^\/charts\/([0-9a-f]{32})\.png$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'GET' || !match) return false;
    // a chart drawn when first fetched may fail then (QuickChart down): said as such, not as expired
    const got = charts.get(match[1]).catch((error: unknown) => {
      if (error instanceof ChartDrawError) return error;
      throw error;
    });
    const png = await bestEffort(got, `reading chart ${match[1]}`);
    if (png instanceof ChartDrawError) res.writeHead(503, { 'content-type': 'text/plain' }).end(png.message);
    else if (!png) res.writeHead(404, { 'content-type': 'text/plain' }).end('This chart has expired.');
    else res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'private, max-age=3600' }).end(png);
    return true;
  };
}
