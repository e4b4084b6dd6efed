// Meanings of follow-ups from the fourth blind held-out set (fixtures/benchmarks/conversations-heldout4.jsonl):
// "for every year since 2010" is a series, "the citywide rate" lets the ranking by place go, "as a
// percentage of all crimes (that year)" is the share of the thread's count. Pure tests of the reader.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { migrationsDir } from '../../src/core/paths.js';
import { parsePlan, type QueryPlan, type QueryPlanInput } from '../../src/plan/query-plan.js';
import { readInThread, type ReadContext } from '../../src/plan/reader.js';

const areas = new Map<string, number>();
for (const m of readFileSync(`${migrationsDir}/002_crimes.sql`, 'utf8').matchAll(/\((\d+), '((?:[^']|'')+)'\)/g)) {
  areas.set(m[2].replace(/''/g, "'").toLowerCase(), Number(m[1]));
}
const ctx: ReadContext = { latestDate: '2025-12-31', earliestDate: '2001-01-01', areas };

function thread(...texts: string[]): QueryPlan {
  let last: QueryPlan | undefined;
  for (const text of texts) {
    const r = readInThread(text, last, ctx);
    if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
    last = parsePlan(r.plan);
  }
  return last!;
}

function bare(plan: QueryPlanInput | Readonly<Record<string, unknown>>): QueryPlan {
  const p = parsePlan(structuredClone(plan) as QueryPlanInput);
  if (p.filters.time) delete p.filters.time.said;
  if (p.compareWith) delete p.compareWith.said;
  return p;
}

function expectEdit(last: QueryPlan, text: string, expected: QueryPlanInput | Readonly<Record<string, unknown>>) {
  const r = readInThread(text, last, ctx);
  if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
  expect(bare(r.plan), text).toEqual(bare(expected));
}

const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const since = (y: number) => ({ from: `${y}-01-01`, to: '2026-01-01' });
const arrestRate = { kind: 'share', part: { arrest: true } } as const;

describe('"every year" with a period: each year of it', () => {
  it('after an arrest rate in 2015, "show it for every year since 2010" is the rate for each year', () => {
    const last = thread('What was the arrest rate for narcotics cases in 2015?');
    const series = { measure: arrestRate, filters: { types: ['NARCOTICS'], time: since(2010) }, groupBy: ['year'] } as const;
    for (const text of [
      'Show it for every year since 2010.',
      'every year since 2010',
      'for each year since 2010',
      'year by year since 2010',
      'per year since 2010',
      'show every year since 2010',
    ])
      expectEdit(last, text, series);
  });

  it('"for all years" with no period still lets the year go', () => {
    const last = thread('What was the arrest rate for narcotics cases in 2015?');
    expectEdit(last, 'for all years', { measure: arrestRate, filters: { types: ['NARCOTICS'] } });
  });
});

describe('"citywide" after a ranking by place: one figure for the city', () => {
  const last = () => thread('What was the overall arrest rate in 2024?', 'Break it down by district.', 'Which district was lowest?');
  it('compared with another year, the grouping and its ranking let go', () => {
    const expected = { measure: arrestRate, filters: { time: Y(2024) }, compareWith: Y(2019) } as const;
    for (const text of [
      'How did the citywide rate compare with 2019?',
      'how did the rate for the whole city compare with 2019',
      'citywide compared with 2019',
    ])
      expectEdit(last(), text, expected);
  });
  it('"citywide" alone: the city\'s rate', () => {
    expectEdit(last(), 'and citywide?', { measure: arrestRate, filters: { time: Y(2024) } });
  });
  it('"all districts" after the lowest still lists every district', () => {
    expectEdit(last(), 'show all districts', { measure: arrestRate, filters: { time: Y(2024) }, groupBy: ['district'] });
  });
});

describe('"as a percentage of all crimes" of the thread\'s count', () => {
  it('arrests in 2022: the arrest rate that year, in several wordings', () => {
    const last = thread('How many crimes led to an arrest in 2022?');
    for (const text of [
      'What is that as a percentage of all crimes that year?',
      'show that as a share of all crimes in that year',
      "what's that as a percentage of all crimes",
      'as a percentage of all crimes the same year',
    ])
      expectEdit(last, text, { measure: arrestRate, filters: { time: Y(2022) } });
  });

  it('a burglary trend (even after its worst year): the burglary share of all crimes for each year', () => {
    const expected = {
      measure: { kind: 'share', part: { types: ['BURGLARY'] } },
      filters: { time: since(2015) },
      groupBy: ['year'],
    } as const;
    const series = thread('Give me the trend for burglaries since 2015.');
    for (const text of [
      'Show the trend as a percentage of all crimes.',
      'show that as a share of all crimes',
      'as a percentage of all crimes',
    ])
      expectEdit(series, text, expected);
    // after the worst year, "the trend" is the series again; "that" is still the worst year
    const worst = thread('Give me the trend for burglaries since 2015.', 'Which year was worst?');
    for (const text of ['Show the trend as a percentage of all crimes.', 'the trend as a share of all crimes'])
      expectEdit(worst, text, expected);
    expectEdit(worst, 'show that as a share of all crimes', { ...expected, top: { n: 1, order: 'desc' } });
  });

  it('the top 5 types in 2022: each type as a percentage of all crimes that year', () => {
    const last = thread('How many crimes were reported citywide in 2022?', 'What were the top 5 crime types?');
    for (const text of ['Show those as a percentage of all crimes that year.', 'show them as a percentage of all crimes'])
      expectEdit(last, text, {
        measure: { kind: 'count' },
        filters: { time: Y(2022) },
        groupBy: ['type'],
        top: { n: 5, order: 'desc' },
        ofTotal: true,
      });
  });

  it('"that year" in a question on its own (no thread) is not read as a period', () => {
    const r = readInThread('how many thefts were there that year?', undefined, ctx);
    expect(r.ok).toBe(false);
  });
});
