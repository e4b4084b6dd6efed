// Nothing said is ignored: the trader words of fixtures/backtest/trader-words.json
// found in a request, and those its reading did not apply, to be named in the
// answer ("I did not use: trailing stop (...)"), as the SQL side names what it
// did not use. Short selling is never applied: runs are long-only.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fixturePath } from '../../core/paths.js';
import type { StrategySpec } from '../../backtest/spec.js';

const wordsSchema = z.object({
  words: z.array(z.object({ id: z.string(), label: z.string(), pattern: z.string(), hint: z.string() })),
});
type Word = z.infer<typeof wordsSchema>['words'][number] & { re: RegExp };

let cached: Word[] | undefined;
function words(): Word[] {
  cached ??= wordsSchema
    .parse(JSON.parse(readFileSync(fixturePath('backtest', 'trader-words.json'), 'utf8')))
    .words.map((w) => ({ ...w, re: new RegExp(w.pattern, 'i') }));
  return cached;
}

/** Whether the spec applies what a word asks for. */
const APPLIED: Record<string, (s: StrategySpec) => boolean> = {
  stop_loss: (s) => s.exits?.stopLoss !== undefined,
  take_profit: (s) => s.exits?.takeProfit !== undefined,
  trailing_stop: (s) => s.exits?.trailingStop !== undefined,
  portfolio: (s) => !!s.portfolio,
  rebalance: (s) => !!s.portfolio && (s.portfolio.rebalance !== 'none' || s.portfolio.drift !== undefined),
  sizing: (s) => !!s.positionSize || (!!s.portfolio && (s.portfolio.invest < 1 || s.portfolio.amount !== undefined)),
  weights: (s) => !!s.portfolio?.weights,
  volume_cap: (s) => s.dayRules?.volumeCap !== undefined,
  limits: (s) => s.costs === 'china' || !!s.dayRules?.limits,
  tearsheet: (s) => !!s.tearsheet,
  // not available: always named when said
  leverage: () => false,
  time_stop: () => false,
  scaling: () => false,
  short: () => false,
};

/** The trader words in the text, by id. */
function traderWordsIn(text: string): string[] {
  return words()
    .filter((w) => w.re.test(text))
    .map((w) => w.id);
}

/** Does the text ask for short selling? */
export const asksForShort = (text: string) => traderWordsIn(text).includes('short');

export const SHORT_REFUSAL =
  'short selling is not backtested: A-share runs here are long-only (buy, then sell what is held), so "short ... cover ..." cannot be run as asked';

/** "I did not use: trailing stop (give it as a percentage ...)" for each word the spec does not apply; '' when none. */
export function notUsedLine(text: string, spec: StrategySpec): string {
  const missed = words().filter((w) => w.re.test(text) && !(APPLIED[w.id]?.(spec) ?? false));
  return missed.length ? `I did not use: ${missed.map((w) => `${w.label} (${w.hint})`).join('; ')}` : '';
}
