// The local playground's HTTP side: the page and two
// endpoints that stream a question's progress and its Answer as Server-Sent
// Events. It adapts HTTP to the desk's InboundMessage and sends the Answer as
// JSON; the page renders it (public/app.js). No logic of its own. Chart images
// are served by chartRoutes (server/chart-routes.ts) from the same ChartStore.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type http from 'node:http';
import type { DataDesk } from '../../agents/desk.js';
import type { Answer } from '../../core/answer.js';
import type { Logger } from '../../core/logger.js';
import { packageRoot } from '../../core/paths.js';
import { renderChart } from '../../charts/render.js';
import type { ChartStore } from '../../charts/chart-store.js';
import type { Route } from '../../server/http-server.js';

const PUBLIC = path.join(packageRoot, 'src', 'channels', 'web', 'public');
const STATIC: Record<string, string> = { '/': 'index.html', '/app.js': 'app.js', '/style.css': 'style.css' };
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

async function readBody(req: http.IncomingMessage, limit = 64 * 1024): Promise<unknown> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > limit) throw new Error('request too large');
  }
  return JSON.parse(body || '{}');
}

function sse(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
  return (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export interface PlaygroundDeps {
  desk: DataDesk;
  charts: ChartStore;
  logger: Logger;
  quickchartUrl?: string;
}

export function playgroundRoutes(deps: PlaygroundDeps): Route {
  /** The answer as sent to the page: the Answer plus the URL of its chart image. */
  const withChart = async (answer: Answer) => {
    if (answer.kind !== 'result' || !answer.chart) return { answer, chartUrl: null };
    try {
      return { answer, chartUrl: `/charts/${deps.charts.put(await renderChart(answer.chart, deps.quickchartUrl))}.png` };
    } catch (error) {
      deps.logger.warn(`chart: ${(error as Error).message}`);
      return { answer, chartUrl: null };
    }
  };

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && STATIC[url.pathname]) {
      const file = STATIC[url.pathname];
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)], 'cache-control': 'no-cache' });
      res.end(await readFile(path.join(PUBLIC, file)));
      return true;
    }
    if (req.method === 'POST' && (url.pathname === '/api/ask' || url.pathname === '/api/choose')) {
      let body: { thread?: unknown; text?: unknown; term?: unknown; option?: unknown };
      try {
        body = (await readBody(req)) as typeof body;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Send JSON: {"thread": "...", "text": "..."}' }));
        return true;
      }
      const thread = typeof body.thread === 'string' && /^[\w-]{1,64}$/.test(body.thread) ? body.thread : undefined;
      if (!thread) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'thread must be 1-64 letters, digits, - or _' }));
        return true;
      }
      const send = sse(res);
      const message = { platform: 'web' as const, threadId: `web:${thread}`, channel: 'playground' };
      const progress = (step: string) => send('progress', { step });
      let answer: Answer;
      if (url.pathname === '/api/ask') {
        const text = typeof body.text === 'string' ? body.text.trim().slice(0, 2_000) : '';
        const backtest = /^\/backtest\b/i.exec(text);
        answer = await deps.desk.answer({ ...message, text: backtest ? text.slice(backtest[0].length).trim() || 'help' : text, kind: backtest ? 'backtest' : 'question' }, progress);
      } else {
        progress('Applying your choice');
        answer = await deps.desk.choose(message, String(body.term ?? ''), String(body.option ?? ''), progress);
      }
      send('answer', await withChart(answer));
      res.end();
      return true;
    }
    return false;
  };
}
