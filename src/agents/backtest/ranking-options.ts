// A ranking's minimum as the user sets it (`min-days: 120`, `min-trades: 3`, anywhere in a request), and the
// candidate an answer headlines under it: the best with a record that also beat holding its own stock. The
// protocol's own ranking (result.ranking, what BacktestBench scores) is never changed: candidates below the
// minimum are only listed apart, and named as such.
import { DEFAULT_MINIMUM, honestRanking, type HonestRanking, type RankingMinimum } from '../../backtest/ranking.js';
import { buyAndHold, type SpecResult } from '../../backtest/run-spec.js';
import type { StrategySpec } from '../../backtest/spec.js';
import { dayCount } from '../../backtest/bar-cache.js';

const OPTION = /\bmin[-_]?(days|history|trades):\s*(\d{1,5})\b/gi;

export interface RankingOptions {
  /** the request without the options (what the rule syntax or the reader reads) */
  text: string;
  minimum: RankingMinimum;
  /** the options as given, for the assumptions */
  given: string[];
}

export function readRankingOptions(text: string): RankingOptions {
  const minimum = { ...DEFAULT_MINIMUM };
  const given: string[] = [];
  const rest = text.replace(OPTION, (_all, what: string, n: string) => {
    const value = Number(n);
    if (what.toLowerCase() === 'trades') minimum.trades = value;
    else minimum.days = value;
    given.push(`min-${what.toLowerCase() === 'trades' ? 'trades' : 'days'}: ${value}`);
    return ' ';
  });
  return { text: given.length ? rest.replace(/\s{2,}/g, ' ').trim() : text, minimum, given };
}

/** A candidate's return against holding its own stock over the same days, with the same sizing and costs. */
interface AgainstHold {
  index: number;
  return: number;
  hold: number;
}

/** How the headlined winner stands against buy and hold (a comparison only). */
export interface HoldVerdict {
  /** the winner beat holding its stock; false: no ranked candidate did (the winner is then the best by the KPI) */
  beat: boolean;
  /** the candidates ranked */
  ranked: number;
  /** the best by the KPI, when it did not beat its own buy and hold and another candidate heads the answer */
  passedOver?: AgainstHold;
  /** how many ranked above the winner (each lost to its hold) */
  above?: number;
}

/**
 * The candidate the answer headlines, and the ranking with its minimum (none for a single run): the best by the KPI
 * among those with a record that also beat holding its own stock over the same days; when none did, the best by
 * the KPI, and the verdict says so. The ranking itself stays in the KPI's order.
 */
export function rankForAnswer(
  spec: StrategySpec,
  result: SpecResult,
  minimum: RankingMinimum,
): { winner: number; ranking?: HonestRanking; hold?: HoldVerdict } {
  if (spec.task === 'metrics') return { winner: result.ranking[0] };
  const ranking = honestRanking(
    result.ranking,
    (i) => ({ days: dayCount(result.candidates[i].ticker), trades: result.candidates[i].roundTrips }),
    minimum,
  );
  const pool = ranking.ranked.length ? ranking.ranked : result.ranking;
  const against = (index: number): AgainstHold => {
    const c = result.candidates[index];
    const equity = buyAndHold(c.ticker, spec);
    return { index, return: c.kpis.return_ratio ?? 0, hold: equity[equity.length - 1] / equity[0] - 1 };
  };
  // in the KPI's order, the first that beat its hold; a KPI that is undefined for a candidate ends the search
  for (let k = 0; k < pool.length; k++) {
    const index = pool[k];
    if (result.candidates[index].kpis[spec.kpi] === null) break;
    const a = against(index);
    if (a.return > a.hold) {
      const passed = k > 0 ? { passedOver: against(pool[0]), above: k } : {};
      return { winner: index, ranking, hold: { beat: true, ranked: pool.length, ...passed } };
    }
  }
  return { winner: pool[0], ranking, hold: { beat: false, ranked: pool.length } };
}
