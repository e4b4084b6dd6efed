// Words the vocabulary does not know (fixtures/knowledge/unknown-words.json).
// Some never carry a data meaning here (a request verb, "rows", "sorry", who
// is asking): they pass like stop words. Any other unknown word is passed over
// only where it cannot be a condition on the data (not a negation, not the
// object of "with"/"at"/"not", not beside what is counted or a filter, not a
// number), and the words passed over are returned so the answer can say them.
// Everything else stays unplaced, and the question is refused as before.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../core/paths.js';
import type { Piece } from './pieces.js';
import type { Token } from './tokens.js';

interface UnknownWordsFile {
  no_data_meaning: { group: string; why: string; words: string[] }[];
  my_place: { owners: string[]; places: Record<string, string> };
  tolerance: { max_skipped: number; negations: string[]; introducers: string[]; never_skip: { words: string[] } };
}

interface Policy {
  noMeaning: Set<string>;
  owners: Set<string>;
  /** "district" -> the place kind of its pieces ("districts") */
  places: Map<string, string>;
  maxSkipped: number;
  negations: Set<string>;
  introducers: Set<string>;
  neverSkip: Set<string>;
}

let policy: Policy | undefined;

function load(): Policy {
  const f = JSON.parse(readFileSync(fixturePath('knowledge', 'unknown-words.json'), 'utf8')) as UnknownWordsFile;
  return {
    noMeaning: new Set(f.no_data_meaning.flatMap((g) => g.words)),
    owners: new Set(f.my_place.owners),
    places: new Map(Object.entries(f.my_place.places)),
    maxSkipped: f.tolerance.max_skipped,
    negations: new Set(f.tolerance.negations),
    introducers: new Set(f.tolerance.introducers),
    neverSkip: new Set(f.tolerance.never_skip.words),
  };
}

const rules = (): Policy => (policy ??= load());

/** A word that never says which crimes to count ("pull", "rows", "sorry", "commander"). */
export function hasNoDataMeaning(word: string): boolean {
  return rules().noMeaning.has(word);
}

/** What is counted and the filters: an unknown word right before one may be its adjective ("juvenile thefts"). */
const FILTER_KINDS: Piece['kind'][] = [
  'type',
  'category',
  'all',
  'location',
  'place',
  'flag',
  'time',
  'months',
  'weekdays',
  'weekend',
  'hours',
  'night',
];
/** ... or of the measure ("YoY % change", "weighted average"). */
const BEFORE_KINDS = new Set<Piece['kind']>([...FILTER_KINDS, 'measure', 'change']);
/** ... and right after one, a bare condition ("thefts downtown", "by district downtown", "top 5 juvenile"). */
/** (after "how many", "number of", "the most" the word is what is counted: "how many shootings") */
const AFTER_KINDS = new Set<Piece['kind']>([...FILTER_KINDS, 'dim', 'number', 'measure', 'rank']);

const OBJECT_PRONOUNS = new Set(['that', 'it', 'this', 'those', 'them', 'these']);
const DETERMINERS = new Set(['the', 'a', 'an', 'that', 'those', 'this', 'these', 'any', 'all', 'its', 'their', 'my', 'our']);

export interface Tolerated {
  /** the words still unplaced (refused) */
  unplaced: number[];
  /** the unknown words passed over, for the answer's notes */
  skipped: number[];
}

/**
 * The unknown words (indexes into tokens, none taken by a piece, none a word of the vocabulary its guard
 * kept out, as "may" without a month's company) split into the ones passed over and the ones still unplaced. source is the text the token offsets refer to (to see a sentence end between words).
 */
export function tolerate(tokens: readonly Token[], pieces: readonly Piece[], unknown: readonly number[], source: string): Tolerated {
  const r = rules();
  const unknownSet = new Set(unknown);
  const startsAt = (i: number) => pieces.filter((p) => p.start === i);
  const endsAt = (i: number) => pieces.filter((p) => p.end === i);
  const sentenceEndBefore = (i: number) => i > 0 && /[.!?;:]/.test(source.slice(tokens[i - 1].end, tokens[i].start));
  const passable = (i: number): boolean => {
    const w = tokens[i].t;
    if (!/^[a-z]{3,}$/.test(w)) return false; // numbers, years, codes, one- and two-letter shorthand
    // a relation word itself ("before", "over", "since") ties what follows to the question: never passed over
    if (r.negations.has(w) || r.neverSkip.has(w) || r.introducers.has(w)) return false;
    const prev = tokens[i - 1]?.t;
    if (prev !== undefined && (r.introducers.has(prev) || r.negations.has(prev))) return false;
    if (unknownSet.has(i - 1) || unknownSet.has(i + 1)) return false;
    // the next word past "the"/"that"/"any": "juvenile thefts", and a verb on a filter ("forget the arrests", "take the arrest off")
    // a verb on the thread's answer ("break that out", "put it"): an edit not understood
    if (OBJECT_PRONOUNS.has(tokens[i + 1]?.t ?? '')) return false;
    let next = i + 1;
    while (next < tokens.length && DETERMINERS.has(tokens[next].t) && !startsAt(next).length) next++;
    // a verb and its unknown object ("put the spreadsheet next to it")
    if (next > i + 1 && unknownSet.has(next)) return false;
    // (before "how many" a word is the sentence's, not the count's: "honestly, how many")
    if (startsAt(next).some((p) => BEFORE_KINDS.has(p.kind) && !(p.kind === 'measure' && p.measure === 'count'))) return false;
    if (!sentenceEndBefore(i) && endsAt(i).some((p) => AFTER_KINDS.has(p.kind))) return false;
    return true;
  };
  const candidates = unknown.filter(passable);
  // any word refused leaves the question refused anyway; too many unknown words: nothing is passed over
  if (candidates.length > r.maxSkipped) return { unplaced: [...unknown], skipped: [] };
  return { unplaced: unknown.filter((i) => !candidates.includes(i)), skipped: candidates };
}

/**
 * "my district" / "our district" when the message names exactly one district (one ward, one beat): that place,
 * already a filter. Returns the word indexes it covers (the owner and the noun), or none.
 */
export function ownPlaceWords(tokens: readonly Token[], pieces: readonly Piece[]): number[] {
  const r = rules();
  const out: number[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    if (!r.owners.has(tokens[i].t)) continue;
    const kind = r.places.get(tokens[i + 1].t);
    if (!kind) continue;
    // only the noun itself: not a reading that goes on ("my district, 2022" read as a district number)
    if (pieces.some((p) => p.start === i + 1 && p.end !== i + 2)) continue;
    const named = new Set(pieces.filter((p) => p.kind === 'place' && p.place === kind).map((p) => (p.kind === 'place' ? p.value : '')));
    if (named.size === 1) out.push(i, i + 1);
  }
  return out;
}

/** The answer's note for the words passed over, or none. */
export function skippedNote(words: readonly string[]): string | undefined {
  if (!words.length) return undefined;
  return `I did not use: ${words.map((w) => `"${w}"`).join(', ')} (no meaning for the data that I know)`;
}
