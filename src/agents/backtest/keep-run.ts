// A run kept so that `rerun ID` repeats it: the single-run agent and the
// portfolio answer keep theirs the same way. The id covers the spec, the engine
// and every bar that fed the answer (the run's tickers and the market index
// beside them). Keeping is best effort: a run that could not be kept still
// answers, and the log says it cannot be rerun.
import { describeError } from '../../core/errors.js';
import type { MarketIndex } from '../../backtest/benchmark.js';
import { dataVersion, engineVersion, runId, withMarket, type StoredRun, type TickerSummary } from '../../backtest/run-id.js';
import type { TickerBars } from '../../backtest/run-spec.js';
import type { BacktestDeps } from './backtest-deps.js';

export interface KeptRun {
  id: string;
  engine: string;
  summary: TickerSummary[];
}

export async function keepRun(
  deps: BacktestDeps,
  data: { tickers: readonly TickerBars[]; market?: MarketIndex },
  run: Pick<StoredRun, 'request' | 'spec' | 'headline' | 'best'>,
): Promise<KeptRun> {
  const engine = engineVersion(run.spec);
  const version = withMarket(dataVersion(data.tickers), data.market);
  const id = runId(run.spec, engine, version.digest);
  await deps.runs
    ?.save({ ...run, id, engine, data_digest: version.digest, data_summary: version.summary }, deps.workspace)
    .catch((error) => deps.logger.warn(`backtest: run ${id} could not be kept (${describeError(error)}); it cannot be rerun by its id`));
  return { id, engine, summary: version.summary };
}
