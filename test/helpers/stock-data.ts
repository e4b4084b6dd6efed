// Loads a small synthetic A-share set into a test database through the real
// generator and ingest path (20 tickers over the full window by default).
import type pg from 'pg';
import { generateStocks } from '../../src/ingest/generate/stocks.js';
import { ingestCsv } from '../../src/ingest/csv-ingest.js';
import { EXCHANGES, stockCsvSource, stockSpec, type Exchange } from '../../src/ingest/stocks/stock-table.js';
import { tempDir } from './files.js';

export async function loadStocks(pool: pg.Pool, tickers = 20, from = '2020-01-02', to = '2025-09-30', seed = 11): Promise<void> {
  const tmp = tempDir();
  try {
    const generated = await generateStocks({ tickers, from, to, seed, outDir: tmp.dir });
    for (const exchange of Object.keys(EXCHANGES) as Exchange[]) {
      await ingestCsv({
        pool,
        file: generated.files[exchange],
        spec: stockSpec(exchange),
        source: stockCsvSource,
        rejectsPath: tmp.file(`${exchange}.rejects`),
      });
    }
  } finally {
    tmp.remove();
  }
}
