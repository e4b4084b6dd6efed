// A ranking's minimum as the user sets it (`min-days: 120`, `min-trades: 3`, anywhere in a request), and the
// candidate an answer headlines under it. The protocol's own ranking (result.ranking, what BacktestBench scores)
// is never changed: candidates below the minimum are only listed apart, and named as such.
import { DEFAULT_MINIMUM, honestRanking, type HonestRanking, type RankingMinimum } from '../../backtest/ranking.js';
import type { SpecResult } from '../../backtest/run-spec.js';
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

/** The candidate the answer headlines, and the ranking with its minimum (none for a single run). */
export function rankForAnswer(
  spec: StrategySpec,
  result: SpecResult,
  minimum: RankingMinimum,
): { winner: number; ranking?: HonestRanking } {
  if (spec.task === 'metrics') return { winner: result.ranking[0] };
  const ranking = honestRanking(
    result.ranking,
    (i) => ({ days: dayCount(result.candidates[i].ticker), trades: result.candidates[i].roundTrips }),
    minimum,
  );
  return { winner: ranking.ranked[0] ?? result.ranking[0], ranking };
}
