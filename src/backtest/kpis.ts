// The seven KPIs of BACKTEST_PROTOCOL.md, as plain numbers; undefined ones are
// null (never NaN or Infinity).
import type { SimulationResult } from './simulator.js';

export const KPI_NAMES = [
  'return_ratio',
  'max_drawdown',
  'volatility',
  'sharpe_ratio',
  'win_rate',
  'profit_loss_ratio',
  'calmar_ratio',
] as const;
export type KpiName = (typeof KPI_NAMES)[number];
export type Kpis = Record<KpiName, number | null>;

/** The KPI of a request that names none: one for a single run, a grid and a scan alike (the answer says so). */
export const DEFAULT_KPI: KpiName = 'sharpe_ratio';

/** Daily risk-free rate of the Sharpe ratio (and of alpha against the market), and the trading days of a year. */
export const RISK_FREE_DAILY = 0.0001;
export const DAYS_PER_YEAR = 252;

const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

function meanOf(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample standard deviation (ddof = 1), two-pass. */
function sampleStd(xs: number[]): number {
  const m = meanOf(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

function dailyReturns(equity: number[]): number[] {
  const r: number[] = [];
  for (let i = 1; i < equity.length; i++) r.push(equity[i] / equity[i - 1] - 1);
  return r;
}

function maxDrawdown(equity: number[]): number {
  let peak = -Infinity;
  let worst = 0;
  for (const e of equity) {
    if (e > peak) peak = e;
    const dd = (peak - e) / peak;
    if (dd > worst) worst = dd;
  }
  return worst;
}

export function computeKpis({ equity, trades }: SimulationResult): Kpis {
  const c0 = equity[0];
  const n = equity.length - 1;
  const r = dailyReturns(equity);
  const returnRatio = equity[n] / c0 - 1;
  const mdd = maxDrawdown(equity);
  const std = n >= 2 ? sampleStd(r) : NaN;
  const volatility = n >= 2 ? std * Math.sqrt(DAYS_PER_YEAR) : NaN;
  const sharpe = n >= 2 && std !== 0 ? ((meanOf(r) - RISK_FREE_DAILY) / std) * Math.sqrt(DAYS_PER_YEAR) : NaN;
  const wins = trades.filter((t) => t.pnl > 0);
  const losses = trades.filter((t) => t.pnl < 0);
  const winRate = trades.length ? wins.length / trades.length : NaN;
  const plRatio = wins.length && losses.length ? meanOf(wins.map((t) => t.pnl)) / Math.abs(meanOf(losses.map((t) => t.pnl))) : NaN;
  const annualReturn = n > 0 ? (equity[n] / c0) ** (DAYS_PER_YEAR / n) - 1 : NaN;
  const calmar = mdd !== 0 ? annualReturn / mdd : NaN;
  return {
    return_ratio: finiteOrNull(returnRatio),
    max_drawdown: finiteOrNull(mdd),
    volatility: finiteOrNull(volatility),
    sharpe_ratio: finiteOrNull(sharpe),
    win_rate: finiteOrNull(winRate),
    profit_loss_ratio: finiteOrNull(plRatio),
    calmar_ratio: finiteOrNull(calmar),
  };
}
