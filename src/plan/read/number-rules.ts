// Numbered places ("district 11", "11th district", "ward 28", "beat 1123",
// "community area 25"), blocks ("052XX W HURON ST"), percentiles ("90th
// percentile"), thresholds we cannot hold ("at least 50"), and bare numbers
// (the N of "top 5").
import type { Meaning, PlaceKind } from './pieces.js';
import { smallNumber, type Rule, type RuleInput, type RuleMatch } from './rule.js';

const ORDINAL = /^(\d{1,2})(st|nd|rd|th)$/;
const LIMITS: Record<Exclude<PlaceKind, 'blocks'>, [number, number]> = {
  districts: [1, 31],
  wards: [1, 50],
  beats: [100, 2600],
  areas: [1, 77],
};

function place(kind: Exclude<PlaceKind, 'blocks'>, n: number): Meaning {
  const [lo, hi] = LIMITS[kind];
  if (!Number.isInteger(n) || n < lo || n > hi) return { kind: 'invalid' };
  const noun = { districts: 'district', wards: 'ward', beats: 'beat', areas: 'community area' }[kind];
  return { kind: 'place', place: kind, value: n, label: `${noun} ${n}` };
}

/** "<noun> [number] N [and N]" or "Nth <noun>". */
function numberedPlace(kind: Exclude<PlaceKind, 'blocks'>, nouns: string[][]): Rule {
  return (x: RuleInput, i: number): RuleMatch | undefined => {
    const { t } = x;
    for (const noun of nouns) {
      if (!noun.every((w, k) => t[i + k] === w)) continue;
      let j = i + noun.length;
      if (t[j] === 'number' || t[j] === 'no' || t[j] === 'num') j++;
      if (!/^\d{1,4}$/.test(t[j] ?? '')) continue;
      const meanings = [place(kind, Number(t[j]))];
      j++;
      // "districts 11 and 12"
      while ((t[j] === 'and' || t[j] === 'or') && /^\d{1,3}$/.test(t[j + 1] ?? '') && kind !== 'beats') {
        meanings.push(place(kind, Number(t[j + 1])));
        j += 2;
      }
      return { len: j - i, meanings };
    }
    const ord = ORDINAL.exec(t[i] ?? '');
    if (ord) {
      for (const noun of nouns) {
        const last = noun[noun.length - 1];
        const words = t[i + 1] === 'police' && noun.length === 1 ? ['police', last] : [last];
        if (words.every((w, k) => t[i + 1 + k] === w)) return { len: 1 + words.length, meanings: [place(kind, Number(ord[1]))] };
      }
    }
    return undefined;
  };
}

const SUFFIXES = new Set([
  'st',
  'ave',
  'av',
  'blvd',
  'rd',
  'dr',
  'pkwy',
  'pl',
  'ct',
  'ter',
  'way',
  'hwy',
  'expy',
  'ln',
  'cir',
  'sq',
  'row',
  'plaza',
  'park',
  'trl',
  'blvd',
]);

/** A block as the data writes it: 052XX W HURON ST. */
const blockRule: Rule = (x, i) => {
  const { t } = x;
  if (!/^(\d{3}xx|\d{4}x)$/.test(t[i] ?? '') || !['n', 's', 'e', 'w'].includes(t[i + 1] ?? '')) return undefined;
  for (let j = i + 3; j < Math.min(t.length, i + 8); j++) {
    if (SUFFIXES.has(t[j])) {
      const value = t
        .slice(i, j + 1)
        .join(' ')
        .toUpperCase();
      return { len: j + 1 - i, meanings: [{ kind: 'place', place: 'blocks', value, label: value }] };
    }
  }
  return undefined;
};

const percentileRule: Rule = (x, i) => {
  const m = ORDINAL.exec(x.t[i] ?? '');
  if (!m || x.t[i + 1] !== 'percentile') return undefined;
  const p = Number(m[1]) / 100;
  return { len: 2, meanings: p > 0 && p < 1 ? [{ kind: 'measure', measure: 'percentile', p }] : [{ kind: 'invalid' }] };
};

/** Thresholds on counts ("at least 50", "more than 100"): the plan has none. */
const thresholdRule: Rule = (x, i) => {
  const { t } = x;
  const two = `${t[i]} ${t[i + 1]}`;
  const len = ['at least', 'at most', 'more than', 'less than', 'fewer than', 'greater than', 'over than', 'no more', 'no less'].includes(
    two,
  )
    ? 2
    : ['over', 'under', 'above', 'below', 'exceeding', 'exceeds', 'exceeded', 'minimum', 'maximum'].includes(t[i] ?? '')
      ? 1
      : 0;
  if (!len) return undefined;
  if (smallNumber(t[i + len]) === undefined && !/^\d[\d,.]*k?$/.test(t[i + len] ?? '')) return undefined;
  return { len: len + 1, meanings: [{ kind: 'invalid' }] };
};

const numberRule: Rule = (x, i) => {
  const w = x.t[i];
  const n = smallNumber(w);
  if (n === undefined || (w !== undefined && /^(19|20)\d\d$/.test(w))) return undefined;
  return { len: 1, meanings: [{ kind: 'number', n }] };
};

export const placeRules: Rule[] = [
  numberedPlace('areas', [['community', 'area'], ['community', 'areas'], ['area'], ['ca']]),
  numberedPlace('districts', [['police', 'district'], ['district'], ['districts']]),
  numberedPlace('wards', [['ward'], ['wards']]),
  numberedPlace('beats', [['police', 'beat'], ['beat'], ['beats']]),
  blockRule,
  percentileRule,
  thresholdRule,
];

/** Tried last: a number no other rule took. */
export const numberRules: Rule[] = [numberRule];
