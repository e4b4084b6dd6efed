// The three exchange tables of BacktestBench's schema, and how a CSV of daily
// bars maps onto them.
import { UserError } from '../../core/errors.js';
import { toCopyLine } from '../copy-text.js';
import type { CsvSource, RowResult } from '../csv-ingest.js';
import type { TableSpec } from '../table-spec.js';
import { FieldError, emptyToNull, isoDateField, numberField, textField } from '../field-parsers.js';

export const EXCHANGES = {
  shanghai: 'shanghai_stock_exchange',
  shenzhen: 'shenzhen_stock_exchange',
  beijing: 'beijing_stock_exchange',
} as const;
export type Exchange = keyof typeof EXCHANGES;

const ALIASES: Record<string, Exchange> = {
  shanghai: 'shanghai',
  sse: 'shanghai',
  sh: 'shanghai',
  shanghai_stock_exchange: 'shanghai',
  shenzhen: 'shenzhen',
  szse: 'shenzhen',
  sz: 'shenzhen',
  shenzhen_stock_exchange: 'shenzhen',
  beijing: 'beijing',
  bse: 'beijing',
  bj: 'beijing',
  beijing_stock_exchange: 'beijing',
};

export function parseExchange(name: string): Exchange {
  const exchange = ALIASES[name.trim().toLowerCase()];
  if (!exchange) throw new UserError(`Unknown exchange "${name}": expected shanghai (SSE), shenzhen (SZSE) or beijing (BSE)`);
  return exchange;
}

export const STOCK_COLUMNS = [
  'stock_code',
  'name',
  'short_name',
  'trade_date',
  'opening_price',
  'closing_price',
  'highest_price',
  'lowest_price',
  'volume_traded',
  'amount_traded',
  'change_amount',
  'percentage_change',
] as const;

const VALUE_COLUMNS = STOCK_COLUMNS.filter((c) => c !== 'stock_code' && c !== 'trade_date');

export function stockSpec(exchange: Exchange): TableSpec {
  const row = (alias: string) => `(${VALUE_COLUMNS.map((c) => `${alias}.${c}`).join(', ')})`;
  return {
    table: EXCHANGES[exchange],
    columns: STOCK_COLUMNS,
    key: ['stock_code', 'trade_date'],
    // Bars have no revision stamp: a re-delivered bar replaces the stored one only if it differs.
    replaceWhen: `${row('t')} IS DISTINCT FROM ${row('excluded')}`,
    latestFirst: '_line DESC',
    // the listings, and the market index kept daily beside backtests (migration 040)
    afterLoad: 'REFRESH MATERIALIZED VIEW stock_listings; SELECT market_index_refresh()',
  };
}

export function parseStockRow(f: string[]): RowResult {
  if (f.length !== STOCK_COLUMNS.length) return { reason: `expected ${STOCK_COLUMNS.length} fields, found ${f.length}` };
  try {
    const code = emptyToNull(f[0]);
    if (!code || !/^\d{6}$/.test(code)) throw new FieldError(`stock_code: "${f[0]}" is not a 6-digit code`);
    const name = textField('name', f[1]);
    if (!name) throw new FieldError('name is empty');
    const price = (i: number, label: string) => {
      const v = numberField(label, f[i], 0);
      if (v === null || v <= 0) throw new FieldError(`${label}: "${f[i]}" is not a positive price`);
      return v;
    };
    const open = price(4, 'opening_price');
    const close = price(5, 'closing_price');
    const high = price(6, 'highest_price');
    const low = price(7, 'lowest_price');
    if (high < Math.max(open, close) || low > Math.min(open, close)) {
      throw new FieldError(`prices inconsistent: high ${high} and low ${low} must bound open ${open} and close ${close}`);
    }
    return {
      values: toCopyLine([
        code,
        name,
        textField('short_name', f[2]),
        isoDateField('trade_date', f[3]),
        open,
        close,
        high,
        low,
        numberField('volume_traded', f[8], 0),
        numberField('amount_traded', f[9], 0),
        numberField('change_amount', f[10]),
        numberField('percentage_change', f[11]),
      ]),
    };
  } catch (error) {
    if (error instanceof FieldError) return { reason: error.message };
    throw error;
  }
}

export const stockCsvSource: CsvSource = { header: STOCK_COLUMNS, parseRow: parseStockRow };
