import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerBacktest, type BacktestDeps } from '../../../src/agents/backtest/agent.js';
import { compileExpression, toSignal, type Bars } from '../../../src/backtest/expr/compile.js';
import { computeKpis } from '../../../src/backtest/kpis.js';
import { simulate } from '../../../src/backtest/simulator.js';
import type { Answer } from '../../../src/core/answer.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadStocks } from '../../helpers/stock-data.js';

let db: TestDatabase;
let deps: BacktestDeps;
beforeAll(async () => {
  db = await createTestDatabase();
  await loadStocks(db.pool, 20);
  deps = { pool: db.pool, statementTimeoutMs: 10_000, logger: createMemoryLogger() };
});
afterAll(async () => db?.drop());

const result = (a: Answer) => {
  if (a.kind !== 'result') throw new Error(`expected a result, got ${a.kind}: ${JSON.stringify(a)}`);
  return a;
};

async function bars(code: string, from: string, to: string): Promise<{ dates: string[]; bars: Bars }> {
  const { rows } = await db.pool.query(
    `SELECT trade_date, opening_price, closing_price FROM shanghai_stock_exchange WHERE stock_code = $1 AND trade_date BETWEEN $2 AND $3 ORDER BY trade_date`,
    [code, from, to],
  );
  const col = (c: string) => Float64Array.from(rows.map((r) => Number(r[c])));
  const n = rows.length;
  const empty = new Float64Array(n).fill(NaN);
  return {
    dates: rows.map((r) => r.trade_date),
    bars: {
      OPEN: col('opening_price'),
      CLOSE: col('closing_price'),
      HIGH: empty,
      LOW: empty,
      VOLUME: empty,
      AMOUNT: empty,
      PERCENTAGE_CHANGE: empty,
    },
  };
}

describe('backtest agent, rule syntax against PostgreSQL', () => {
  it("metrics: the answer carries the engine's exact KPIs, the SQL, trades and an equity chart", async () => {
    const a = result(
      await answerBacktest('600519 2022-01-01..2023-12-31 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 kpi: sharpe', deps),
    );
    // the same run, built by hand from the bars and the written-out short codes
    const { dates, bars: b } = await bars('600519', '2022-01-01', '2023-12-31');
    const buy = toSignal(
      compileExpression(
        'MA(DELAY(CLOSE,1),5) > MA(DELAY(CLOSE,1),20) && DELAY(MA(DELAY(CLOSE,1),5),1) <= DELAY(MA(DELAY(CLOSE,1),20),1)',
      ).evaluate(b, dates.length),
    );
    const sell = toSignal(
      compileExpression('SMA(MAX(DELAY(CLOSE,1)-DELAY(CLOSE,2),0),14,1)/SMA(ABS(DELAY(CLOSE,1)-DELAY(CLOSE,2)),14,1)*100 > 70').evaluate(
        b,
        dates.length,
      ),
    );
    const sim = simulate({ dates, open: b.OPEN, close: b.CLOSE, buy, sell });
    const kpis = computeKpis(sim);
    expect(a.headline).toBe(`600519 Kweichow Moutai Co., Ltd.: Sharpe ${kpis.sharpe_ratio!.toFixed(2)}`);
    expect(a.table!.rows[0][4]).toBe(kpis.sharpe_ratio!.toFixed(2));
    expect(a.extraTables[0].table.rowCount).toBe(sim.trades.length);
    expect(a.sql).toEqual([
      "SELECT trade_date, opening_price, closing_price\nFROM shanghai_stock_exchange\nWHERE stock_code = '600519'\n  AND trade_date >= '2022-01-01'\n  AND trade_date <= '2023-12-31'\nORDER BY trade_date",
    ]);
    expect(a.chart!.series.map((s) => s.name)).toEqual(['Strategy equity', 'Buy and hold', 'Market (equal weight)', 'Drawdown %']);
    expect(a.chart!.labels).toEqual(dates);
    expect(a.chart!.series[0].values.at(-1)).toBe(Math.round(sim.equity.at(-1)!));
    expect(a.trace.map((t) => t.node)).toEqual(['parse', 'retrieve', 'simulate', 'narrate']);
  });

  it('costs: china answers with both KPI sets, what the costs took, and the model in its assumptions; the trades pay their fees', async () => {
    const text = '600519 2022..2023 buy: MA(5) crosses above MA(20) sell: RSI(14) > 70 costs: china';
    const a = result(await answerBacktest(text, deps));
    const free = result(await answerBacktest(text.replace(' costs: china', ''), deps));
    const both = a.extraTables[0];
    expect(both.title).toBe('600519: with and without costs');
    expect(both.table.columns).toEqual(['KPI', 'With A-share costs', 'Without costs (protocol)']);
    // the protocol column is the zero-cost answer's own KPI row
    const freeRow = free.table!.rows[0];
    expect(both.table.rows.slice(0, 7).map((r) => r[2])).toEqual(freeRow.slice(1, 8));
    expect(both.table.rows.slice(0, 7).map((r) => r[1])).toEqual(a.table!.rows[0].slice(1, 8));
    const took =
      /Costs took ([\d,.]+) yuan \(([\d.]+)% of the capital\) over (\d+) orders?: commission ([\d,.]+), stamp duty ([\d,.]+), transfer fee ([\d,.]+), slippage ([\d,.]+)\./.exec(
        a.narration,
      );
    expect(took, a.narration).not.toBeNull();
    const [total, , orders, commission, stamp, transfer, slippage] = took!.slice(1).map((x) => Number(x.replace(/,/g, '')));
    expect(total).toBeCloseTo(commission + stamp + transfer + slippage, 2);
    const trades = a.extraTables[1].table;
    expect(trades.columns.at(-1)).toBe('P&L after costs (yuan)');
    expect(orders).toBe(2 * trades.rowCount);
    // a commission of at least 5 yuan an order
    expect(commission).toBeGreaterThanOrEqual(5 * orders);
    expect(
      a.assumptions.some((x) =>
        x.startsWith('execution: A-share costs and rules (costs: china): commission 0.025% a side, at least 5.00 yuan an order'),
      ),
    ).toBe(true);
    expect(a.assumptions.join(' ')).toMatch(/stamp duty on sells 0\.1% from 2008-09-19, then 0\.05% from 2023-08-28/);
    expect(a.chart!.title).toContain('(A-share costs)');
    // no kpi: given: the headline says Sharpe is the default
    expect(a.headline).toMatch(
      /^600519 Kweichow Moutai Co\., Ltd\.: Sharpe -?[\d.]+, with A-share costs \(the default KPI; kpi: chooses another\)$/,
    );
    expect(free.assumptions).toContain('execution: buy at the open, sell at the close, no same-day round trip, zero costs (the protocol)');
  });

  it('"with costs" in words runs the china model (no LLM needed)', async () => {
    const a = result(
      await answerBacktest('backtest 600519 in 2023 buying when RSI is below 30 and selling when RSI is above 70, with costs', deps),
    );
    expect(a.extraTables[0].title).toMatch(/with and without costs$/);
    expect(a.assumptions).toContain('costs: china (A-share commission, stamp duty, transfer fee and price limits)');
  });

  it('walk-forward: the pick made on the first 70% is run on the rest, in a table and a sentence', async () => {
    const a = result(
      await answerBacktest('600519 2020..2023 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70 kpi: sharpe walk-forward: 70%', deps),
    );
    const wf = a.extraTables[0];
    expect(wf.title).toBe('Walk-forward: picked in sample, run out of sample');
    expect(wf.table.rows.map((r) => String(r[0]).replace(' (picked)', ''))).toEqual(['RSI.n = 6', 'RSI.n = 14', 'RSI.n = 24']);
    expect(wf.table.rows.filter((r) => String(r[0]).endsWith('(picked)'))).toHaveLength(1);
    expect(a.narration).toMatch(
      /Walk-forward: picked on 2020-\d\d-\d\d to 20\d\d-\d\d-\d\d \(\d+ days\), RSI\.n = \d+ had Sharpe .* on the \d+ days after/,
    );
  });

  it('ticker selection ranks the tickers and names the best', async () => {
    const a = result(await answerBacktest('compare 000001,600036,601318 2021 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: return', deps));
    expect(a.table!.rows).toHaveLength(3);
    const returns = a.table!.rows.map((r) => parseFloat(String(r[1])));
    expect([...returns].sort((x, y) => y - x)).toEqual(returns);
    // the headline's winner is the best by return that beat holding its own stock (the market table's row); the
    // best by return that did not is named beside it; the table stays in the KPI's order
    const m = /^Best ticker by Return( that beat holding the stock)?: (.+?) \((-?[\d.]+%)(?: against (-?[\d.]+%) held)?\)/.exec(
      a.headline,
    )!;
    const at = a.table!.rows.findIndex((r) => r[0] === m[2]);
    expect(a.table!.rows[at][1]).toBe(m[3]);
    const hold = String(a.extraTables.find((t) => t.title.endsWith('against the market'))!.table.rows[1][1]);
    if (m[1]) {
      expect(m[4]).toBe(hold);
      expect(parseFloat(m[3])).toBeGreaterThan(parseFloat(hold));
      if (at > 0)
        expect(a.headline).toContain(`; ${a.table!.rows[0][0]} ranks first by return (${a.table!.rows[0][1]}) but holding it returned `);
      else expect(a.headline).not.toContain('ranks first');
    } else {
      expect(at).toBe(0);
      expect(a.headline).toContain(
        `; none of the 3 ranked beat holding its own stock (this one returned ${m[3]} against ${hold} for holding it)`,
      );
    }
    expect(a.sql).toHaveLength(3);
  });

  it('compare all: the whole market (bulk COPY fetch) ranks exactly as the same tickers fetched one by one', async () => {
    const all = result(await answerBacktest('compare all 2021 buy: RSI(14) < 40 sell: RSI(14) > 60 kpi: sharpe', deps));
    const { rows } = await db.pool.query('SELECT stock_code FROM stock_listings ORDER BY stock_code');
    expect(rows).toHaveLength(20);
    const listed = result(
      await answerBacktest(
        `compare ${rows.map((r) => r.stock_code).join(',')} 2021 buy: RSI(14) < 40 sell: RSI(14) > 60 kpi: sharpe`,
        deps,
      ),
    );
    expect(all.table!.rowCount).toBeGreaterThan(10);
    // tickers listed after 2021 are left out of "all" (and named in a note); the rest rank identically
    const shared = listed.table!.rows.filter((r) => all.table!.rows.some((x) => x[0] === r[0]));
    expect(all.table!.rows).toEqual(shared);
    expect(all.notes.join(' ')).toMatch(
      all.table!.rowCount === 20 ? /20 candidates compared/ : /tickers left out: fewer than 2 trading days in the window/,
    );
    expect(all.sql[0]).toMatch(
      /^SELECT stock_code, trade_date, opening_price, closing_price\nFROM (shanghai|shenzhen|beijing)_stock_exchange\nWHERE trade_date >= '2021-01-01'\n  AND trade_date <= '2021-12-31'\nORDER BY stock_code, trade_date$/,
    );
  });

  it('parameter confirmation tries each value', async () => {
    const a = result(await answerBacktest('600519 2020..2022 buy: RSI(6|14|24) < 30 sell: RSI(6|14|24) > 70 kpi: sharpe', deps));
    expect(a.table!.rows.map((r) => r[0]).sort()).toEqual(['RSI.n = 14', 'RSI.n = 24', 'RSI.n = 6']);
    expect(a.headline).toMatch(/^Best parameter by Sharpe( that beat holding the stock)?: RSI\.n = (6|14|24) \(/);
  });

  it('a grid of two parameters answers with its heat map, the grid as a table, and the best pair against its neighbours', async () => {
    const a = result(
      await answerBacktest('600519 2020..2022 buy: RSI(6..24 step 6) < 20..40 step 10 sell: RSI(6..24 step 6) > 70 kpi: sharpe', deps),
    );
    expect(a.table!.rowCount).toBe(12);
    expect(a.headline).toMatch(
      /^Best pair of parameters by Sharpe( that beat holding the stock)?: RSI\.n = (6|12|18|24), buy threshold = (20|30|40) \(-?\d+\.\d\d(; -?[\d.]+% against -?[\d.]+% held)?\)(; none of the 12 ranked beat holding the stock \(.+\)|; RSI.n = .+ ranks first by Sharpe .+)?$/,
    );
    expect(a.chart).toMatchObject({
      kind: 'heatmap',
      labels: ['6', '12', '18', '24'],
      xLabel: 'RSI.n',
      yLabel: 'buy threshold',
      best: 'high',
    });
    expect(a.chart!.series.map((s) => s.name)).toEqual(['20', '30', '40']);
    const grid = a.extraTables.find((t) => t.title === 'Sharpe of every pair')!.table;
    expect(grid.columns).toEqual(['RSI.n \\ buy threshold', '20', '30', '40']);
    // every cell of the table, of the heat map and of the ranking says the same number
    for (const row of a.table!.rows) {
      const [, n, t] = /^RSI\.n = (\d+), buy threshold = (\d+)$/.exec(String(row[0]))!.map(Number);
      const i = [6, 12, 18, 24].indexOf(n);
      const j = [20, 30, 40].indexOf(t);
      // a pair that never traded is 'no trades' in the grid and empty on the heat map, not a number
      const never = row[8] === 0;
      expect(grid.rows[i][j + 1]).toBe(never ? 'no trades' : row[4]);
      const cell = a.chart!.series[j].values[i];
      expect(cell === null ? 'n/a' : cell.toFixed(2)).toBe(never ? 'n/a' : row[4]);
    }
    expect(a.narration).toMatch(
      /The grid has 4 × 3 = 12 pairs( \([^)]*: left out of the medians\))?\. The \d pairs? around the best that traded ha(s|ve) a median Sharpe of /,
    );
  });

  it('strategy selection compares A and B', async () => {
    const a = result(
      await answerBacktest(
        '600519 2023 strategy A buy: RSI_OVERSOLD sell: RSI_OVERBOUGHT strategy B buy: MACD_CROSS_UP sell: MACD_CROSS_DOWN kpi: drawdown',
        deps,
      ),
    );
    expect(a.table!.rows.map((r) => r[0]).sort()).toEqual(['strategy A', 'strategy B']);
    const dd = a.table!.rows.map((r) => parseFloat(String(r[2])));
    expect(dd[0]).toBeLessThanOrEqual(dd[1]); // drawdown: lowest is best
  });

  it('finds a ticker by company name', async () => {
    const a = result(await answerBacktest('"Kweichow Moutai" 2024 buy: MACD_CROSS_UP kpi: return', deps));
    expect(a.headline).toMatch(/^600519 Kweichow Moutai/);
    expect(a.assumptions).toContain('strategy A has no sell rule: it holds until the last day');
  });

  it.each([
    [
      '999999 2021 buy: RSI(14) < 30',
      'Unknown ticker 999999: no bars for that code on the Shanghai, Shenzhen or Beijing exchange in our data.',
    ],
    [
      '600519 2030 buy: RSI(14) < 30',
      '600519 Kweichow Moutai Co., Ltd. has no trading days from 2030-01-01 to 2030-12-31 (its data covers 2020-01-02 to 2025-09-30).',
    ],
    [
      '600519 2024-09-30..2024-09-30 buy: RSI(14) < 30',
      '600519 Kweichow Moutai Co., Ltd. has only 1 trading day from 2024-09-30 to 2024-09-30: too few to backtest.',
    ],
    [
      '600519,600036 2021 buy: RSI(14) < 30 strategy B buy: RSI(14) < 20',
      'This backtest cannot run as asked: strategy selection runs on one ticker; 2 were given.',
    ],
  ])('says exactly what is wrong: %s', async (request, message) => {
    const a = await answerBacktest(request, deps);
    expect(a).toMatchObject({ kind: 'error', message, retryable: false });
  });

  it('a syntax error says where and what, then one line of the right form (not the whole help)', async () => {
    const a = await answerBacktest('600519 2021 buy: RSX(14) < 30', deps);
    expect(a.kind === 'error' && a.message).toBe(
      'I could not read that rule: unknown factor "RSX"; closest: RSI, PSY, ROC (at position 18: "RSX(14) < 30").\n' +
        'The right form: buy: RSI(14) < 30 and MA(5) crosses above MA(20) (a factor with its parameters, a comparison, conditions joined with and) (/backtest help: examples)',
    );
    const kpi = await answerBacktest('600519 2021 buy: RSI(14) < 30 kpi: alpha', deps);
    expect(kpi.kind === 'error' && kpi.message.split('\n')).toEqual([
      expect.stringMatching(/^I could not read that rule: .*alpha.* \(at position \d+: "/),
      'The right form: kpi: sharpe (or return, drawdown, volatility, winrate, plr, calmar) (/backtest help: examples)',
    ]);
  });
});

describe('backtest agent, words without an LLM', () => {
  it('runs a request it can read exactly, saying what it assumed', async () => {
    const a = result(await answerBacktest('backtest 600519 in 2023: buy when RSI is oversold, sell when RSI is overbought', deps));
    expect(a.narration).toContain('buying when RSI(14) < 30 and selling when RSI(14) > 70');
    expect(a.assumptions).toEqual(
      expect.arrayContaining(['buy: RSI below 30: oversold (library rule RSI_OVERSOLD)', 'kpi: sharpe ratio (not named)']),
    );
  });

  it('refuses to guess a number it cannot place, offering its reading as a rule line', async () => {
    const a = await answerBacktest('buy 600519 when RSI drops under 25 and sell when RSI is overbought', deps);
    expect(a.kind).toBe('refusal');
    expect(a.kind === 'refusal' && a.reason).toContain('the number 25: without an LLM I cannot tell what it sets');
    expect(a.kind === 'refusal' && a.alternatives[0]).toBe(
      'Send the corrected line: /backtest 600519 buy: RSI(14) < 30 sell: RSI(14) > 70 kpi: sharpe',
    );
  });

  it('says what is missing', async () => {
    const a = await answerBacktest('what would a clever strategy have earned?', deps);
    expect(a.kind === 'refusal' && a.reason).toMatch(
      /I am missing a ticker \(its 6-digit code, e\.g\. 600519\); a buy condition naming an indicator I know/,
    );
    const b = await answerBacktest('600519 with a momentum strategy, sell when it looks weak', deps);
    expect(b.kind === 'refusal' && b.reason).toContain('I am missing the sell condition: I could not match it to an indicator');
  });

  it('refuses short selling plainly, never as a long rule, and offers the long form to write', async () => {
    const a = await answerBacktest('short 600519 when RSI above 70 and cover when RSI below 30 in 2021', deps);
    expect(a.kind).toBe('refusal');
    if (a.kind !== 'refusal') return;
    expect(a.reason).toMatch(/^Short selling is not backtested: A-share runs here are long-only/);
    expect(a.reason).not.toMatch(/I am missing/);
    expect(a.alternatives).toEqual(['Write the long side instead: /backtest 600519 buy: ... sell: ...']);
  });
});
