// GET /runs/<ID>: a backtest run's link (the id under a backtest answer, with
// PUBLIC_BASE_URL). Runs are kept per workspace and the link is public, so the
// page shows no run's parameters: only whether a run of that id exists and how
// to see it in the workspace it ran in (`/backtest rerun ID` there; in Slack
// the link unfurls into its parameters for that workspace alone,
// channels/slack/listeners/link-shared.ts). At most `perMinute` a minute per
// client address.
import type { BacktestRuns } from '../backtest/run-id.js';
import { runIdOfPath } from '../backtest/run-id.js';
import { RateLimiter } from '../core/rate-limit.js';
import { escapeHtml, htmlPage, sendHtml } from './html-page.js';
import type { Route } from './http-server.js';

export function runRoutes(runs: Pick<BacktestRuns, 'exists'>, access: { perMinute: number }): Route {
  const limiter = new RateLimiter(access.perMinute);
  return async (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (!pathname.startsWith('/runs/') || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const id = runIdOfPath(pathname);
    if (!id) {
      sendHtml(res, 404, htmlPage('No such run', '<p>A run link is <code>/runs/</code> and a run id of 10 letters and digits.</p>'));
      return true;
    }
    const wait = limiter.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      res.setHeader('retry-after', String(wait));
      sendHtml(res, 429, htmlPage('Too many requests', `<p>Try again in ${wait} s.</p>`));
      return true;
    }
    const code = `<code>/backtest rerun ${escapeHtml(id)}</code>`;
    if (!(await runs.exists(id))) {
      sendHtml(
        res,
        404,
        htmlPage(
          `No backtest run ${id}`,
          `<p>No run of this id is kept here. Run ids are those printed under a backtest answer; ${code} in the workspace it ran in repeats it.</p>`,
        ),
      );
      return true;
    }
    sendHtml(
      res,
      200,
      htmlPage(
        `Backtest run ${id}`,
        `<p>This backtest run exists. Its parameters and numbers belong to the workspace it ran in, so they are not shown on this page.</p>` +
          `<p>There, ${code} repeats it and says whether the data changed; in Slack, this link shared in a channel of that workspace unfolds into the run's parameters.</p>`,
      ),
    );
    return true;
  };
}
