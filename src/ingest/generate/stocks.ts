// Synthetic daily A-share bars in BacktestBench's schema: real code ranges per
// exchange and board, English company names (the well-known tickers first),
// the exchanges' trading calendar, each board's daily price limit, GARCH(1,1)
// volatility clustering, and volume/amount consistent with price and moves.
// A quarter of the companies list during the window, as in the real market.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixturePath } from '../../core/paths.js';
import { UserError } from '../../core/errors.js';
import { EXCHANGES, STOCK_COLUMNS, type Exchange } from '../stocks/stock-table.js';
import { CsvWriter, csvField } from './csv-writer.js';
import { Random, WeightedChoice } from './random.js';
import { tradingDays } from './trading-calendar.js';

interface Board {
  exchange: Exchange;
  board: string;
  prefixes: string[];
  share: number;
  limit: number;
  volatility: number;
}
interface Boards {
  boards: Board[];
  stShare: number;
  stLimit: number;
  lateListingShare: number;
}
interface Companies {
  wellKnown: { code: string; name: string; shortName: string; startPrice: number }[];
  places: string[];
  cores: string[];
  industries: string[];
  suffixes: string[];
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(fixturePath('data', 'ashare', file), 'utf8')) as T;

interface Ticker {
  code: string;
  name: string;
  shortName: string;
  exchange: Exchange;
  limit: number;
  volatility: number;
  startPrice: number;
  /** index of the first trading day (0 unless the company lists during the window) */
  firstDay: number;
}

export interface StockGeneratorOptions {
  tickers: number;
  from: string;
  to: string;
  seed: number;
  outDir: string;
  onProgress?: (tickersDone: number, totalTickers: number) => void;
}

export interface StockGeneratorResult {
  files: Record<Exchange, string>;
  rows: Record<Exchange, number>;
  tradingDays: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function boardOf(code: string, boards: Board[]): Board | undefined {
  return boards.find((b) => b.prefixes.some((p) => code.startsWith(p)));
}

function makeTickers(count: number, days: number, random: Random): Ticker[] {
  const { boards, stShare, stLimit, lateListingShare } = readJson<Boards>('boards.json');
  const companies = readJson<Companies>('companies.json');
  const tickers: Ticker[] = [];
  const codes = new Set<string>();
  const names = new Set<string>();

  for (const known of companies.wellKnown.slice(0, count)) {
    const board = boardOf(known.code, boards)!;
    codes.add(known.code);
    names.add(known.name);
    tickers.push({
      code: known.code,
      name: known.name,
      shortName: known.shortName,
      exchange: board.exchange,
      limit: board.limit,
      volatility: board.volatility,
      startPrice: known.startPrice,
      firstDay: 0,
    });
  }
  const boardChoice = new WeightedChoice(boards.map((b) => b.share));
  while (tickers.length < count) {
    const board = boards[boardChoice.pick(random)];
    const prefix = board.prefixes[random.int(0, board.prefixes.length - 1)];
    const code = prefix + String(random.int(0, 10 ** (6 - prefix.length) - 1)).padStart(6 - prefix.length, '0');
    if (codes.has(code)) continue;
    const place = companies.places[random.int(0, companies.places.length - 1)];
    const core = companies.cores[random.int(0, companies.cores.length - 1)];
    const industry = companies.industries[random.int(0, companies.industries.length - 1)];
    const suffix = companies.suffixes[random.int(0, companies.suffixes.length - 1)];
    const st = board.limit === 0.1 && random.chance(stShare);
    let name = `${place} ${core} ${industry} ${suffix}`;
    for (let n = 2; names.has(name); n++) name = `${place} ${core} ${industry} (No. ${n}) ${suffix}`;
    codes.add(code);
    names.add(name);
    tickers.push({
      code,
      name,
      shortName: `${st ? 'ST ' : ''}${core} ${industry}`,
      exchange: board.exchange,
      limit: st ? stLimit : board.limit,
      volatility: board.volatility * (0.7 + 0.6 * random.next()),
      startPrice: round2(Math.max(2, Math.exp(Math.log(12) + 0.8 * random.normal()))),
      firstDay: random.chance(lateListingShare) ? random.int(1, Math.max(1, days - 60)) : 0,
    });
  }
  return tickers;
}

/** One ticker's bars as CSV lines, day by day. */
function* barsFor(t: Ticker, days: string[], random: Random): Generator<string> {
  const name = csvField(t.name);
  const shortName = csvField(t.shortName);
  const dailyVar = t.volatility ** 2;
  // GARCH(1,1): variance reverts to dailyVar; alpha + beta < 1.
  const alpha = 0.08;
  const beta = 0.9;
  const omega = dailyVar * (1 - alpha - beta);
  let variance = dailyVar;
  let prevClose = t.startPrice;
  let lastReturn = 0;
  const baseVolume = Math.exp(Math.log(8e6) + 0.9 * random.normal()) * (12 / Math.max(2, t.startPrice)) ** 0.5;
  for (let i = t.firstDay; i < days.length; i++) {
    variance = omega + alpha * lastReturn ** 2 + beta * variance;
    const sigma = Math.sqrt(variance);
    const up = round2(prevClose * (1 + t.limit));
    const down = Math.max(0.01, round2(prevClose * (1 - t.limit)));
    const fat = random.chance(0.05) ? 2.5 : 1;
    const close = Math.min(up, Math.max(down, round2(prevClose * (1 + 0.0002 + sigma * fat * random.normal()))));
    const open = Math.min(up, Math.max(down, round2(prevClose * (1 + 0.35 * sigma * random.normal()))));
    const high = Math.min(up, round2(Math.max(open, close) * (1 + Math.abs(0.45 * sigma * random.normal()))));
    const low = Math.max(down, round2(Math.min(open, close) * (1 - Math.abs(0.45 * sigma * random.normal()))));
    const change = round2(close - prevClose);
    const pct = Math.round((change / prevClose) * 1e6) / 1e4;
    lastReturn = close / prevClose - 1;
    const volume = Math.round((baseVolume * Math.exp(0.35 * random.normal()) * (1 + 12 * Math.abs(lastReturn))) / 100) * 100;
    const amount = round2((volume * (open + high + low + close)) / 4);
    yield `${t.code},${name},${shortName},${days[i]},${open},${close},${high},${low},${volume},${amount},${change},${pct}`;
    prevClose = close;
  }
}

export async function generateStocks(options: StockGeneratorOptions): Promise<StockGeneratorResult> {
  const days = tradingDays(options.from, options.to);
  if (days.length === 0) throw new UserError(`No trading days between ${options.from} and ${options.to}`);
  const random = new Random(options.seed);
  const tickers = makeTickers(options.tickers, days.length, random);
  const exchanges = Object.keys(EXCHANGES) as Exchange[];
  const files = Object.fromEntries(exchanges.map((e) => [e, path.join(options.outDir, `${EXCHANGES[e]}.csv`)])) as Record<Exchange, string>;
  const writers = Object.fromEntries(exchanges.map((e) => [e, new CsvWriter(files[e], STOCK_COLUMNS)])) as Record<Exchange, CsvWriter>;
  let done = 0;
  for (const ticker of tickers) {
    // Each ticker draws from its own stream, so adding tickers never changes the others' bars.
    const own = new Random(options.seed * 1_000_003 + Number(ticker.code));
    for (const line of barsFor(ticker, days, own)) await writers[ticker.exchange].line(line);
    if (++done % 50 === 0) options.onProgress?.(done, tickers.length);
  }
  for (const w of Object.values(writers)) await w.close();
  options.onProgress?.(done, tickers.length);
  return {
    files,
    rows: Object.fromEntries(exchanges.map((e) => [e, writers[e].rows])) as Record<Exchange, number>,
    tradingDays: days.length,
  };
}
