// One answer's rows as a CSV download over HTTP: the guard before the first
// byte (a refusal is an error page, never half a file: see prepareCsvExport),
// the headers (a file name from the headline, the row limit), then the stream.
// Used by the playground's link and by the link Teams cards carry.
import type http from 'node:http';
import type { Answer } from '../core/answer.js';
import type { Logger } from '../core/logger.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../db/errors.js';
import { WorkAbandonedError } from '../db/read-only.js';
import { ExportRefused, exportSourceOf, prepareCsvExport, type ExportSettings } from './csv-export.js';

const NOT_FOUND = 'There is no table to export for this answer (answers are kept for 3 days).';

function refuse(res: http.ServerResponse, status: number, error: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify({ error }));
}

/** `who`: the person asking (their address or link), for the per-person limit of the export gate. */
export async function sendCsvExport(
  res: http.ServerResponse,
  answer: Answer | null | undefined,
  settings: ExportSettings | undefined,
  logger: Logger,
  who = 'anyone',
): Promise<void> {
  const source = answer ? exportSourceOf(answer) : undefined;
  if (!answer || !source || !settings) return refuse(res, 404, NOT_FOUND);
  const name =
    answer.kind === 'result'
      ? answer.headline
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')
          .slice(0, 60)
      : '';
  const ticket = settings.gate?.enter(who) ?? { release: () => undefined };
  if ('busy' in ticket) {
    res.setHeader('retry-after', String(ticket.retryAfterS));
    return refuse(res, 429, `Busy: ${ticket.busy}. Try again in ${ticket.retryAfterS} s.`);
  }
  // a download whose client goes away stops its query, instead of running to the timeout
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    const write = await prepareCsvExport(settings, source, gone.signal);
    res.writeHead(200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="datadesk-${name || 'answer'}.csv"`,
      'cache-control': 'no-store',
      'x-row-limit': String(settings.rowLimit),
      'x-content-type-options': 'nosniff',
    });
    await write(res);
  } catch (error) {
    logger.warn(`export: ${(error as Error).message}`);
    if (res.headersSent) return void res.destroy(); // a cut-off download must not look complete
    if (error instanceof ExportRefused) return refuse(res, 422, error.message);
    if (isDatabaseUnavailable(error)) return refuse(res, 503, DATABASE_UNAVAILABLE_MESSAGE);
    if (error instanceof WorkAbandonedError) return;
    throw error;
  } finally {
    ticket.release();
  }
}
