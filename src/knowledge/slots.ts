// Slot values in a question, for filling verified query templates without an
// LLM: crime type, year, district, ward, community area (number or name),
// top-N and location. Each slot remembers the text it came from, so that the
// caller can tell whether the whole question was understood.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';

export interface Slots {
  type?: string;
  year?: number;
  n?: number;
  district?: number;
  ward?: number;
  area?: number;
  location?: string;
}

interface Synonyms {
  crimeTypes: Record<string, string[]>;
  locations: Record<string, string[]>;
}

let synonyms: Synonyms | undefined;
const load = () => (synonyms ??= JSON.parse(readFileSync(fixturePath('knowledge', 'synonyms.json'), 'utf8')) as Synonyms);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The longest phrase of a dictionary found in the text (longest wins: "motor vehicle thefts" over "thefts"). */
function longestMatch(text: string, dictionary: Record<string, string[]>): { value: string; phrase: string } | undefined {
  let best: { value: string; phrase: string } | undefined;
  for (const [value, phrases] of Object.entries(dictionary)) {
    for (const phrase of [value.toLowerCase(), ...phrases]) {
      if (new RegExp(`\\b${escape(phrase)}\\b`, 'i').test(text) && (!best || phrase.length > best.phrase.length)) best = { value, phrase };
    }
  }
  return best;
}

const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const FINER_THAN_YEAR = new RegExp(
  [
    '\\b\\d{4}-\\d{1,2}(-\\d{1,2})?\\b', '\\b\\d{1,2}/\\d{1,2}(/\\d{2,4})?\\b', `\\b${MONTH}\\s+\\d{1,4}`, `\\b\\d{1,2}(st|nd|rd|th)?\\s+(of\\s+)?${MONTH}`,
    '\\b(last|this|past|previous|next)\\s+(\\d+\\s+)?(years?|months?|weeks?|days?|quarter)\\b', '\\b(since|until|before|after|between|from)\\s+\\d{4}', '\\b(yesterday|today|so far)\\b',
  ].join('|'),
);

export function extractSlots(question: string, areaNames: ReadonlyMap<string, number>): { slots: Slots; ambiguous: string[]; consumed: string[] } {
  const slots: Slots = {};
  const ambiguous: string[] = [];
  /** the phrases the slots were read from */
  const consumed: string[] = [];
  const text = question.toLowerCase();
  const type = longestMatch(text, load().crimeTypes);
  if (type) {
    slots.type = type.value;
    consumed.push(type.phrase);
  }
  const years = [...new Set(text.match(/\b(200[1-9]|201\d|202[0-5])\b/g) ?? [])];
  // a day, a month or a relative period is not a whole year: the templates only take years
  const finer = FINER_THAN_YEAR.exec(text);
  if (finer) ambiguous.push(`a period other than a whole year ("${finer[0].trim()}")`);
  else if (years.length === 1) slots.year = Number(years[0]);
  if (years.length > 1) ambiguous.push(`several years (${years.join(', ')})`);
  const top = /\btop\s+(\d{1,3})\b|\b(\d{1,3})\s+(most|highest|worst|safest)\b/.exec(text);
  if (top) {
    slots.n = Number(top[1] ?? top[2]);
    consumed.push(top[0]);
  }
  const district = /\bdistrict\s+(\d{1,2})\b/.exec(text);
  if (district) {
    slots.district = Number(district[1]);
    consumed.push(district[0]);
  }
  const ward = /\bward\s+(\d{1,2})\b/.exec(text);
  if (ward) {
    slots.ward = Number(ward[1]);
    consumed.push(ward[0]);
  }
  const areaNumber = /\bcommunity area\s+(\d{1,2})\b/.exec(text);
  if (areaNumber) {
    slots.area = Number(areaNumber[1]);
    consumed.push(areaNumber[0]);
  } else {
    let best = '';
    for (const [name, number] of areaNames) {
      if (name.length > best.length && new RegExp(`\\b${escape(name)}\\b`, 'i').test(text)) {
        best = name;
        slots.area = number;
      }
    }
    if (best) consumed.push(best);
  }
  const location = longestMatch(text, load().locations);
  if (location) {
    slots.location = location.value;
    consumed.push(location.phrase);
  }
  consumed.push(...years);
  return { slots, ambiguous, consumed };
}

/** The slot kinds a template uses ({type}, {year}, ...). */
export function templateSlots(template: string): (keyof Slots)[] {
  const kinds: (keyof Slots)[] = ['type', 'year', 'n', 'district', 'ward', 'area', 'location'];
  return kinds.filter((k) => template.includes(`{${k}}`));
}
