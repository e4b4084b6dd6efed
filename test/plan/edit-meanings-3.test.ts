// Edits that mean what a person means, from the wrong answers of the sixth blind held-out set
// (fixtures/benchmarks/conversations-heldout6.jsonl): a share of the flag the thread filters to is of every
// incident (not 100%); "add 2013" / "2013 too" sets a second period beside the first; "only incidents with an
// arrest" keeps the crime type; "all crime types, which five had the fewest?" ranks the last answer's groups.
// Pure tests of the reader, each in several wordings.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread, expectEdit } = threadReader('2025-12-31', { asEdit: true });

const COUNT = { kind: 'count' } as const;
const Y = (y: number) => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });

describe('a share of the flag the last answer filters to', () => {
  it('"how much percent is arrest?" after narcotics arrests: the arrest share of every narcotics offense', () => {
    const last = thread('How many arrests for narcotics in 2010?');
    const expected = { measure: { kind: 'share', part: { arrest: true } }, filters: { types: ['NARCOTICS'], time: Y(2010) } } as const;
    for (const text of ['how much percent is arrest?', 'what share had an arrest', 'what percentage of them were arrests?'])
      expectEdit(last, text, expected);
  });

  it('"what share was domestic?" after domestic batteries: of every battery', () => {
    const last = thread('domestic batteries in 2020');
    const expected = { measure: { kind: 'share', part: { domestic: true } }, filters: { types: ['BATTERY'], time: Y(2020) } } as const;
    for (const text of ['what share was domestic?', 'what percent were domestic', 'as a percentage domestic'])
      expectEdit(last, text, expected);
  });
});

describe('a period added, not put in place of the last', () => {
  it('"add 2013" after assaults in 2023 by district: 2023 beside 2013, by district', () => {
    const last = thread('assault 2023 by district');
    const expected = {
      measure: COUNT,
      filters: { types: ['ASSAULT'], time: Y(2023) },
      groupBy: ['district'],
      compareWith: Y(2013),
    } as const;
    for (const text of ['add 2013', '2013 too', '2013 as well', 'also 2013']) expectEdit(last, text, expected);
    // "and 2013?" still replaces it
    expectEdit(last, 'and 2013?', { measure: COUNT, filters: { types: ['ASSAULT'], time: Y(2013) }, groupBy: ['district'] });
  });

  it('a later year added to one year: the later one first, the earlier beside it', () => {
    const last = thread('thefts in 2022');
    for (const text of ['2023 too', 'add 2023', 'also 2023'])
      expectEdit(last, text, { measure: COUNT, filters: { types: ['THEFT'], time: Y(2023) }, compareWith: Y(2022) });
  });

  it('a year added to a series by year: the stretch runs on', () => {
    const last = thread('battery by year 2015 through 2020');
    for (const text of ['add 2021', '2021 too', '2021 as well'])
      expectEdit(last, text, {
        measure: COUNT,
        filters: { types: ['BATTERY'], time: { from: '2015-01-01', to: '2022-01-01' } },
        groupBy: ['year'],
      });
  });
});

describe('a plain "incidents" a flag is said of keeps the crime type', () => {
  it('"Only incidents with an arrest." after thefts in district 18 by location: thefts with an arrest', () => {
    const last = thread('For the 18th District, what were the top five location types for theft in 2021?');
    const base = { types: ['THEFT'], time: Y(2021), districts: [18] };
    const ranked = { groupBy: ['location'], top: { n: 5, order: 'desc' } } as const;
    for (const text of ['Only incidents with an arrest.', 'just the cases with an arrest', 'only crimes where someone was arrested'])
      expectEdit(last, text, { measure: COUNT, filters: { ...base, arrest: true }, ...ranked });
    expectEdit(last, 'only domestic incidents', { measure: COUNT, filters: { ...base, domestic: true }, ...ranked });
    // "all incidents" still lets the type go
    expectEdit(last, 'what about all incidents?', { measure: COUNT, filters: { time: Y(2021), districts: [18] }, ...ranked });
  });
});

describe('"all crime types" in one clause, a ranking of the last groups in another', () => {
  it('"Going back to all crime types, which five had the fewest?" after the top 5 wards for assaults: the 5 wards with the fewest crimes', () => {
    const last = thread('which ward had the most assaults in 2025', 'top 5');
    const fewest = { measure: COUNT, filters: { time: Y(2025) }, groupBy: ['ward'], top: { n: 5, order: 'asc' } } as const;
    for (const text of [
      'Going back to all crime types, which five had the fewest?',
      'all crime types, which five had the fewest?',
      'across all types: the 5 with the fewest',
    ])
      expectEdit(last, text, fewest);
    // a ranking said of the types themselves ranks the types
    expectEdit(last, 'top 5 of all crime types', {
      measure: COUNT,
      filters: { time: Y(2025) },
      groupBy: ['type'],
      top: { n: 5, order: 'desc' },
    });
  });
});

describe('places named the way a district commander names them', () => {
  const blocks = { groupBy: ['block'], top: { n: 10, order: 'desc' } } as const;
  it('a bare ordinal in a thread about a district is that district ("Sorry, I meant the 12th")', () => {
    const last = thread('thefts in district 3 in 2023 by block, top 10', 'Same list for the 2nd District.');
    for (const text of ['Sorry, I meant the 12th.', 'the 12th instead', 'what about the 12th?'])
      expectEdit(last, text, { measure: COUNT, filters: { types: ['THEFT'], time: Y(2023), districts: [12] }, ...blocks });
  });

  it('"mine", "my district" are the one district the thread is about: beside it, or in its place', () => {
    const last = thread('motor vehicle thefts in district 25, 2023 to 2025, by year');
    const scope = { types: ['MOTOR VEHICLE THEFT'], time: { from: '2023-01-01', to: '2026-01-01' }, districts: [25] };
    for (const text of ['Put the 15th District next to mine.', 'put district 15 beside my district', 'compare the 15th with mine'])
      expectEdit(last, text, { measure: COUNT, filters: scope, groupBy: ['year'], versus: { districts: [15] } });
  });

  it('in a thread about days, "the 12th" is no district', () => {
    const last = thread('thefts in March 2020 in district 3');
    expect(readInThread('the 12th', last, ctx).ok).toBe(false);
  });
});

describe('"which is less?" after the group with the most', () => {
  it('is the group with the fewest; of two periods side by side it is refused, not guessed', () => {
    const last = thread('Which district have most burglary in 2017?');
    const fewest = { measure: COUNT, filters: { types: ['BURGLARY'], time: Y(2017) }, groupBy: ['district'], top: { n: 1, order: 'asc' } };
    for (const text of ['which is less?', 'which one is less', 'which has less?', 'which is lower?']) expectEdit(last, text, fewest);
    expect(readInThread('which is less?', thread('thefts in 2019 vs 2020'), ctx).ok).toBe(false);
  });
});

describe('a month said of two years side by side', () => {
  it('"just July, both years" after 2021 against 2020 by month: July 2021 against July 2020', () => {
    const last = thread('Motor vehicle theft in 2021 by month', 'compare with 2020');
    const july = {
      measure: COUNT,
      filters: { types: ['MOTOR VEHICLE THEFT'], time: { from: '2021-07-01', to: '2021-08-01' } },
      compareWith: { from: '2020-07-01', to: '2020-08-01' },
    };
    for (const text of ['just July, both years', 'only July', 'what about July?']) expectEdit(last, text, july);
  });
});

describe('a police watch is a shift of the day; two edits in one message', () => {
  it('"on the overnight watch" is the night; "same watch" keeps it; "forget the watch, all hours" drops it', () => {
    const night = thread('District 11. How many narcotics incidents on the overnight watch in 2024?');
    expect(night.filters.night).toBe(true);
    const battery = thread('narcotics at night in district 11 in 2024', 'Now battery, same watch, 2019.');
    expect(battery.filters).toMatchObject({ types: ['BATTERY'], night: true, districts: [11] });
    const all = { measure: COUNT, filters: { types: ['BATTERY'], time: Y(2019), districts: [11] } };
    for (const text of ['Forget the watch, all hours.', 'drop the watch', 'forget the shift']) expectEdit(battery, text, all);
  });

  it('"Take the arrest off and show me criminal damage instead": the flag taken away and the type replaced', () => {
    const last = thread('thefts in district 3 with an arrest in 2023 by block, top 10');
    const damage = {
      measure: COUNT,
      filters: { types: ['CRIMINAL DAMAGE'], time: Y(2023), districts: [3] },
      groupBy: ['block'],
      top: { n: 10, order: 'desc' },
    };
    for (const text of [
      'Take the arrest off and show me criminal damage instead.',
      'take the arrest filter off, criminal damage instead',
      'drop the arrest and show me criminal damage instead',
    ])
      expectEdit(last, text, damage);
  });
});
