// link_shared: a backtest run's link (`${PUBLIC_BASE_URL}/runs/<ID>`, the id
// under a backtest answer) posted in Slack unfurls into a card of the run's
// parameters and KPIs (chat.unfurl), for the workspace that owns the run only:
// runs are kept per workspace (backtest/run-id.ts), and a link to another
// workspace's run (or none) is left as Slack shows it, with nothing said.
// Slack sends the event only for the domains in the manifest's unfurl_domains.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { runIdOfPath, type BacktestRuns, type StoredRun } from '../../../backtest/run-id.js';
import { KPI_NAMES } from '../../../backtest/kpis.js';
import { ALL_TICKERS } from '../../../backtest/spec.js';
import { specToSyntax } from '../../../backtest/spec-to-syntax.js';
import { fmtKpi, KPI_LABELS } from '../../../agents/backtest/narrate.js';
import { describeError } from '../../../core/errors.js';
import type { Logger } from '../../../core/logger.js';
import { scopeOf } from '../../../knowledge/scope.js';
import { cutText, escapeMrkdwn } from '../render-blocks.js';
import type { Block } from '../block-types.js';

/** Slack unfurls at most this many links of one message with cards (the rest stay as they are). */
const MAX_UNFURLS = 5;

// verbatim: the request and labels are the asker's words; Slack would otherwise turn URLs and #names into links
const field = (label: string, value: string) => ({
  type: 'mrkdwn',
  text: `*${label}*\n${cutText(escapeMrkdwn(value), 1_900)}`,
  verbatim: true,
});

/** The run's tickers as named, at most 20 of them. */
function tickersOf(run: StoredRun): string {
  const t = run.spec.tickers;
  if (t.includes(ALL_TICKERS)) return 'all tickers';
  return t.length > 20 ? `${t.slice(0, 20).join(', ')} and ${t.length - 20} more` : t.join(', ');
}

/** The window the run read: as asked, else the first and last day of its bars. */
function windowOf(run: StoredRun): string {
  const firsts = run.data_summary.map((s) => s.first).filter(Boolean);
  const lasts = run.data_summary.map((s) => s.last).filter(Boolean);
  const from = run.spec.start ?? firsts.sort()[0] ?? 'the first bar';
  const to = run.spec.end ?? lasts.sort().at(-1) ?? 'the last bar';
  return `${from} to ${to}`;
}

/** A run's unfurl card: what was asked and read, the window, tickers, engine, when, and the best candidate's KPIs. */
function runUnfurlBlocks(run: StoredRun): Block[] {
  let asRead: string;
  try {
    asRead = specToSyntax(run.spec);
  } catch {
    asRead = '';
  }
  const kpis = KPI_NAMES.map((k) =>
    field(`${KPI_LABELS[k]}${k === run.spec.kpi ? ' (ranked by)' : ''}`, fmtKpi(k, run.best.kpis[k] ?? null)),
  );
  return [
    { type: 'header', text: { type: 'plain_text', text: `Backtest run ${run.id}` } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Asked:* ${cutText(escapeMrkdwn(run.request), 2_800)}`, verbatim: true },
    },
    ...(asRead
      ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: `Read as: ${cutText(escapeMrkdwn(asRead), 2_900)}`, verbatim: true }] }]
      : []),
    {
      type: 'section',
      fields: [
        field('Window', windowOf(run)),
        field('Tickers', tickersOf(run)),
        field('Engine', run.engine),
        field('Run on', run.created_at.toISOString().slice(0, 10)),
        field('Best', run.best.label),
      ],
    },
    { type: 'section', fields: kpis },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: cutText(`${escapeMrkdwn(run.headline)} · \`/backtest rerun ${run.id}\` repeats it and says if the data changed.`, 2_900),
          verbatim: true,
        },
      ],
    },
  ];
}

export function linkShared(deps: { runs: Pick<BacktestRuns, 'get'>; publicHost?: string; logger: Logger }) {
  return async ({ event, client, context }: SlackEventMiddlewareArgs<'link_shared'> & AllMiddlewareArgs): Promise<void> => {
    if (!deps.publicHost) return;
    const workspace = scopeOf('slack', context.teamId);
    const unfurls: Record<string, { blocks: Block[] }> = {};
    for (const link of event.links.slice(0, MAX_UNFURLS * 2)) {
      let url: URL;
      try {
        url = new URL(link.url);
      } catch {
        continue;
      }
      const id = url.host.toLowerCase() === deps.publicHost ? runIdOfPath(url.pathname) : undefined;
      if (!id || Object.keys(unfurls).length >= MAX_UNFURLS) continue;
      // the run as kept in this workspace: another workspace's run is not found, and nothing is said of it
      const run = await deps.runs.get(id, workspace);
      if (run) unfurls[link.url] = { blocks: runUnfurlBlocks(run) };
    }
    if (!Object.keys(unfurls).length) return;
    // a link typed in the composer (before it is posted) is named by its unfurl id and source, a posted one by its message
    const target =
      event.source === 'composer' && event.unfurl_id
        ? { unfurl_id: event.unfurl_id, source: event.source }
        : { channel: event.channel, ts: event.message_ts };
    try {
      await client.chat.unfurl({ ...target, unfurls } as Parameters<typeof client.chat.unfurl>[0]);
    } catch (error) {
      // acknowledged all the same: Slack retrying the event would not make the card fit
      deps.logger.warn(`slack: chat.unfurl of ${Object.keys(unfurls).join(', ')} failed: ${describeError(error)}`);
    }
  };
}
