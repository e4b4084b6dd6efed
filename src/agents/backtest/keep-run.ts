// A run kept so that `rerun ID` repeats it: the single-run agent and the
// portfolio answer keep theirs the same way. Keeping is best effort: a run
// that could not be kept still answers, and the log says it cannot be rerun.
import { describeError } from '../../core/errors.js';
import type { StoredRun } from '../../backtest/run-id.js';
import type { BacktestDeps } from './backtest-deps.js';

export async function keepRun(deps: BacktestDeps, run: Omit<StoredRun, 'created_at'>): Promise<void> {
  await deps.runs
    ?.save(run, deps.workspace)
    .catch((error) =>
      deps.logger.warn(`backtest: run ${run.id} could not be kept (${describeError(error)}); it cannot be rerun by its id`),
    );
}
