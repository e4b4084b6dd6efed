// A ticker comparison over different windows is not like for like: the
// tickers that cover less (listed later, ended earlier, long suspensions) are
// named beside the ranking.
import { describe, expect, it } from 'vitest';
import { unevenWindows } from '../../../src/agents/backtest/narrate.js';

const days = (from: string, n: number, skip = 0) =>
  Array.from({ length: n }, (_, i) =>
    new Date(Date.parse(`${from}T00:00:00Z`) + (i + (i >= n / 2 ? skip : 0)) * 86_400_000).toISOString().slice(0, 10),
  );

describe('unevenWindows', () => {
  it('says nothing when every ticker covers the same days', () => {
    expect(
      unevenWindows([
        { name: 'Co', bars: {} as never, code: 'A', dates: days('2021-01-01', 100) },
        { name: 'Co', bars: {} as never, code: 'B', dates: days('2021-01-01', 100) },
      ]),
    ).toBe('');
    expect(unevenWindows([{ name: 'Co', bars: {} as never, code: 'A', dates: days('2021-01-01', 100) }])).toBe('');
  });

  it('names a late listing, an early end and a long suspension, with the common window', () => {
    const full = days('2021-01-01', 100);
    const text = unevenWindows([
      { name: 'Co', bars: {} as never, code: '600519', dates: full },
      { name: 'Co', bars: {} as never, code: '688981', dates: full.slice(30) },
      { name: 'Co', bars: {} as never, code: '000001', dates: full.slice(0, 90) },
      // the same first and last day, 20 days missing in the middle
      { name: 'Co', bars: {} as never, code: '600036', dates: [...full.slice(0, 40), ...full.slice(60)] },
    ]);
    expect(text).toBe(
      `Not a like-for-like comparison: 3 of 4 tickers cover less than 2021-01-01 to ${full.at(-1)} (100 trading days): ` +
        `688981 starts ${full[30]}; 000001 ends ${full[89]}; 600036 20 fewer trading days (suspended). Their KPIs are over their own, shorter windows.`,
    );
  });

  it('names five and counts the rest in a whole-market comparison', () => {
    const full = days('2021-01-01', 50);
    const late = Array.from({ length: 8 }, (_, i) => ({ name: 'Co', bars: {} as never, code: `30000${i}`, dates: full.slice(10) }));
    expect(unevenWindows([{ name: 'Co', bars: {} as never, code: 'A', dates: full }, ...late])).toMatch(
      /: 8 of 9 tickers cover less .*; and 3 more\. Their KPIs/,
    );
  });
});
