// The vocabulary of the semantic model as a phrase table: normalised phrase ->
// what it means. Built once; the community area names come from the
// context and get a table of their own per area map.
import type { Dimension } from '../query-plan.js';
import { entries, semanticModel } from './model.js';
import type { Meaning, RemovableSlot, SortTo } from './pieces.js';
import { phraseKey } from './tokens.js';

/** Whether an entry may be read at [start, end) of the words t (ambiguous words need company). */
type Guard = (t: readonly string[], start: number, end: number) => boolean;

export interface Entry {
  meanings: Meaning[];
  /** lower wins when two entries cover the same words */
  prio: number;
  guard?: Guard;
}

export interface Lexicon {
  phrases: Map<string, Entry[]>;
  /** the longest phrase, in words */
  maxLen: number;
  /** every word the reader knows (vocabulary and stop words) */
  known: Set<string>;
  /** the words a typo may be corrected to: names of types, places, groupings, months and days */
  correctable: Set<string>;
  stop: Set<string>;
}

const PREPOSITIONS = new Set([
  'in',
  'on',
  'during',
  'of',
  'since',
  'from',
  'between',
  'until',
  'till',
  'through',
  'thru',
  'to',
  'and',
  'or',
  'before',
  'after',
  'the',
  'every',
  'each',
  'last',
  'this',
  'throughout',
  'over',
  'for',
  'only',
  'than',
]);
/** Month, weekday and season words that are also ordinary words ("may", "fall", "sat"). */
const AMBIGUOUS = new Set([
  'may',
  'mar',
  'jan',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
  'feb',
  'apr',
  'sept',
  'fall',
  'spring',
  'sun',
  'sat',
  'mon',
  'wed',
  'tue',
  'tues',
  'thu',
  'thurs',
  'fri',
]);
const needsCompany: Guard = (t, start, end) =>
  PREPOSITIONS.has(t[start - 1] ?? '') ||
  ['and', 'or', 'to', 'through', 'thru'].includes(t[end] ?? '') ||
  // the last word of a follow-up: "what about may", "and may?"
  (end === t.length && ['about', 'and', 'now', 'then'].includes(t[start - 1] ?? ''));

/** Grammar words that do not come from the model: a filter we cannot place follows them. */
const RELATIONS = [
  'near',
  'nearby',
  'around',
  'close to',
  'closest to',
  'next to',
  'outside',
  'outside of',
  'within',
  'involving',
  'involved',
  'except',
  'excluding',
  'exclude',
  'not',
  'no',
  'without',
  'other than',
  'apart from',
  'besides',
  'unless',
  'but not',
  'non',
  'committed by',
  'per capita',
  'per person',
  'per resident',
];

const CORRECTABLE = new Set<Meaning['kind']>([
  'type',
  'category',
  'all',
  'location',
  'flag',
  'dim',
  'months',
  'weekdays',
  'weekend',
  'night',
]);
const TIME_ADJECTIVES: Record<string, Dimension> = {
  yearly: 'year',
  annually: 'year',
  annual: 'year',
  monthly: 'month',
  hourly: 'hour',
  daily: 'date',
};
const BY_STARTS = new Set(['by', 'per', 'each', 'every', 'across', 'over', 'for', 'in']);
const PER_STARTS = new Set(['per', 'each', 'every', 'a']);

let lexicon: Lexicon | undefined;

export function baseLexicon(): Lexicon {
  lexicon ??= build();
  return lexicon;
}

function build(): Lexicon {
  const m = semanticModel();
  const phrases = new Map<string, Entry[]>();
  const known = new Set<string>();
  const correctable = new Set<string>();
  const add = (phrase: string, meanings: Meaning[], prio: number, guard?: Guard) => {
    const key = phraseKey(phrase);
    if (!key) return;
    for (const w of key.split(' ')) known.add(w);
    if (meanings.some((x) => CORRECTABLE.has(x.kind))) for (const w of key.split(' ')) correctable.add(w);
    const list = phrases.get(key) ?? [];
    if (list.some((e) => e.prio === prio && e.guard === guard && JSON.stringify(e.meanings) === JSON.stringify(meanings))) return;
    list.push({ meanings, prio, guard });
    list.sort((a, b) => a.prio - b.prio);
    phrases.set(key, list);
  };
  const flagWords = new Set(['arrest', 'arrests', 'arrested']);

  for (const [, d] of entries(m.type_details)) {
    for (const w of d.words) add(w, [{ kind: 'type', types: [d.type], descriptions: [d.description], label: d.label }], 0);
  }
  for (const [type, t] of Object.entries(m.types)) {
    const words = [...t.words, type.toLowerCase(), t.one, t.many].filter((w) => !w.includes('('));
    for (const w of new Set(words)) {
      // "drug arrests" is narcotics AND an arrest: read as two words so the arrest is not lost
      if (
        phraseKey(w)
          .split(' ')
          .some((x) => flagWords.has(x))
      )
        continue;
      add(w, [{ kind: 'type', types: [type], label: t.many }], 2);
    }
  }
  for (const [category, c] of Object.entries(m.categories)) {
    for (const w of c.words) add(w, [{ kind: 'category', category: category as 'violent' | 'property', label: c.label }], 2);
  }
  for (const w of m.all_crimes.words) add(w, [{ kind: 'all' }], 3);
  for (const [location, l] of Object.entries(m.locations)) {
    for (const w of l.words) add(w, [{ kind: 'location', location, label: l.label }], 3);
  }
  for (const flag of ['arrest', 'domestic'] as const) {
    for (const w of m.flags[flag].words) add(w, [{ kind: 'flag', flag, value: true, noun: /^arrests$|^domestic incidents$/.test(w) }], 3);
    for (const w of m.flags[flag].negated ?? []) add(w, [{ kind: 'flag', flag, value: false }], 3);
  }
  for (const [cue, words] of Object.entries(m.measures) as [keyof typeof m.measures, string[]][]) {
    for (const w of words) {
      if (cue === 'percentile' && w !== 'percentile') continue;
      add(w, [{ kind: 'measure', measure: cue, p: cue === 'median' ? 0.5 : undefined, subject: /\bcrimes?\b/.test(w) }], 4);
    }
  }
  for (const w of [
    'arrest rate',
    'arrest rates',
    'arrest percentage',
    'rate of arrest',
    'rate of arrests',
    'arrest share',
    'as an arrest rate',
    'as arrest rate',
    'as arrest rates',
  ]) {
    add(w, [{ kind: 'measure', measure: 'share', arrestRate: true }], 3);
  }
  addDimensions(add);
  for (const [n, words] of Object.entries(m.weekdays)) {
    for (const w of words)
      add(w, [{ kind: 'weekdays', days: [Number(n)], label: words[1] ?? words[0] }], 3, AMBIGUOUS.has(w) ? needsCompany : undefined);
  }
  for (const w of m.terms?.weekdays ?? []) add(w, [{ kind: 'weekdays', days: [1, 2, 3, 4, 5], label: 'weekdays' }], 3);
  for (const [n, words] of Object.entries(m.months)) {
    for (const w of words)
      add(w, [{ kind: 'months', months: [Number(n)], label: words[0] }], 3, AMBIGUOUS.has(w) ? needsCompany : undefined);
  }
  for (const [season, s] of Object.entries(m.seasons)) {
    for (const w of s.words) add(w, [{ kind: 'months', months: s.months, label: season }], 3, AMBIGUOUS.has(w) ? needsCompany : undefined);
  }
  for (const [part, d] of Object.entries(m.day_parts)) {
    for (const w of d.words) add(w, [{ kind: 'hours', from: d.hours[0], to: d.hours[1], label: part }], 3);
  }
  for (const w of m.terms?.night ?? []) add(w, [{ kind: 'night' }], 3);
  for (const w of m.terms?.weekend ?? []) add(w, [{ kind: 'weekend' }], 3);
  const common = new Set(m.ranking.common ?? []);
  for (const w of m.ranking.most) add(w, [{ kind: 'rank', order: 'desc', common: common.has(w) }], 4);
  for (const w of m.ranking.least) add(w, [{ kind: 'rank', order: 'asc' }], 4);
  for (const w of m.ranking.order_only ?? []) add(w, [{ kind: 'rank', order: 'desc', orderOnly: true }], 4);
  for (const [to, words] of Object.entries(m.ranking.sort ?? {})) for (const w of words) add(w, [{ kind: 'sort', to: to as SortTo }], 4);
  for (const w of m.compare_words ?? []) add(w, [{ kind: 'compare' }], 5);
  for (const w of m.change_words ?? []) add(w, [{ kind: 'change' }], 5);
  for (const w of m.grouping_fillers ?? []) add(w, [{ kind: 'grouping' }], 5);
  for (const w of m.places_all ?? []) add(w, [{ kind: 'allPlaces' }], 4);
  for (const w of m.time_all ?? []) add(w, [{ kind: 'allTime' }], 4);
  for (const w of m.period_edits?.whole_year ?? []) add(w, [{ kind: 'wholeYear' }], 4);
  for (const w of m.period_edits?.same_period ?? []) add(w, [{ kind: 'samePeriod' }], 4);
  const openers = new Set([
    'what about',
    'how about',
    'and what about',
    'what if',
    'same for',
    'same question for',
    'same but for',
    'the same for',
    'and',
  ]);
  const adding = new Set(m.follow_up_adding ?? ['also', 'as well', 'too']);
  // words that only make sense against an earlier answer ('same for', 'instead', 'those')
  const back = new Set(m.follow_up_points_back ?? []);
  for (const w of m.follow_up ?? []) add(w, [{ kind: 'followUp', also: adding.has(w), opener: openers.has(w), back: back.has(w) }], 6);
  for (const [slot, words] of Object.entries(m.removals?.phrases ?? {}) as [RemovableSlot, string[]][])
    for (const w of words) add(w, [{ kind: 'remove', slot }], 4);
  for (const w of m.filler_phrases ?? []) add(w, [], 7);
  for (const w of RELATIONS) add(w, [{ kind: 'relation' }], 8);
  for (const w of ['none', 'had none', 'have none', 'with none']) add(w, [{ kind: 'none' }], 5);

  const stop = new Set(m.stop_words.map(phraseKey));
  for (const w of stop) known.add(w);
  let maxLen = 1;
  for (const key of phrases.keys()) maxLen = Math.max(maxLen, key.split(' ').length);
  return { phrases, maxLen, known, stop, correctable };
}

type Add = (phrase: string, meanings: Meaning[], prio: number, guard?: Guard) => void;

/** Grouping words: the model's, and "by/per/each/in each/for each" + each noun. */
function addDimensions(add: Add): void {
  const m = semanticModel();
  for (const [dim, d] of Object.entries(m.dimensions) as [Dimension, { words: string[] }][]) {
    for (const w of d.words) {
      const key = phraseKey(w);
      if (dim === 'weekday' && (key === 'weekday' || key === 'weekdays')) {
        // "on weekdays" is a filter; "by weekday" and "which weekday" group
        for (const pre of ['by', 'per', 'each', 'every', 'which', 'what']) add(`${pre} ${key}`, [dimension(dim, `${pre} ${key}`)], 3);
        continue;
      }
      add(w, [dimension(dim, key)], 3, key === 'where' ? atStart : noun(key) ? notDeictic : undefined);
      if (!noun(key)) continue;
      for (const pre of ['by', 'per', 'each', 'every', 'for each', 'in each', 'for every', 'in every', 'by each', 'a', 'across all']) {
        if (pre === 'a' && !['day', 'month', 'year', 'week'].includes(key)) continue;
        add(`${pre} ${key}`, [dimension(dim, `${pre} ${key}`)], 3);
      }
    }
  }
}

/** A grouping noun ("districts"), not a "by/per/each" phrase or a question word. */
function noun(key: string): boolean {
  const first = key.split(' ')[0];
  return (
    !BY_STARTS.has(first) &&
    !['which', 'what', 'where'].includes(first) &&
    !(key in TIME_ADJECTIVES) &&
    !['trend', 'over time', 'year by year', 'month by month', 'day by day'].includes(key)
  );
}

const DEICTIC = new Set(['this', 'that', 'these', 'those', 'my', 'our', 'your', 'his', 'her', 'their', 'same', 'one', 'a', 'an']);
/** "my block", "this area" name one place we do not know: not a grouping. */
const notDeictic: Guard = (t, start) => !DEICTIC.has(t[start - 1] ?? '');
/** "where" asks for locations only as the question word, not in "thefts where no arrest was made". */
const atStart: Guard = (t, start) => t.slice(0, start).every((w) => STOP_AT_START.has(w));
const STOP_AT_START = new Set([
  'so',
  'and',
  'ok',
  'okay',
  'hey',
  'hi',
  'then',
  'but',
  'tell',
  'me',
  'show',
  'please',
  'in',
  'at',
  'exactly',
  'roughly',
  'generally',
  'usually',
  'typically',
  'mostly',
]);

function dimension(dim: Dimension, key: string): Meaning {
  const words = key.split(' ');
  const first = words[0];
  const last = words[words.length - 1];
  const adjective = key in TIME_ADJECTIVES || key === 'annually';
  const by = BY_STARTS.has(first) || adjective || ['trend', 'over time', 'year by year', 'month by month', 'day by day'].includes(key);
  const per = PER_STARTS.has(first) || adjective;
  const plural = first === 'where' || by ? undefined : /[^s]s$/.test(last) || last === 'addresses';
  const weak = key === 'trend' || key === 'over time';
  const calendar = dim === 'date' && !by && (last === 'day' || last === 'days');
  return { kind: 'dim', dim, by, per, plural, weak: weak || undefined, calendar: calendar || undefined };
}

const areaTables = new WeakMap<ReadonlyMap<string, number>, Map<string, Entry[]>>();

/** The community area names of the context (and the model's other spellings of them). */
export function areaLexicon(areas: ReadonlyMap<string, number>): Map<string, Entry[]> {
  let table = areaTables.get(areas);
  if (table) return table;
  table = new Map();
  const byName = new Map<string, number>();
  for (const [name, n] of areas) byName.set(phraseKey(name), n);
  const aliases = Object.entries(semanticModel().area_aliases ?? {}).filter(([k]) => !k.startsWith('_'));
  const put = (phrase: string, name: string, n: number) => {
    table!.set(phraseKey(phrase), [{ meanings: [{ kind: 'place', place: 'areas', value: n, label: titleCase(name) }], prio: 1 }]);
  };
  for (const [name, n] of areas) {
    put(name, name, n);
    // "the Austin neighborhood", "Austin community area": the area, not a grouping
    for (const suffix of ['neighborhood', 'neighbourhood', 'community area', 'area']) put(`${name} ${suffix}`, name, n);
  }
  for (const [alias, name] of aliases) {
    const n = byName.get(phraseKey(name));
    if (n !== undefined) put(alias, [...areas].find(([, v]) => v === n)?.[0] ?? name, n);
  }
  areaTables.set(areas, table);
  return table;
}

export const titleCase = (name: string): string =>
  name.replace(/(^|[\s'-])(\p{L})/gu, (_, pre: string, c: string) => pre + c.toUpperCase());
