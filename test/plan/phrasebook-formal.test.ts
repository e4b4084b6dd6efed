// The formal, wordy register (a researcher, a policy aide, a reporter), read by meaning through the phrasebook and
// the stop words: polite request framing is glue ("could you provide", "may I have", "I am interested in"), and
// "restrict / limit / confine ... to" narrows, "excluding / other than / with the exception of" stay negations,
// "set X and Y side by side" / "as opposed to" compare, "expressed as a percentage" is a share, "the equivalent
// figure for", "the preceding year", "the corresponding period" move the period, "remove the restriction to 2018",
// "irrespective of district" take a filter away. Words that change the meaning and are not understood are still
// refused. The sentences are invented here, not taken from a benchmark.
import { describe, expect, it } from 'vitest';
import { threadReader } from '../helpers/reader.js';
import { type QueryPlan } from '../../src/plan/query-plan.js';
import { readInThread } from '../../src/plan/reader.js';

const { ctx, thread } = threadReader('2025-12-31', { asEdit: false });

/** The words refused in the last text of the thread (the earlier ones must read). */
function refusedWords(...texts: string[]): string[] {
  const last = texts.length > 1 ? thread(...texts.slice(0, -1)) : undefined;
  const r = readInThread(texts[texts.length - 1], last, ctx);
  if (r.ok) throw new Error(`"${texts[texts.length - 1]}" was read: ${JSON.stringify(r.plan)}`);
  return r.unplaced;
}

/** Whether the last text was read as an edit of the thread's plan. */
function readAsEdit(...texts: string[]): boolean {
  const r = readInThread(texts[texts.length - 1], thread(...texts.slice(0, -1)), ctx);
  if (!r.ok) throw new Error(`"${texts[texts.length - 1]}" was refused: ${JSON.stringify(r.unplaced)}`);
  return r.edit;
}

const Y = (from: number, to = from) => ({ from: `${from}-01-01`, to: `${to + 1}-01-01` });
const time = (p: QueryPlan) => p.filters.time && { from: p.filters.time.from, to: p.filters.time.to };
const compared = (p: QueryPlan) => p.compareWith && { from: p.compareWith.from, to: p.compareWith.to };

describe('a first question framed as a formal request', () => {
  it('"could you provide the figures for", "may I have the count of", "I am interested in": the question itself', () => {
    for (const t of [
      'Could you provide the figures for thefts in 2019?',
      'Please provide the number of thefts recorded in 2019.',
      'May I have the count of thefts in 2019?',
      'I am interested in the number of thefts reported in 2019.',
      'Would it be possible to obtain the number of thefts for 2019?',
      'For research purposes, could you furnish the total of thefts in 2019?',
      'I would be grateful if you could indicate how many thefts were documented in 2019.',
    ]) {
      const p = thread(t);
      expect(p.filters.types, t).toEqual(['THEFT']);
      expect(time(p), t).toEqual(Y(2019));
      expect(p.groupBy, t).toEqual([]);
    }
  });

  it('"May I have" is a request, not the month of May', () => {
    const p = thread('May I have the count of motor vehicle thefts in Austin in 2021?');
    expect(p.filters).toMatchObject({ types: ['MOTOR VEHICLE THEFT'], areas: [25] });
    expect(p.filters.months).toBeUndefined();
  });

  it('"the annual totals", "a month-by-month tally", "on a monthly basis", "in calendar year 2020"', () => {
    const annual = thread('Could you furnish the annual totals of narcotics arrests since 2015?');
    expect(annual.groupBy).toEqual(['year']);
    expect(annual.filters).toMatchObject({ types: ['NARCOTICS'], arrest: true });
    expect(thread('Could you provide a month-by-month tally of thefts in 2020?').groupBy).toEqual(['month']);
    expect(thread('Kindly provide thefts in 2020 on a monthly basis.').groupBy).toEqual(['month']);
    expect(time(thread('What was the number of burglaries in calendar year 2020?'))).toEqual(Y(2020));
  });

  it('"for the preceding three years", "from 2018 to the present", "for the period 2018 to 2020"', () => {
    expect(time(thread('Please provide the number of narcotics offenses for the preceding three years.'))).toEqual(Y(2023, 2025));
    expect(time(thread('How many burglaries were recorded from 2018 to the present?'))).toEqual(Y(2018, 2025));
    expect(time(thread('How many burglaries were recorded for the period 2018 to 2020?'))).toEqual(Y(2018, 2020));
    expect(time(thread('Could you provide the number of homicides pertaining to 2020?'))).toEqual(Y(2020));
  });
});

describe('a grouping said formally', () => {
  it('"disaggregate by", "tabulated by", "on a monthly basis", "on a district basis": the grouping, the thread kept', () => {
    for (const [t, g] of [
      ['Please disaggregate by month.', 'month'],
      ['Could you disaggregate the figures by police district?', 'district'],
      ['Disaggregated by community area, please.', 'community_area'],
      ['Tabulated by ward, please.', 'ward'],
      ['Would it be possible to obtain this on a monthly basis?', 'month'],
      ['Could the results be expressed on a monthly basis?', 'month'],
      ['On a district basis, if you would.', 'district'],
      ['Broken down by police district, if you would.', 'district'],
    ] as const) {
      const p = thread('Could you provide the figures for robberies in 2019?', t);
      expect(p.groupBy, t).toEqual([g]);
      expect(p.filters.types, t).toEqual(['ROBBERY']);
      expect(time(p), t).toEqual(Y(2019));
    }
  });
});

describe('narrowing: "restrict / limit / confine / focus ... to" keeps the thread and adds the filter', () => {
  it('"restrict the previous result to incidents that resulted in an arrest": the same robberies, with an arrest', () => {
    for (const t of [
      'Restrict the previous result to incidents that resulted in an arrest.',
      'Could you restrict that to incidents that resulted in an arrest?',
      'Limited to incidents that resulted in an arrest.',
      'Please limit this to cases where an arrest was made.',
      'Kindly confine the analysis to incidents resulting in an arrest.',
      'Focusing solely on those that resulted in an arrest.',
      'Restricted to incidents that led to an arrest, please.',
    ]) {
      const p = thread('I would like to know the total number of robberies recorded in 2022.', t);
      expect(p.filters, t).toMatchObject({ types: ['ROBBERY'], arrest: true });
      expect(time(p), t).toEqual(Y(2022));
    }
  });

  it('"limited to cases that did not result in an arrest": the negation kept', () => {
    const p = thread('robberies in 2022', 'Limited to cases that did not result in an arrest.');
    expect(p.filters).toMatchObject({ types: ['ROBBERY'], arrest: false });
  });

  it('"confine the analysis to district 11", "with respect to district 7", "within district 7": that place', () => {
    expect(thread('narcotics arrests since 2015', 'I would be grateful if you could limit this to district 11.').filters.districts).toEqual(
      [11],
    );
    expect(thread('narcotics arrests since 2015', 'Please confine the analysis to district 11.').filters.districts).toEqual([11]);
    expect(thread('What was the arrest rate for assaults in 2023?', 'With respect to district 7 only.').filters.districts).toEqual([7]);
    expect(thread('thefts in 2020', 'Within district 7.').filters.districts).toEqual([7]);
  });

  it('"confine the analysis to the years 2018 through 2020", "restricting the analysis to weekends": the period or days', () => {
    expect(time(thread('narcotics arrests since 2015', 'Please confine the analysis to the years 2018 through 2020.'))).toEqual(
      Y(2018, 2020),
    );
    expect(thread('criminal damage in 2023', 'Now restricting the analysis to weekends only.').filters.weekend).toBe(true);
  });

  it('"how many incidents that resulted in an arrest" is still a question of its own about all incidents', () => {
    const p = thread('thefts in 2019', 'How many incidents that resulted in an arrest were there in 2019?');
    expect(p.filters.types).toBeUndefined();
    expect(p.filters.arrest).toBe(true);
  });
});

describe('negations said formally stay negations', () => {
  it('"excluding those classified as domestic", "other than", "with the exception of", "exclusive of": domestic is false', () => {
    for (const t of [
      'Excluding those classified as domestic, please.',
      'Please exclude any incidents classified as domestic.',
      'Other than domestic incidents.',
      'Apart from domestic incidents.',
      'With the exception of domestic incidents.',
      'Exclusive of domestic incidents.',
      'Not including domestic incidents.',
    ]) {
      const p = thread('batteries in district 11 in 2020', t);
      expect(p.filters, t).toMatchObject({ types: ['BATTERY'], districts: [11], domestic: false });
    }
  });

  it('"other than thefts", "apart from thefts" after all crimes: thefts left out', () => {
    for (const t of ['Other than thefts.', 'Apart from thefts.'])
      expect(thread('crimes in 2019', t).filters, t).toMatchObject({ types: ['THEFT'], exceptTypes: true });
  });

  it('"excluding incidents that resulted in an arrest" is refused, never read as "with an arrest"', () => {
    expect(refusedWords('robberies in 2022', 'Excluding incidents that resulted in an arrest.').join(' ')).toMatch(/excluding/i);
    expect(refusedWords('robberies in 2022', 'Not excluding domestic incidents.').join(' ')).toMatch(/not/i);
  });
});

describe('comparisons said formally', () => {
  it('"set 2021 and 2022 side by side", "place ... side by side": a comparison of the two years (never a write)', () => {
    for (const t of [
      'Set 2021 and 2022 side by side.',
      'Could you place 2021 and 2022 side by side?',
      'Please put 2021 and 2022 side by side.',
      '2021 and 2022 side by side, please.',
    ]) {
      const p = thread('I would like to know the total number of robberies recorded in 2022.', t);
      expect(p.filters.types, t).toEqual(['ROBBERY']);
      expect([time(p), compared(p)], t).toEqual([Y(2022), Y(2021)]);
    }
  });

  it('"as opposed to 2019", "in comparison with 2019", "contrast this with 2019", "the figures for 2019 alongside"', () => {
    for (const t of [
      'As opposed to 2019?',
      'In comparison with 2019.',
      'Contrast this with 2019.',
      'How does this compare with the corresponding period in 2019?',
      'I would also like to see the figures for 2019 alongside.',
    ]) {
      const p = thread('Could you provide the number of homicides pertaining to 2020?', t);
      expect(p.filters.types, t).toEqual(['HOMICIDE']);
      expect([time(p), compared(p)], t).toEqual([Y(2020), Y(2019)]);
    }
  });

  it('"as opposed to district 8" after district 7: the two districts side by side', () => {
    expect(thread('thefts in district 7 in 2023', 'As opposed to district 8?').versus).toEqual({ districts: [8] });
  });
});

describe('the same question for another period, subject or place', () => {
  it('"the equivalent figure for 2021", "the corresponding numbers for 2018", "the preceding year": the period', () => {
    const base = 'Could you provide the figures for thefts in 2019?';
    expect(time(thread(base, 'What is the equivalent figure for 2021?'))).toEqual(Y(2021));
    expect(time(thread(base, 'I would also like the corresponding numbers for 2018.'))).toEqual(Y(2018));
    expect(time(thread(base, 'Could we see the same for the preceding year?'))).toEqual(Y(2018));
    expect(time(thread(base, 'How did that compare to the preceding year?'))).toEqual(Y(2019));
    expect(compared(thread(base, 'How did that compare to the preceding year?'))).toEqual(Y(2018));
    for (const t of ['What is the equivalent figure for 2021?', 'Could we see the same for the preceding year?'])
      expect(thread(base, t).filters.types, t).toEqual(['THEFT']);
  });

  it('"kindly apply the same analysis to burglaries", "repeat this for", "the equivalent figure for West Englewood"', () => {
    for (const t of [
      'Kindly apply the same analysis to burglaries.',
      'Please repeat this for burglaries.',
      'Could you perform the same analysis for burglaries?',
    ]) {
      const p = thread('thefts in 2019', 'Please disaggregate by month.', t);
      expect(p.filters.types, t).toEqual(['BURGLARY']);
      expect(p.groupBy, t).toEqual(['month']);
      expect(time(p), t).toEqual(Y(2019));
    }
    expect(thread('burglaries in Englewood in 2017', 'And the equivalent figure for West Englewood?').filters.areas).toEqual([67]);
  });

  it('"over the same period, how many robberies?", "for the period in question": the thread\'s period kept', () => {
    for (const t of ['Over the same period, how many robberies?', 'Robberies for the period in question, please.']) {
      const p = thread('homicides in Austin from March to June 2020', t);
      expect(p.filters.types, t).toEqual(['ROBBERY']);
      expect(time(p), t).toEqual({ from: '2020-03-01', to: '2020-07-01' });
      expect(readAsEdit('homicides in Austin from March to June 2020', t), t).toBe(true);
    }
    expect(time(thread('homicides in Austin from March to June 2020', 'And the corresponding period in 2019?'))).toEqual({
      from: '2019-03-01',
      to: '2019-07-01',
    });
  });
});

describe('a share said formally', () => {
  it('"expressed as a percentage of the total", "in percentage terms", "what share of the total does that represent"', () => {
    for (const t of [
      'Expressed as a percentage of the total.',
      'In percentage terms, please.',
      'What share of the total does that represent?',
    ]) {
      const p = thread('thefts in 2020', t);
      expect(p.measure, t).toEqual({ kind: 'share', part: { types: ['THEFT'] } });
      expect(time(p), t).toEqual(Y(2020));
    }
  });

  it('"what proportion of these cases were classified as domestic": a share of the thread\'s own incidents', () => {
    const p = thread('narcotics arrests in district 11 since 2018', 'What proportion of these cases were classified as domestic?');
    expect(p.measure).toEqual({ kind: 'share', part: { domestic: true } });
    expect(p.filters).toMatchObject({ types: ['NARCOTICS'], districts: [11], arrest: true });
  });

  it('"the proportion resulting in an arrest": the arrest rate', () => {
    expect(thread('burglaries in 2021', 'What was the proportion resulting in an arrest?').measure).toEqual({
      kind: 'share',
      part: { arrest: true },
    });
  });
});

describe('taking a filter away, said formally', () => {
  const base = ['assaults in district 3 in 2021', 'only with an arrest'];
  it('"remove the restriction to 2021", "lift the year restriction", "for the entire period": no period', () => {
    for (const t of [
      'Please remove the restriction to 2021.',
      'Lift the year restriction.',
      'For the entire period, please.',
      'Regardless of year.',
    ]) {
      const p = thread(...base, t);
      expect(p.filters.time, t).toBeUndefined();
      expect(p.filters, t).toMatchObject({ types: ['ASSAULT'], districts: [3], arrest: true });
    }
  });

  it('"remove the arrest criterion", "regardless of whether an arrest was made": no arrest filter', () => {
    for (const t of ['Please remove the arrest criterion.', 'Regardless of whether an arrest was made.', 'With or without an arrest.']) {
      const p = thread(...base, t);
      expect(p.filters.arrest, t).toBeUndefined();
      expect(p.filters, t).toMatchObject({ types: ['ASSAULT'], districts: [3] });
    }
  });

  it('"irrespective of district", "kindly broaden this to the entire city": no place', () => {
    for (const t of ['Irrespective of district.', 'Kindly broaden this to the entire city.']) {
      const p = thread(...base, t);
      expect(p.filters.districts, t).toBeUndefined();
      expect(p.filters, t).toMatchObject({ types: ['ASSAULT'], arrest: true });
    }
  });
});

describe('rankings said formally', () => {
  it('"recorded the highest totals", "the five most prevalent", "the least affected": the most / the fewest', () => {
    const first = thread('Which five community areas recorded the highest totals of burglary in 2021?');
    expect(first.groupBy).toEqual(['community_area']);
    expect(first.top).toEqual({ n: 5, order: 'desc' });
    expect(
      thread(
        'crimes in the Loop in 2021',
        'I would appreciate a breakdown by crime type.',
        'Could you identify the five most prevalent categories?',
      ).top,
    ).toEqual({
      n: 5,
      order: 'desc',
    });
    expect(thread('burglaries since 2018', 'Which are the three least affected community areas?').top).toEqual({ n: 3, order: 'asc' });
    expect(thread('robberies in 2019 by district', 'Limit the results to the ten districts with the highest counts.').top).toEqual({
      n: 10,
      order: 'desc',
    });
  });

  it('"kindly present them in descending order" after a top five: the top five, most first', () => {
    const p = thread(
      'Which five community areas recorded the highest totals of burglary in 2021?',
      'Kindly present them in descending order.',
    );
    expect(p.top).toEqual({ n: 5, order: 'desc' });
  });
});

describe('context and courtesy around the question', () => {
  it('"Good afternoon.", "I am writing a piece on ...", "I am compiling statistics on ...": the question itself, no hours', () => {
    const p = thread('Good afternoon. Could you tell me how many deceptive practice offenses were reported in 2021?');
    expect(p.filters).toMatchObject({ types: ['DECEPTIVE PRACTICE'], time: { from: '2021-01-01', to: '2022-01-01' } });
    expect(p.filters.hours).toBeUndefined();
    expect(thread("I'm writing a piece on car thefts. How many motor vehicle thefts were there citywide in 2022?").filters.types).toEqual([
      'MOTOR VEHICLE THEFT',
    ]);
    const arson = thread('I am compiling statistics on arson. How many incidents were recorded between 2015 and 2020 inclusive?');
    expect(arson.filters.types).toEqual(['ARSON']);
    expect(time(arson)).toEqual(Y(2015, 2020));
  });

  it('"for the month of July", "the same statistics for stalking", "is this higher or lower than in 2019"', () => {
    const july = thread(
      'Could you kindly report the number of criminal sexual assaults in 2020?',
      'And for the month of July specifically?',
    );
    expect(time(july)).toEqual({ from: '2020-07-01', to: '2020-08-01' });
    expect(july.groupBy).toEqual([]);
    expect(thread('criminal sexual assaults in 2020', 'I would now like the same statistics for stalking.').filters.types).toEqual([
      'STALKING',
    ]);
    const vs = thread('Please state the number of weapons violations in 2024.', 'Is this higher or lower than in 2019?');
    expect([time(vs), compared(vs)]).toEqual([Y(2024), Y(2019)]);
    expect(thread('arson since 2015', 'Please omit domestic incidents.').filters).toMatchObject({ types: ['ARSON'], domestic: false });
  });
});

describe("formal names for the thread's filters", () => {
  it('"disregard the geographic restriction", "remove the temporal restriction", "over the same timeframe"', () => {
    const base = ['narcotics offenses in West Garfield Park in 2019'];
    const east = thread(...base, 'What about East Garfield Park over the same timeframe?');
    expect(east.filters.areas).toEqual([27]);
    expect(time(east)).toEqual(Y(2019));
    const anywhere = thread(...base, 'Please disregard the geographic restriction.');
    expect(anywhere.filters.areas).toBeUndefined();
    expect(time(anywhere)).toEqual(Y(2019));
    const always = thread(...base, 'Please remove the temporal restriction.');
    expect(always.filters.time).toBeUndefined();
    expect(always.filters.areas).toEqual([26]);
    expect(thread('homicides in calendar year 2021', "I'd like the same information for each police district.").groupBy).toEqual([
      'district',
    ]);
  });
});

describe('what is still refused', () => {
  it('an unknown content word after formal framing is refused, not dropped', () => {
    expect(refusedWords('thefts in 2019', 'Please disaggregate by officer.')).toContain('officer');
    expect(refusedWords('thefts in 2019', 'Could you restrict that to incidents involving firearms?').join(' ')).toMatch(/firearms/);
    expect(refusedWords('thefts in 2019', 'Kindly limit this to juveniles.')).toContain('juveniles');
    expect(refusedWords('Could you provide the figures for thefts pertaining to juveniles in 2019?')).toContain('juveniles');
  });
});
