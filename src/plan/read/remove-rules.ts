// Edits that take away: "drop the year filter", "without the arrest filter",
// "drop the district", "no time filter" take a slot of the thread's last plan
// away; "exclude domestic", "excluding arrests" negate a flag. The words are
// the semantic model's (removals). "without" and "no" take a slot only with a
// filter noun after it: "without an arrest" stays a negated flag.
import { semanticModel } from './model.js';
import type { RemovableSlot } from './pieces.js';
import type { Rule } from './rule.js';
import { phraseKey } from './tokens.js';

interface Removals {
  verbs: string[];
  negations: string[];
  exclusions: string[];
  filter_nouns: string[];
  slots: Record<RemovableSlot, string[]>;
}

interface Table {
  verbs: string[][];
  negations: string[][];
  exclusions: string[][];
  nouns: string[][];
  slots: { words: string[]; slot: RemovableSlot }[];
}

let cached: Table | undefined;

const phrases = (list: readonly string[]): string[][] => list.map((w) => phraseKey(w).split(' ')).sort((a, b) => b.length - a.length);

function table(): Table {
  if (cached) return cached;
  const r = (semanticModel() as unknown as { removals?: Removals }).removals;
  const slots = Object.entries(r?.slots ?? {}).flatMap(([slot, words]) =>
    phrases(words).map((w) => ({ words: w, slot: slot as RemovableSlot })),
  );
  cached = {
    verbs: phrases(r?.verbs ?? []),
    negations: phrases(r?.negations ?? []),
    exclusions: phrases(r?.exclusions ?? []),
    nouns: phrases(r?.filter_nouns ?? []),
    slots: slots.sort((a, b) => b.words.length - a.words.length),
  };
  return cached;
}

/** The length of the longest phrase of `list` at word i, or 0. */
function longest(t: readonly string[], i: number, list: readonly string[][]): number {
  return list.find((p) => p.every((w, k) => t[i + k] === w))?.length ?? 0;
}

const ARTICLES = new Set(['the', 'any', 'that', 'this', 'those', 'these', 'all']);

export const removeRule: Rule = ({ t }, i) => {
  const tb = table();
  const verb = longest(t, i, tb.verbs);
  const negation = verb ? 0 : longest(t, i, tb.negations);
  const exclusion = verb || negation ? 0 : longest(t, i, tb.exclusions);
  const lead = verb || negation || exclusion;
  if (!lead) return undefined;
  let k = i + lead;
  if (ARTICLES.has(t[k] ?? '')) k++;
  const slot = tb.slots.find((s) => s.words.every((w, j) => t[k + j] === w));
  if (!slot) return undefined;
  k += slot.words.length;
  if (exclusion) {
    // "exclude domestic", "excluding arrests": the flag negated; other slots cannot be excluded in a plan
    if (slot.slot !== 'arrest' && slot.slot !== 'domestic') return undefined;
    if (t[k] === 'ones') k++;
    return { len: k - i, meanings: [{ kind: 'flag', flag: slot.slot, value: false }] };
  }
  const noun = longest(t, k, tb.nouns);
  if (negation && !noun) return undefined;
  return { len: k + noun - i, meanings: [{ kind: 'remove', slot: slot.slot }] };
};
