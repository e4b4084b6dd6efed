// Words the reader does not know: the ones with no data meaning pass (a request verb, a count noun, chat glue, who
// is asking), another unknown word is passed over only where it cannot be a condition, and said; a word that could be
// a condition (after "with"/"at"/"w/o", before what is counted, a negation) is still refused.
import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../src/plan/query-plan.js';
import { readInThread, readQuestion } from '../../src/plan/reader.js';
import { scan } from '../../src/plan/read/scan.js';
import { skippedNote } from '../../src/plan/read/unknown-words.js';
import { threadReader } from '../helpers/reader.js';

const { ctx, thread } = threadReader('2025-12-31', { asEdit: false });

function plan(text: string) {
  const r = readQuestion(text, ctx);
  if (!r.ok) throw new Error(`"${text}" was refused: ${JSON.stringify(r.unplaced)} ${r.suggestion}`);
  return parsePlan(r.plan);
}
const skipped = (text: string) => {
  const s = scan(text, ctx);
  return s.skipped.map((i) => s.tokens[i].raw);
};

describe('words with no data meaning', () => {
  it.each([
    'Pull the numbers for robberies in district 7 for 2023.',
    'Get me the robbery figures for district 7 in 2023',
    'robbery rows for district 7, 2023',
    'ok so how many robbery calls did we log in district 7 in 2023',
    'sorry, robberies in district 7 in 2023 pls',
    'Commander, 7th District. How many robberies in 2023?',
    'District 7 here. How many robberies did we have in 2023?',
  ])('%s: robberies in district 7 in 2023, nothing passed over', (text) => {
    const p = plan(text);
    expect(p.filters.types).toEqual(['ROBBERY']);
    expect(p.filters.districts).toEqual([7]);
    expect(p.filters.time?.from).toBe('2023-01-01');
    expect(p.filters.time?.to).toBe('2024-01-01');
    expect(p.groupBy).toEqual([]);
    expect(skipped(text)).toEqual([]);
  });

  it('"my district" is the one district the message names', () => {
    expect(plan('This is the 7th District commander. Pull the numbers for robberies in my district for 2023.').filters.districts).toEqual([
      7,
    ]);
    expect(plan("My district's the 10th. Weapons violations, 2015 to 2025, how many per year?").filters.districts).toEqual([10]);
    expect(plan('our district is the 4th, how many thefts in 2020').filters.districts).toEqual([4]);
  });

  it('"my district" without a district named, or with two, is refused (whose district is not known)', () => {
    expect(readQuestion('how many thefts in my district in 2020', ctx).ok).toBe(false);
    expect(readQuestion('thefts in district 4 and district 5 in 2020 vs my district', ctx).ok).toBe(false);
    expect(readQuestion('my district is the best, how many thefts in 2020', ctx).ok).toBe(false);
  });
});

describe('an unknown word that cannot be a condition is passed over, and said', () => {
  it.each([
    ['Honestly, how many thefts in 2020?', 'Honestly'],
    ['Basically how many thefts were there in 2020?', 'Basically'],
    ['how many thefts in 2020, asking for a colleague', undefined],
  ])('%s', (text, word) => {
    const r = readQuestion(text, ctx);
    if (word === undefined) {
      // "asking for a colleague": "colleague" follows "a" (it could be a condition): refused
      expect(r.ok).toBe(false);
      return;
    }
    expect(r.ok).toBe(true);
    if (r.ok) expect(parsePlan(r.plan).filters.types).toEqual(['THEFT']);
    expect(skipped(text)).toEqual([word]);
  });

  it('an edit reads past a verb of no condition ("carrying"), and says it', () => {
    const last = thread('which district had the most thefts in 2021?');
    const r = readInThread('Which five districts are carrying the most?', last, ctx);
    expect(r.ok).toBe(true);
    if (r.ok) expect(parsePlan(r.plan).top).toEqual({ n: 5, order: 'desc' });
    expect(skipped('Which five districts are carrying the most?')).toEqual(['carrying']);
  });

  it('the note names the words passed over', () => {
    expect(skippedNote(['Honestly'])).toMatch(/I did not use: "Honestly"/);
    expect(skippedNote([])).toBeUndefined();
  });
});

describe('a word that could be a condition is still refused', () => {
  it.each([
    'how many thefts w/ snow in 2020',
    'robberies at pizza places in 2021',
    'how many juvenile thefts in 2020',
    'how many armed robberies in 2021',
    'crimes near schools in 2022',
    'how many thefts in 2020 w/o domestic',
    'thefts in 2020 downtown',
    'burglaries by district downtown in 2021',
    'how many thefts involving bikes in 2020',
    'how many thefts of bikes in 2020',
    'how many gun robberies in 2021',
    'how many thefts in 2020 without receipts',
    'thefts in 2020 except juveniles',
  ])('%s', (text) => {
    const r = readQuestion(text, ctx);
    expect(r.ok).toBe(false);
    expect(skipped(text)).toEqual([]);
  });

  it('a measure the plan cannot say is refused, not read as another ("YoY % change", "rolling average")', () => {
    const last = thread('battery counts by year, 2015 through 2020');
    for (const text of ['add YoY % change', 'show the yoy change', 'rolling average per month'])
      expect(readInThread(text, last, ctx).ok, text).toBe(false);
  });

  it('a time word is never passed over ("the two years before it")', () => {
    const last = thread('robberies in district 7 in 2023');
    const r = readInThread('Give me 2023 and the two years before it, year by year.', last, ctx);
    expect(r.ok && !parsePlan(r.plan).filters.time).toBe(false);
  });

  it('more unknown words than the policy allows: none is passed over', () => {
    expect(skipped('Honestly, frankly, basically, how many thefts in 2020?')).toEqual([]);
    expect(readQuestion('Honestly, frankly, basically, how many thefts in 2020?', ctx).ok).toBe(false);
  });

  it('a negation is read, not refused nor dropped: "not the ones on the street"', () => {
    for (const text of [
      'how many thefts in 2020 not the ones on the street',
      'how many thefts in 2020, excluding the ones on the street',
      'thefts in 2020 except the ones on the street',
    ]) {
      const p = plan(text);
      expect(p.filters.locations, text).toEqual(['STREET']);
      expect(p.filters.exceptLocations, text).toBe(true);
    }
  });
});

describe('what is counted, a question the data cannot answer, and a verb on the answer are never passed over', () => {
  it.each([
    'how many shootings in 2019',
    'number of stabbings in district 7 in 2022',
    'which district had the most shootings in 2021',
    'why did thefts rise in 2020',
    'predict thefts in 2026',
    'may I know how many thefts happened',
  ])('%s', (text) => {
    expect(readQuestion(text, ctx).ok).toBe(false);
    expect(skipped(text)).toEqual([]);
  });

  it.each(['break that out', 'put the spreadsheet next to it', 'reshape it by district'])('%s (after a by-year answer)', (text) => {
    const last = thread('thefts by year since 2019');
    expect(readInThread(text, last, ctx).ok).toBe(false);
    expect(skipped(text)).toEqual([]);
  });
});

describe('chat spellings and a police voice (phrasebook-chat.json)', () => {
  it.each(['crimes at nite in district 1 2023', 'how many crimes at nite in district 1 in 2023', 'district 1 crimes 2023 at nite'])(
    '%s: at night',
    (text) => expect(plan(text).filters.night).toBe(true),
  );
  it.each(['Only the ones where we made an arrest.', 'only where we made an arrest', 'just the ones where an arrest was made'])(
    '%s: with an arrest, the rest of the thread kept',
    (text) => {
      const last = thread('thefts in district 3, 2022 through 2024, top 10 blocks');
      const r = readInThread(text, last, ctx);
      expect(r.ok).toBe(true);
      if (r.ok)
        expect(parsePlan(r.plan)).toMatchObject({ filters: { types: ['THEFT'], districts: [3], arrest: true }, groupBy: ['block'] });
    },
  );
  it.each([
    'Which five districts had the most over that stretch?',
    'top 5 districts over that stretch',
    'which 5 districts had the most over that span',
  ])("%s: the thread's period kept", (text) => {
    const last = thread('Weapons violations from 2015 to 2025 by year');
    const r = readInThread(text, last, ctx);
    expect(r.ok).toBe(true);
    if (r.ok) expect(parsePlan(r.plan).filters.time).toMatchObject({ from: '2015-01-01', to: '2026-01-01' });
  });
});
