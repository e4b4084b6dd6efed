// The exits, day rules, position sizing and portfolio of a spec in words, one assumption line
// each, so that an answer says every rule it applied and how it fills.
import type { StrategySpec } from './spec.js';

const pct = (f: number) => `${Number((f * 100).toFixed(4))}%`;
const yuan = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 2 });

export function rulesAssumptions(
  spec: Pick<StrategySpec, 'exits' | 'dayRules' | 'portfolio' | 'costs' | 'positionSize'> & Partial<Pick<StrategySpec, 'sizing'>>,
): string[] {
  const out: string[] = [];
  const e = spec.exits;
  if (e) {
    const levels = [
      e.stopLoss !== undefined ? `stop-loss ${pct(e.stopLoss)} below the average entry price` : '',
      e.takeProfit !== undefined ? `take-profit ${pct(e.takeProfit)} above it` : '',
      e.trailingStop !== undefined ? `trailing stop ${pct(e.trailingStop)} below the highest close since entry` : '',
    ].filter(Boolean);
    out.push(
      `exits: ${levels.join('; ')}; ` +
        (e.fill === 'intrabar'
          ? 'filled intrabar at the level, at the open when the day opens through it (a gap); a bar reaching both sides counts as the stop'
          : 'a close through the level sells at the next open') +
        '; from the day after the buy (T+1)',
    );
  }
  if (spec.dayRules?.limits && spec.costs !== 'china')
    out.push('price limits bind by direction: no buy at the limit-up price, no sale at the limit-down price; the order waits (no fees)');
  if (spec.dayRules?.volumeCap)
    out.push(
      `volume cap: an order fills at most ${pct(spec.dayRules.volumeCap)} of the day's volume (whole lots); the rest carries to the next day`,
    );
  const size = spec.positionSize;
  if (size?.invest !== undefined || size?.amount !== undefined)
    out.push(
      `position size: each entry buys for ${size.invest !== undefined ? `${pct(size.invest)} of the equity (all cash when flat)` : `${yuan(size.amount!)} yuan (at most the cash)`}` +
        `${spec.costs === 'china' ? ', fees included' : ''}, ${spec.sizing === 'shares' && spec.costs !== 'china' ? 'in shares (at least 100)' : 'in whole lots of 100 shares'}; the rest stays cash and earns nothing; buy and hold beside it is sized the same way`,
    );
  const p = spec.portfolio;
  if (p) {
    out.push(
      `portfolio: ${p.top ? `the ${p.top.n} tickers with the ${p.top.order} ${p.top.by.toLowerCase()} on the first day, equal weights` : p.weights ? `weights ${p.weights.join(' : ')}` : 'equal weights'}; ` +
        `rebalanced ${p.rebalance === 'none' ? 'only at the start' : `on the first trading day of each ${p.rebalance === 'monthly' ? 'month' : 'quarter'}`}` +
        `${p.drift !== undefined ? ` and when a weight drifts more than ${pct(p.drift)} from its target (at a close, acted on at the next open)` : ''}; ` +
        (p.amount !== undefined ? `${p.amount} yuan a member` : `${pct(p.invest)} of the equity invested`) +
        '; orders at the open, sales first and their cash spent the same day, shares bought today not sold today (T+1), whole lots of 100',
    );
  }
  return out;
}
