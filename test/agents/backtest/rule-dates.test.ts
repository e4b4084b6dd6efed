// Every A-share rule applies from its start date, and the answer says so when a window begins before it.
import { describe, expect, it } from 'vitest';
import { executionLine } from '../../../src/agents/backtest/narrate.js';
import type { Candidate } from '../../../src/backtest/run-spec.js';

const settings = { capital: 1_000_000, sizing: 'lots' as const, costs: 'china' as const };
const run = (code: string, first: string, last: string) =>
  ({ ticker: { code, name: code, dates: [first, last], bars: {} }, simulation: { equity: [], trades: [] } }) as unknown as Candidate;

describe('rules by their start dates', () => {
  it('a Beijing ticker in 2021: no price limit before 2021-11-15 is said', () => {
    expect(executionLine(settings, run('830001', '2021-01-04', '2021-12-31'))).toMatch(
      /; Beijing Stock Exchange: no price limit before 2021-11-15$/,
    );
  });

  it('a window from 2007: stamp duty and transfer fee counted as zero before their start, said', () => {
    const line = executionLine(settings, run('600001', '2007-01-04', '2016-12-30'));
    expect(line).toContain('stamp duty counted as zero before 2008-09-19');
    expect(line).toContain('transfer fee counted as zero before 2015-08-01');
    // the main board's limit has been there since 1996: nothing to say
    expect(line).not.toContain('no price limit');
  });

  it('a window after every start date says none of it', () => {
    expect(executionLine(settings, run('830001', '2022-01-04', '2022-12-30'))).not.toMatch(/counted as zero|no price limit/);
  });
});
