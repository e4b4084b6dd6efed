// GET /exports/<token>.csv: the rows of an answer whose card carries this
// link (Teams), by the delivery's unguessable token; see src/export/.
import type { Logger } from '../core/logger.js';
import type { ExportSettings } from '../export/csv-export.js';
import { sendCsvExport } from '../export/csv-response.js';
import type { Deliveries } from '../jobs/deliveries.js';
import type { Route } from './http-server.js';

export const exportLink = (baseUrl: string, token: string) => `${baseUrl}/exports/${token}.csv`;

export function exportRoutes(deliveries: Deliveries, settings: ExportSettings, logger: Logger): Route {
  return async (req, res) => {
    const match = /^\/exports\/([0-9a-f]{32})\.csv$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'GET' || !match) return false;
    const row = await deliveries.byExportToken(match[1]);
    await sendCsvExport(res, row?.answer, settings, logger);
    return true;
  };
}
