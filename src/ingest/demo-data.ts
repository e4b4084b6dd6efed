// The demo set that `npm start` loads on a fresh machine: synthetic crimes and
// A-share bars, generated and loaded through the same code as real files, once.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../config/env.js';
import type { Logger } from '../core/logger.js';
import { ingestCsv } from './csv-ingest.js';
import { CRIMES_SPEC } from './crimes/crime-table.js';
import { portalCsvSource } from './crimes/portal-csv.js';
import { generateCrimes } from './generate/crimes.js';
import { generateStocks } from './generate/stocks.js';
import { EXCHANGES, stockCsvSource, stockSpec, type Exchange } from './stocks/stock-table.js';
import { tablesChangedByLoad } from '../db/rollups.js';

const DEMO_WINDOW = { from: '2020-01-02', to: '2025-09-30' };
const DEMO_SEED = 20_010_101;

async function isEmpty(pool: pg.Pool, table: string): Promise<boolean> {
  const { rowCount } = await pool.query(`SELECT 1 FROM ${table} LIMIT 1`);
  return rowCount === 0;
}

/** Loads whichever half of the demo set is missing; returns what it loaded. */
export async function ensureDemoData(pool: pg.Pool, config: Config, logger: Logger): Promise<string[]> {
  const dir = path.resolve(config.home, 'demo');
  mkdirSync(dir, { recursive: true });
  const loaded: string[] = [];
  const percent = (label: string) => {
    let last = -1;
    return (done: number, total: number) => {
      const p = Math.floor((100 * done) / total / 10) * 10;
      if (p !== last) logger.info(`  ${label}: ${p}%`);
      last = p;
    };
  };

  if (await interrupted(pool, 'crimes')) {
    logger.warn('Demo data: the last start was stopped while it loaded the demo crimes; loading them again, whole');
    await pool.query('TRUNCATE crimes');
  }
  if (await isEmpty(pool, 'crimes')) {
    await markSynthetic(pool, 'crimes', false);
    logger.info(`Demo data: generating ${config.demoCrimeRows.toLocaleString('en-US')} synthetic Chicago crimes (first start only)...`);
    const file = path.join(dir, 'crimes.csv');
    await generateCrimes({ rows: config.demoCrimeRows, seed: DEMO_SEED, out: file, onProgress: percent('generate') });
    const summary = await ingestCsv({
      pool,
      file,
      spec: CRIMES_SPEC,
      source: portalCsvSource,
      rejectsPath: `${file}.rejects.csv`,
      onProgress: percent('load'),
    });
    rmSync(file);
    await pool.query(`VACUUM (ANALYZE) ${tablesChangedByLoad('crimes').join(', ')}`);
    await markSynthetic(pool, 'crimes', true);
    loaded.push(`${summary.inserted.toLocaleString('en-US')} crimes`);
  }

  const stockTables = Object.values(EXCHANGES);
  if (await interrupted(pool, 'stocks')) {
    logger.warn('Demo data: the last start was stopped while it loaded the demo bars; loading them again, whole');
    await pool.query(`TRUNCATE ${stockTables.join(', ')}`);
  }
  const stocksEmpty = (await Promise.all(stockTables.map((t) => isEmpty(pool, t)))).every(Boolean);
  if (stocksEmpty) {
    await markSynthetic(pool, 'stocks', false);
    logger.info(`Demo data: generating ${config.demoTickers} synthetic A-share tickers, ${DEMO_WINDOW.from} to ${DEMO_WINDOW.to}...`);
    const generated = await generateStocks({ tickers: config.demoTickers, ...DEMO_WINDOW, seed: DEMO_SEED, outDir: dir });
    let bars = 0;
    for (const exchange of Object.keys(EXCHANGES) as Exchange[]) {
      const file = generated.files[exchange];
      const summary = await ingestCsv({
        pool,
        file,
        spec: stockSpec(exchange),
        source: stockCsvSource,
        rejectsPath: `${file}.rejects.csv`,
      });
      bars += summary.inserted;
      rmSync(file);
      await pool.query(`VACUUM (ANALYZE) ${EXCHANGES[exchange]}`);
    }
    await markSynthetic(pool, 'stocks', true);
    loaded.push(`${bars.toLocaleString('en-US')} daily bars of ${config.demoTickers} tickers`);
  }
  return loaded;
}

/**
 * Remembers that a dataset holds generated rows, so that every page that shows it can say so (see
 * freshness.ts), and whether their load finished: marked unfinished before the first row goes in, finished
 * after the last, so a load stopped in between (Ctrl-C on the first start) is found and redone whole.
 */
async function markSynthetic(pool: pg.Pool, dataset: 'crimes' | 'stocks', complete: boolean): Promise<void> {
  await pool.query(
    `INSERT INTO ingest_state (source, cursor) VALUES ($1, jsonb_build_object('synthetic', true, 'complete', $2::boolean))
     ON CONFLICT (source) DO UPDATE SET cursor = excluded.cursor`,
    [`demo:${dataset}`, complete],
  );
}

/** A demo load that was started and never finished (an older marker has no "complete": it was written after the load). */
async function interrupted(pool: pg.Pool, dataset: 'crimes' | 'stocks'): Promise<boolean> {
  const { rows } = await pool.query<{ cursor: { complete?: boolean } }>('SELECT cursor FROM ingest_state WHERE source = $1', [
    `demo:${dataset}`,
  ]);
  return rows[0]?.cursor?.complete === false;
}
