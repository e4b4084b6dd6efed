// Words of a question, normalised for matching: lower case, apostrophes and
// possessive 's dropped ("O'Hare's" -> "ohare"), a.m./p.m. as am/pm, and
// ranges written with a hyphen split into "a to b" ("2018-2020", "10pm-2am"),
// and shorthand rewritten by the phrasebook ("w/" -> with, "top10" -> top 10).
import { rewrite } from './phrasebook.js';
export interface Token {
  /** the normalised word that rules and the lexicon match */
  t: string;
  /** the word as written, for the "understood" and "unplaced" lines */
  raw: string;
  /** where the word is in the (normalised) source text */
  start: number;
  end: number;
}

export interface Words {
  /** the text, with curly quotes and a.m./p.m. normalised: token offsets refer to it */
  source: string;
  tokens: Token[];
}

const WORD = /[\p{L}\p{N}]+(?:['\-/:.][\p{L}\p{N}]+)*|%/gu;
// an end of a hyphen range: a year, an hour, a weekday or a month ("jan-mar", "march-june")
const RANGE_END =
  '\\d{4}|\\d{1,2}(?::\\d{2})?(?:am|pm)?|mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday|' +
  'jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december';
const HYPHEN_RANGE = new RegExp(`^(${RANGE_END})-(${RANGE_END})$`);

function normaliseWord(raw: string): string {
  return raw.toLowerCase().replace(/'s$/, '').replace(/'/g, '').replace(/\.$/, '');
}

/**
 * Text as the reader (and the verified pairs) compare it: Unicode compatibility forms folded and marks
 * stripped, so "thefts\u0301", "ｔｈｅｆｔｓ" and "thefts" are one word.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFKC');
}

export function tokenize(text: string): Words {
  const s = foldText(text)
    .replace(/[\u2018\u2019\u02bc`\u00b4]/g, "'")
    .replace(/\b([ap])\.\s?m\b\.?/gi, '$1m');
  const out: Token[] = [];
  for (const m of s.matchAll(WORD)) {
    const raw = m[0];
    const start = m.index ?? 0;
    const end = start + raw.length;
    // "w/ arrest": the slash is part of the shorthand
    const t = raw.toLowerCase() === 'w' && s[end] === '/' ? 'w/' : normaliseWord(raw);
    const range = HYPHEN_RANGE.exec(t);
    const per = /^(per)-([a-z]+)$/.exec(t);
    // "per-block average": "per block"
    if (per) {
      out.push({ t: per[1], raw, start, end }, { t: per[2], raw, start, end });
      continue;
    }
    // an ISO date (2019-07-04) or month (2021-03) stays one word
    if (range && !/^\d{4}-\d{2}(-\d{2})?$/.test(t) && !(range[1].length === 4 && range[2].length < 4)) {
      out.push({ t: range[1], raw, start, end }, { t: 'to', raw: '-', start, end }, { t: range[2], raw, start, end });
    } else {
      out.push({ t, raw, start, end });
    }
  }
  return { source: s, tokens: rewrite(out, s) };
}

/** The words [i, i + len) as written. */
export const spanText = (w: Words, i: number, len: number): string =>
  len <= 0 ? '' : w.source.slice(w.tokens[i].start, w.tokens[i + len - 1].end);

/** A phrase of the vocabulary in the same form as the question's words. */
export const phraseKey = (phrase: string): string =>
  tokenize(phrase)
    .tokens.map((x) => x.t)
    .join(' ');
