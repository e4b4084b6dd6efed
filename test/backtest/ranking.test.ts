import { describe, expect, it } from 'vitest';
import { bestIndex, rankIndices } from '../../src/backtest/ranking.js';

describe('best candidate: direction, ties, nulls', () => {
  it('maximises return, Sharpe, win rate, P/L and Calmar; minimises drawdown and volatility', () => {
    for (const kpi of ['return_ratio', 'sharpe_ratio', 'win_rate', 'profit_loss_ratio', 'calmar_ratio'] as const) {
      expect(bestIndex([0.1, 0.3, 0.2], kpi)).toBe(1);
    }
    for (const kpi of ['max_drawdown', 'volatility'] as const) expect(bestIndex([0.1, 0.3, 0.05], kpi)).toBe(2);
  });

  it('gives ties to the first candidate as listed', () => {
    expect(bestIndex([0.2, 0.5, 0.5], 'sharpe_ratio')).toBe(1);
    expect(bestIndex([0.2, 0.1, 0.1], 'max_drawdown')).toBe(1);
    expect(rankIndices([0.5, 0.2, 0.5, 0.2], 'return_ratio')).toEqual([0, 2, 1, 3]);
  });

  it('ranks a null KPI last, even for minimised KPIs', () => {
    expect(bestIndex([null, -1, null], 'sharpe_ratio')).toBe(1);
    expect(rankIndices([null, 0.3, null, 0.1], 'volatility')).toEqual([3, 1, 0, 2]);
    expect(bestIndex([null, null], 'calmar_ratio')).toBe(-1);
  });
});
