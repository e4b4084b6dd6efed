// "Download CSV" under a table answer: all rows of the answer's query, as a
// CSV file uploaded into the thread (files.uploadV2), under the same walls as
// the answer (see src/export/csv-export.ts). The button names the delivery the
// answer is kept on; only a click in that delivery's own channel is served.
// Acknowledged at once; the file follows (an export can take longer than
// Slack's 3 seconds).
import { bestEffort } from '../../../core/best-effort.js';
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../../core/logger.js';
import { describeError } from '../../../core/errors.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../../../db/errors.js';
import { csvExportBuffer, ExportRefused, ExportTooBig, exportSourceOf, type ExportSettings } from '../../../export/csv-export.js';
import type { Deliveries } from '../../../jobs/deliveries.js';
import { clickOf } from './click.js';

/** Slack takes files up to 1 GB; a chat thread is no place for more than this. */
const SLACK_EXPORT_BYTES = 100 * 1_048_576;

export function exportCsv(deps: { deliveries: Deliveries; exports: ExportSettings; logger: Logger }) {
  return async ({
    ack,
    body,
    action,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const click = clickOf(body, client, context);
    if (!click) return;
    const { channel, threadTs } = click;
    const say = (text: string) => bestEffort(click.say(text), 'answering a CSV click');
    void (async () => {
      const row = action.value ? await deps.deliveries.get(action.value) : undefined;
      if (!row?.answer) {
        await say('This answer can no longer be exported (answers are kept for 3 days). Ask the question again.');
        return;
      }
      // only the answer's own thread exports it: the same channel, in the same workspace (told which, nothing of it shown)
      if ((row.workspace ?? undefined) !== click.origin.workspace) {
        await say('This answer belongs to another workspace, so it cannot be exported here. Ask the question here to get its CSV.');
        return;
      }
      if (row.channel !== channel) {
        await say('This answer was given in another channel; use Download CSV under it there, or ask the question here.');
        return;
      }
      const source = exportSourceOf(row.answer);
      if (!source) {
        await say('This answer has no table to export.');
        return;
      }
      // a double click (or Slack's retry of the click) makes one file
      if (!(await deps.deliveries.claimExport(row.key, body.user.id))) {
        await say('That CSV is on its way: it was asked for a moment ago.');
        return;
      }
      const headline = row.answer.kind === 'result' ? row.answer.headline : 'answer';
      const name =
        headline
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')
          .slice(0, 60) || 'answer';
      const ticket = deps.exports.gate?.enter(`slack:${body.user.id}`) ?? { release: () => undefined };
      if ('busy' in ticket) {
        await say(`Busy: ${ticket.busy}. Try again in ${ticket.retryAfterS} s.`);
        return;
      }
      let csv: Buffer;
      try {
        csv = await csvExportBuffer(deps.exports, source, SLACK_EXPORT_BYTES);
      } finally {
        ticket.release();
      }
      const rows = Math.max(0, csv.toString('utf8').split('\n').length - 2);
      await client.files.uploadV2({
        channel_id: channel,
        thread_ts: threadTs,
        file: csv,
        filename: `datadesk-${name}.csv`,
        title: `${headline} (CSV)`,
        initial_comment: `<@${body.user.id}> the rows of this answer as CSV${source.kind === 'query' ? ` (at most ${deps.exports.rowLimit.toLocaleString('en-US')})` : ''}.`,
      });
      deps.logger.info(`slack: exported ${rows} rows of ${action.value} for ${body.user.id}`);
    })().catch(async (error) => {
      deps.logger.warn(`slack: export of ${action.value}: ${describeError(error)}`);
      if (error instanceof ExportRefused || error instanceof ExportTooBig) await say(`The CSV could not be made: ${error.message}.`);
      else if (isDatabaseUnavailable(error)) await say(DATABASE_UNAVAILABLE_MESSAGE);
      else await say('The CSV could not be made or uploaded this time; it has been logged. Please try again.');
    });
  };
}
