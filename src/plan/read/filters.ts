// Filter pieces -> Filters: lists add up ("thefts and burglaries", "in Austin
// and Englewood"), single values must agree, and two conditions that
// contradict or overlap (weekend and weekdays, night and "after 10pm") are
// refused rather than guessed.
import type { Filters } from '../query-plan.js';
import type { Piece } from './pieces.js';
import type { Work } from './work.js';

/** what a share's part can hold */
export const PART_KINDS = new Set<Piece['kind']>(['type', 'category', 'location', 'flag', 'night', 'weekend']);

const union = <T>(a: T[] | undefined, b: readonly T[]): T[] => [...new Set([...(a ?? []), ...b])];

/** Merges filter pieces into `into` (the time is not a filter piece here). */
export function mergeFilters(pieces: Piece[], work: Work, into: Filters = {}): Filters {
  const f = into;
  const typePieces = pieces.filter((p) => p.kind === 'type');
  for (const p of pieces) {
    switch (p.kind) {
      case 'type':
        if (p.descriptions && typePieces.length > 1) {
          work.drop(p, `"${p.text}" is one kind of ${p.types[0].toLowerCase()}: it cannot be combined with other types`);
          break;
        }
        if (p.negated) {
          leaveOut(f, p.types);
          break;
        }
        if (f.exceptTypes) {
          work.drop(p, 'a type kept and types left out at once');
          break;
        }
        f.types = union(f.types, p.types);
        if (p.descriptions) f.descriptions = union(f.descriptions, p.descriptions);
        break;
      case 'category':
        if (f.category && f.category !== p.category) work.drop(p, 'two categories');
        else f.category = p.category;
        break;
      case 'location':
        // "not on the street": the locations left out; kept and left-out locations at once are refused
        if (Boolean(p.negated) !== Boolean(f.exceptLocations) && f.locations) work.drop(p, 'a location kept and one left out at once');
        else {
          f.locations = union(f.locations, [p.location]);
          if (p.negated) f.exceptLocations = true;
        }
        break;
      case 'flag':
        if (f[p.flag] !== undefined && f[p.flag] !== p.value) work.drop(p, `${p.flag} both true and false`);
        else f[p.flag] = p.value;
        break;
      case 'months':
        f.months = union(f.months, p.months);
        break;
      case 'weekdays':
        if (f.weekend) work.drop(p, 'weekdays and the weekend together');
        else f.weekdays = union(f.weekdays, p.days).sort((a, b) => a - b);
        break;
      case 'weekend':
        if (f.weekdays) work.drop(p, 'weekdays and the weekend together');
        else f.weekend = true;
        break;
      case 'hours':
        if (f.night || (f.hours && (f.hours.from !== p.from || f.hours.to !== p.to))) work.drop(p, 'two different hours of the day');
        else f.hours = { from: p.from, to: p.to };
        break;
      case 'night':
        if (f.hours) work.drop(p, 'night and hours together');
        else f.night = true;
        break;
      case 'place': {
        if (p.place === 'blocks') f.blocks = union(f.blocks, [String(p.value)]);
        else f[p.place] = union(f[p.place], [Number(p.value)]).sort((a, b) => a - b);
        break;
      }
      default:
        break;
    }
  }
  return f;
}

/**
 * Types left out: taken from the types kept when some remain ("thefts and batteries" then "excluding thefts":
 * batteries), else every type but these ("excluding thefts" after thefts, or after all crimes).
 */
function leaveOut(f: Filters, types: readonly string[]): void {
  const kept = f.types && !f.exceptTypes ? f.types.filter((t) => !types.includes(t)) : [];
  if (kept.length && !f.descriptions) {
    f.types = kept;
    return;
  }
  delete f.descriptions;
  f.types = f.exceptTypes ? union(f.types, types) : [...types];
  f.exceptTypes = true;
}

/** The words of a share's part: what follows "were/that/led to/happened" after the share's subject. */
const INTRO = new Set([
  'were',
  'was',
  'are',
  'is',
  'that',
  'which',
  'happened',
  'happen',
  'happens',
  'occurred',
  'occur',
  'occurs',
  'took',
  'led',
  'lead',
  'ended',
  'resulted',
  'involved',
  'had',
  'have',
  'has',
  'got',
  'with',
]);

/**
 * The pieces that make the part of a share: those after the introducing word
 * ("what share of thefts in 2019 [were] domestic"); failing that, the arrest or
 * domestic flags that are not an adjective of the subject ("share of burglaries
 * with an arrest", "domestic share of batteries").
 */
export function sharePartPieces(cue: Piece, live: Piece[], work: Work, isSubject: (p: Piece) => boolean): Piece[] {
  let subject = live.find((p) => isSubject(p) && p.start >= cue.end);
  // "what percent were thefts": the introducing word comes before any subject, which is then the part
  if (subject && introAt(work, live, cue.end, subject.start) !== undefined) subject = undefined;
  const base = subject?.end ?? cue.end;
  const intro = introAt(work, live, base, work.scan.tokens.length);
  let part = intro === undefined ? [] : live.filter((p) => PART_KINDS.has(p.kind) && p.start >= intro);
  if (!part.length) {
    part = live.filter((p) => p.kind === 'flag' && !live.some((q) => isSubject(q) && q.kind !== 'flag' && q.start === p.end));
  }
  return part;
}

/** The first introducing word in [from, to) that no piece takes (or that starts a flag: "with an arrest"). */
function introAt(work: Work, live: Piece[], from: number, to: number): number | undefined {
  for (let k = from; k < to; k++) {
    const w = work.word(k)!;
    if (!INTRO.has(w)) continue;
    const covering = live.filter((p) => p.start <= k && k < p.end);
    if (covering.length === 0 || covering.every((p) => p.kind === 'flag' && p.start === k)) return k;
  }
  return undefined;
}
