// Words -> pieces: at each word the longest reading wins (a rule's pattern or
// a vocabulary phrase; on a tie the earlier rule, then the vocabulary's
// priority). Words no reading takes are stop words or unplaced. A word of 6+
// letters the reader does not know is first corrected to the one vocabulary
// word one edit away, when there is exactly one.
import type { ReadContext } from './context.js';
import { hourRules } from './hour-rules.js';
import { areaLexicon, baseLexicon, type Entry } from './lexicon.js';
import { numberRules, placeRules } from './number-rules.js';
import { removeRule } from './remove-rules.js';
import type { Meaning, Piece } from './pieces.js';
import type { Rule, RuleInput } from './rule.js';
import { timeRules } from './time-rules.js';
import { spanText, tokenize, type Token, type Words } from './tokens.js';
import { hasNoDataMeaning, ownPlaceWords, tolerate } from './unknown-words.js';

export interface Scan {
  words: Words;
  tokens: Token[];
  pieces: Piece[];
  /** indexes of the words nothing took and that are not stop words */
  unplaced: number[];
  /** indexes of unknown words passed over as no condition on the data (unknown-words.ts): the answer says them */
  skipped: number[];
}

const RULES: Rule[] = [...timeRules, ...hourRules, ...placeRules, removeRule];

export function scan(text: string, ctx: ReadContext): Scan {
  const words = tokenize(text);
  const tokens = words.tokens;
  const lex = baseLexicon();
  const areas = areaLexicon(ctx.areas);
  const vocabulary = fuzzyVocabulary(ctx.areas);
  for (const tok of tokens) {
    const unknown = !lex.known.has(tok.t) && !vocabulary.known.has(tok.t) && !hasNoDataMeaning(tok.t);
    if (tok.t.length >= 6 && /^[a-z]+$/.test(tok.t) && unknown) {
      const fix = nearest(tok.t, vocabulary.words, (w) => sense(w, lex.phrases, areas));
      if (fix) tok.t = fix;
    }
  }
  const t = tokens.map((x) => x.t);
  const said = (i: number, len: number) => spanText(words, i, len);
  const input: RuleInput = { t, said, ctx };
  const pieces: Piece[] = [];
  const unplaced: number[] = [];
  let i = 0;
  while (i < t.length) {
    let best: { len: number; meanings: Meaning[]; rank: number } | undefined;
    const consider = (len: number, meanings: Meaning[], rank: number) => {
      if (len > 0 && (!best || len > best.len || (len === best.len && rank < best.rank))) best = { len, meanings, rank };
    };
    RULES.forEach((rule, k) => {
      const m = rule(input, i);
      if (m) consider(m.len, m.meanings, k);
    });
    for (let len = Math.min(lex.maxLen, t.length - i); len >= 1 && (!best || len >= best.len); len--) {
      const key = t.slice(i, i + len).join(' ');
      const entry = pick(areas.get(key), t, i, len) ?? pick(lex.phrases.get(key), t, i, len);
      if (entry) {
        consider(len, entry.meanings, 100 + entry.prio);
        break;
      }
    }
    if (!best) {
      for (const rule of numberRules) {
        const m = rule(input, i);
        if (m) consider(m.len, m.meanings, 1000);
      }
    }
    if (best) {
      const text = said(i, best.len);
      for (const meaning of best.meanings) pieces.push({ ...meaning, start: i, end: i + best.len, text });
      i += best.len;
    } else {
      if (!lex.stop.has(t[i]) && !hasNoDataMeaning(t[i])) unplaced.push(i);
      i++;
    }
  }
  // "robberies in district 7 ... in my district": the district named
  const own = ownPlaceWords(tokens, pieces);
  const kept = pieces.filter((p) => !own.includes(p.start));
  const known = unplaced.filter((k) => !own.includes(k));
  // only words the vocabulary has never heard of may be passed over ("may" without a month's company is not one)
  const strange = known.filter((k) => !lex.known.has(t[k]) && !vocabulary.known.has(t[k]));
  const { skipped } = tolerate(tokens, kept, strange, words.source);
  const left = known.filter((k) => !skipped.includes(k));
  return { words, tokens, pieces: kept, unplaced: left, skipped };
}

/** What a single word means, to tell whether two corrections are the same word. */
function sense(w: string, phrases: Map<string, Entry[]>, areas: Map<string, Entry[]>): string {
  const e = areas.get(w) ?? phrases.get(w);
  return e ? JSON.stringify(e.map((x) => x.meanings)) : `word:${w}`;
}

function pick(list: Entry[] | undefined, t: readonly string[], i: number, len: number): Entry | undefined {
  return list?.find((e) => !e.guard || e.guard(t, i, i + len));
}

interface Fuzzy {
  words: string[];
  known: Set<string>;
}
const fuzzyTables = new WeakMap<ReadonlyMap<string, number>, Fuzzy>();

/** The words typos are corrected to: the names in the vocabulary and the area names, of 5+ letters. */
function fuzzyVocabulary(areas: ReadonlyMap<string, number>): Fuzzy {
  let f = fuzzyTables.get(areas);
  if (!f) {
    const known = new Set<string>();
    for (const key of areaLexicon(areas).keys()) for (const w of key.split(' ')) known.add(w);
    const words = [...new Set([...baseLexicon().correctable, ...known])].filter((w) => w.length >= 5 && /^[a-z]+$/.test(w));
    f = { words, known };
    fuzzyTables.set(areas, f);
  }
  return f;
}

/**
 * The only word at one edit (insert, delete, substitute, swap of neighbours) with the same first
 * letter, or undefined. Typos rarely touch the first letter; real words that are one edit from a
 * vocabulary word often do ("running" / Dunning, "talking" / stalking).
 */
function nearest(word: string, words: readonly string[], sense: (w: string) => string): string | undefined {
  let found: string | undefined;
  for (const w of words) {
    if (w[0] !== word[0] || Math.abs(w.length - word.length) > 1 || !oneEdit(word, w)) continue;
    // "burglries" is one edit from "burglaries" and from "burgleries": the same word
    if (found !== undefined && sense(found) !== sense(w)) return undefined;
    found ??= w;
  }
  return found;
}

function oneEdit(a: string, b: string): boolean {
  if (a === b) return false;
  if (a.length === b.length) {
    const diff: number[] = [];
    for (let k = 0; k < a.length && diff.length <= 2; k++) if (a[k] !== b[k]) diff.push(k);
    if (diff.length === 1) return true;
    return diff.length === 2 && diff[1] === diff[0] + 1 && a[diff[0]] === b[diff[1]] && a[diff[1]] === b[diff[0]];
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  let k = 0;
  while (k < s.length && s[k] === l[k]) k++;
  return s.slice(k) === l.slice(k + 1);
}
