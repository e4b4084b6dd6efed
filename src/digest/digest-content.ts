// Which content a subscription gets: the crime digest, the accuracy digest,
// its saved question, or its backtest watch.
import type pg from 'pg';
import type { DataDesk } from '../agents/desk.js';
import type { BacktestDeps } from '../agents/backtest/agent.js';
import { accuracyDigest, backtestWatch, crimeDigest, questionDigest } from './content.js';
import type { DigestContent } from './scheduler.js';

export function digestContent(pool: pg.Pool, desk: DataDesk, backtest: BacktestDeps): DigestContent {
  return {
    async produce(sub, period) {
      if (sub.kind === 'question') return { answer: await questionDigest(desk, sub, period) };
      if (sub.kind === 'backtest') return backtestWatch(backtest, sub);
      if (sub.kind === 'accuracy') return { answer: await accuracyDigest(desk, pool, backtest.statementTimeoutMs, backtest.llm?.model) };
      return { answer: await crimeDigest(pool, period, sub.timezone) };
    },
  };
}
