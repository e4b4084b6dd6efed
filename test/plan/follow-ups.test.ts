// The follow-ups offered under an answer are questions the bot then answers:
// each one, clicked (the button carries its plan) or typed in the thread,
// gives a result whose "understood as" line changed as the button said, never
// a refusal or an error; clicked after other questions, it still edits the
// answer it sits under.
import { describe, expect, it } from 'vitest';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { suggestFollowUps } from '../../src/plan/follow-ups.js';
import { parsePlan, type QueryPlan, type QueryPlanInput } from '../../src/plan/query-plan.js';

const data = crimeDatabase(6_000);

const QUESTIONS = [
  'How many thefts were reported in 2019?',
  'Which blocks had the most burglaries?',
  'How many robberies were there each year?',
  'How many crimes happened in Austin?',
  'Which districts had the most narcotics cases in 2018?',
];

describe('suggested follow-ups', () => {
  it('every suggestion, asked in the thread, is answered (and changes what was understood)', async () => {
    const { desk } = testDesk(data.db);
    let offered = 0;
    for (const [i, question] of QUESTIONS.entries()) {
      const first = await desk.answer({ platform: 'cli', threadId: `f${i}`, text: question });
      expect(first.kind, question).toBe('result');
      if (first.kind !== 'result') continue;
      expect(first.followUps?.length, question).toBeGreaterThanOrEqual(1);
      for (const [j, followUp] of first.followUps!.entries()) {
        offered++;
        // each suggestion in a thread of its own that starts with the same question
        const thread = `f${i}-${j}`;
        await desk.answer({ platform: 'cli', threadId: thread, text: question });
        const typed = await desk.answer({ platform: 'cli', threadId: thread, text: followUp.label });
        expect(typed.kind, `${question} -> ${followUp.label}: ${JSON.stringify(typed).slice(0, 300)}`).toBe('result');
        if (typed.kind !== 'result') continue;
        expect(typed.understood, `${question} -> ${followUp.label}`).not.toEqual(first.understood);
        // the click, after an unrelated question in the same thread: the same answer as typed right under it
        await desk.answer({ platform: 'cli', threadId: thread, text: 'How many homicides were there in 2015?' });
        const clicked = await desk.answer({ platform: 'cli', threadId: thread, text: followUp.label, plan: followUp.plan });
        expect(clicked.kind === 'result' && clicked.understood, `${question} -> ${followUp.label} (clicked)`).toEqual(typed.understood);
        expect(clicked.kind === 'result' && clicked.table?.rows).toEqual(typed.table?.rows);
      }
    }
    expect(offered).toBeGreaterThanOrEqual(8);
  });
});

describe('the follow-ups offered fit the answer they sit under', () => {
  const ctx = { latestDate: '2025-12-31', earliestDate: '2001-01-01', areas: new Map<string, number>() };
  const y = (n: number) => ({ from: `${n}-01-01`, to: `${n + 1}-01-01` });
  /** the buttons' labels, and each one's plan as the answer's plan with the one slot it names changed */
  const offered = (input: QueryPlanInput) => {
    const plan = parsePlan(input);
    const strip = (p: QueryPlan) => JSON.parse(JSON.stringify(p, (k, v) => (k === 'said' ? undefined : v))) as QueryPlan;
    return Object.fromEntries(suggestFollowUps(plan, ctx).map((f) => [f.label, strip(f.plan)]));
  };
  const thefts2019 = { measure: { kind: 'count' }, filters: { types: ['THEFT'], time: y(2019) } } as const;

  it('after a by-month answer: the year before, month by month; never "by month" again', () => {
    const byMonth = parsePlan({ ...thefts2019, groupBy: ['month'] });
    const got = offered(byMonth);
    expect(Object.keys(got)).toContain('compare with 2018');
    expect(Object.keys(got)).not.toContain('by month');
    expect(got['compare with 2018']).toEqual({ ...byMonth, compareWith: y(2018) });
  });

  it('after a top 5: the same top 5 against the year before, and the other end', () => {
    const top5 = parsePlan({ measure: { kind: 'count' }, filters: { time: y(2019) }, groupBy: ['type'], top: { n: 5, order: 'desc' } });
    const got = offered(top5);
    expect(got['compare with 2018']).toEqual({ ...top5, compareWith: y(2018) });
    expect(got['bottom 5']).toEqual({ ...top5, top: { n: 5, order: 'asc' } });
    expect(Object.keys(got)).not.toContain('top 10');
  });

  it('after a comparison: month by month, or only arrests, both still compared; never a second comparison', () => {
    const compared = parsePlan({ ...thefts2019, compareWith: y(2018) });
    const got = offered(compared);
    expect(got['by month']).toEqual({ ...compared, groupBy: ['month'] });
    expect(got['only arrests']).toEqual({ ...compared, filters: { ...compared.filters, arrest: true } });
    expect(Object.keys(got).some((l) => l.startsWith('compare'))).toBe(false);
  });

  it('after a month: the same month a year before', () => {
    const april = parsePlan({ ...thefts2019, filters: { types: ['THEFT'], time: { from: '2019-04-01', to: '2019-05-01' } } });
    expect(offered(april)['compare with April 2018']).toEqual({ ...april, compareWith: { from: '2018-04-01', to: '2018-05-01' } });
  });
});
