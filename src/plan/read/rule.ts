// A rule reads a pattern (a date, an hour, "district 11") at one word of the question.
import type { ReadContext } from './context.js';
import type { Meaning } from './pieces.js';

export interface RuleInput {
  /** the normalised words */
  t: readonly string[];
  /** the words [i, i + len) as written */
  said: (i: number, len: number) => string;
  ctx: ReadContext;
}

export interface RuleMatch {
  len: number;
  meanings: Meaning[];
}

export type Rule = (input: RuleInput, i: number) => RuleMatch | undefined;

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  fifty: 50,
  hundred: 100,
};

/** A small whole number written as digits (up to 4) or a word. */
export function smallNumber(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  if (/^\d{1,4}$/.test(word)) return Number(word);
  return NUMBER_WORDS[word];
}
