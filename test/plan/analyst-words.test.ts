// An analyst's SQL and stats words (fixtures/knowledge/phrasebook-analyst.json) read as the plan's own: "group by",
// "sort desc", "limit 5", "n", "filter to", "arrest = true", "swap X for Y", "raw counts", "rerun for 2018". A
// year-over-year change per year is not in the plan language: refused, never read as another measure.
import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../src/plan/query-plan.js';
import { readInThread, readQuestion } from '../../src/plan/reader.js';
import { threadReader } from '../helpers/reader.js';

const { ctx, thread, expectEdit, bare } = threadReader('2025-12-31', { asEdit: true });

function plan(text: string) {
  const r = readQuestion(text, ctx);
  if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
  return bare(parsePlan(r.plan));
}
const thefts2022 = { from: '2022-01-01', to: '2023-01-01' };

describe('grouping and order', () => {
  it.each([
    'Count of THEFT rows for 2022, group by district, sort desc.',
    'thefts in 2022 grouped by district, sort desc',
    'n of thefts for 2022 pivot by district order by n desc',
    'theft counts 2022 group by district order by count desc',
  ])('%s: thefts in 2022 by district, the most first', (text) => {
    const p = plan(text);
    expect(p.filters.types).toEqual(['THEFT']);
    expect(p.filters.time).toEqual(thefts2022);
    expect(p.groupBy).toEqual(['district']);
    expect(p.order).toBe('measure');
  });

  it.each(['robberies in 2022 by ward sort asc', 'robberies in 2022 group by ward, order by n asc', 'robberies 2022 grouped by ward asc'])(
    '%s: the fewest first',
    (text) => expect(plan(text).order).toBe('measure_asc'),
  );

  it.each([
    ['burglaries in 2021 by district, limit 3', 3],
    ['For 2021 burglaries, group by district, top 3 by n.', 3],
    ['burglaries 2021 group by district sort desc limit 7', 7],
  ])('%s: the top N', (text, n) => expect(plan(text).top).toEqual({ n, order: 'desc' }));

  it('"limit 5" and "bottom 5 by n" edit the ranking of the thread', () => {
    const last = thread('Count of THEFT rows for 2022, group by district, sort desc.');
    expectEdit(last, 'limit 5', { ...last, top: { n: 5, order: 'desc' } });
    const top5 = thread('thefts in 2022 by district, top 5');
    expectEdit(top5, 'now the bottom 5 by n', { ...top5, top: { n: 5, order: 'asc' } });
  });
});

describe('filters', () => {
  const last = () => thread('thefts in 2022 by month');
  it.each(['filter to arrest = true', 'filter on arrest = true', 'arrest = true only'])('%s: only with an arrest', (text) =>
    expectEdit(last(), text, { ...last(), filters: { ...last().filters, arrest: true } }),
  );
  it.each(['filter to arrest = false', 'arrest = false'])('%s: only without an arrest (the negation kept)', (text) =>
    expectEdit(last(), text, { ...last(), filters: { ...last().filters, arrest: false } }),
  );
  it('domestic = false is not domestic', () => expect(plan('how many thefts in 2020 with domestic = false').filters.domestic).toBe(false));
  it.each(['filter to district 8', 'filtered to district 8'])('%s: a place filter', (text) =>
    expectEdit(last(), text, { ...last(), filters: { ...last().filters, districts: [8] } }),
  );
});

describe('replacing and re-running', () => {
  const rate = () => thread('Arrest rate for THEFT in 2019 group by ward, sort desc, top 10.');
  it.each(['swap THEFT for BATTERY', 'swap theft for battery', 'replace theft with battery', 'swap out theft for battery'])(
    '%s: batteries instead of thefts',
    (text) => expectEdit(rate(), text, { ...rate(), filters: { ...rate().filters, types: ['BATTERY'] } }),
  );
  it.each(['rerun for 2018', 'rerun it for 2018', 'run it again for 2018', 're-run for 2018'])('%s: the same for 2018', (text) => {
    const last = thread('burglaries in 2023 by location, top 5');
    expectEdit(last, text, { ...last, filters: { ...last.filters, time: { from: '2018-01-01', to: '2019-01-01' } } });
  });
  it.each([
    'switch the metric to raw n per ward, still top 10',
    'switch the metric to raw counts per ward',
    'change the metric to raw n per ward, top 10',
  ])('%s: the count instead of the rate', (text) => expectEdit(rate(), text, { ...rate(), measure: { kind: 'count' } }));
  it('"add 2020 as a second column" puts 2020 beside the thread\'s year', () => {
    const last = thread('Motor vehicle theft in 2021, pivot by month.');
    expectEdit(last, 'add 2020 as a second column', { ...last, compareWith: { from: '2020-01-01', to: '2021-01-01' } });
  });
});

describe('what the plan cannot say stays refused', () => {
  it.each(['add YoY % change', 'same YoY for ROBBERY', 'show YoY growth'])('%s', (text) => {
    const last = thread('Battery counts by year, 2015 through 2020.');
    expect(readInThread(text, last, ctx).ok).toBe(false);
  });
});
