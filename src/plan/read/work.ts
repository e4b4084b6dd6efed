// The state of one reading: the pieces still in play, the words that could
// not be placed, and why. Dropping a piece puts its words among the unplaced.
import type { Piece } from './pieces.js';
import type { Scan } from './scan.js';
import { spanText } from './tokens.js';

/** The words before "no" that make "had no homicides" a question about groups with none. */
const NONE_INTRO = new Set(['had', 'have', 'has', 'with', 'saw', 'see', 'recorded', 'reported', 'where', 'that', 'got', 'went']);

/** The relation words that leave out the crime types after them. */
const EXCLUDING = new Set([
  'except',
  'except for',
  'excluding',
  'exclude',
  'not',
  'other than',
  'apart from',
  'besides',
  'but not',
  'non',
  'minus',
]);
/** Words between the types left out: "excluding thefts and batteries", "except for the thefts". */
const LINKS = new Set(['for', 'the', 'any', 'all', 'and', 'or', ',', 'nor']);

export class Work {
  readonly bad: Set<number>;
  readonly problems: string[] = [];
  private dropped = new Set<Piece>();

  constructor(readonly scan: Scan) {
    this.bad = new Set(scan.unplaced);
    const pieces = this.all();
    for (const p of pieces) {
      if (p.kind === 'invalid') this.drop(p);
      if ((p.kind === 'relation' || (p.kind === 'number' && p.n === 0)) && this.saysNone(p, pieces)) {
        // "which areas had no homicides": not a relation but the groups with none (the subject stays)
        this.scan.pieces.splice(this.scan.pieces.indexOf(p), 1, { kind: 'none', start: p.start, end: p.end, text: p.text });
        continue;
      }
      if (p.kind === 'relation' && this.negatesTypes(p, pieces)) continue;
      if (p.kind === 'relation') {
        // "near schools", "not in Austin": what follows the relation cannot be placed either
        this.drop(p);
        const next = pieces.find((q) => q.start >= p.end && q.kind !== 'followUp');
        if (next) for (const q of pieces) if (q.start === next.start) this.drop(q);
      }
    }
    // "which wards had zero homicides": "zero" (no reading of its own) is the groups with none
    for (const i of [...this.bad]) {
      const z = { kind: 'none' as const, start: i, end: i + 1, text: this.scan.tokens[i].raw };
      if (this.scan.tokens[i].t === 'zero' && this.saysNone({ ...z, text: 'zero' }, pieces)) {
        this.scan.pieces.push(z);
        this.bad.delete(i);
      }
    }
    // a number is the N of a ranking: "top 5", "5 most", "which 3 districts"; "which one" is no number
    for (const p of this.live()) {
      if (p.kind !== 'number') continue;
      if (p.text.toLowerCase() === 'one' && this.scan.tokens[p.start - 1]?.t === 'which') {
        this.dropped.add(p);
        continue;
      }
      // "top 5 instead of 10", "top 10 rather than 5": the N it replaces, said and understood
      if (this.replacedNumber(p)) {
        this.scan.pieces.splice(this.scan.pieces.indexOf(p), 1);
        this.bad.delete(p.start - 1); // the "than" of "rather than"
        continue;
      }
      const prev = this.live().find((q) => q.end === p.start && q.kind === 'rank');
      // "the 3 with the fewest", "the 5 with the most", "which five had the fewest", "which 3 saw the most"
      const linked = ['with', 'had', 'have', 'saw'].includes(this.scan.tokens[p.end]?.t ?? '');
      const after = linked ? (this.scan.tokens[p.end + 1]?.t === 'the' ? p.end + 2 : p.end + 1) : p.end;
      const next = this.live().find((q) => (q.start === p.end || q.start === after) && (q.kind === 'rank' || (q.kind === 'dim' && !q.by)));
      if (!prev && !next) this.drop(p);
    }
  }

  /**
   * "excluding thefts", "not theft", "other than thefts and batteries": the types that follow are left out
   * (the relation word gives way to them). Only an exclusion word directly before crime types, or before
   * location types ("not on the street", "excluding the street"), never both.
   */
  private negatesTypes(p: Piece, pieces: Piece[]): boolean {
    // the words as read (the phrasebook's "excluding" for "excl", "leave out the ones")
    const words = this.scan.tokens
      .slice(p.start, p.end)
      .map((x) => x.t)
      .join(' ');
    if (!EXCLUDING.has(words)) return false;
    const negated: Piece[] = [];
    let at = p.end;
    for (;;) {
      while (LINKS.has(this.scan.tokens[at]?.t ?? '')) at++;
      const next = pieces.find(
        (q) =>
          q.start === at &&
          ((q.kind === 'type' && !q.descriptions) || q.kind === 'location') &&
          (!negated.length || q.kind === negated[0].kind),
      );
      if (!next) break;
      negated.push(next);
      at = next.end;
    }
    if (!negated.length) return false;
    for (const q of negated) if (q.kind === 'type' || q.kind === 'location') q.negated = true;
    this.scan.pieces.splice(this.scan.pieces.indexOf(p), 1);
    return true;
  }

  /** A number after "instead of" / "rather than" whose ranking has its own number ("top 5 instead of 10"). */
  private replacedNumber(p: Piece): boolean {
    const t = (k: number) => this.scan.tokens[k]?.t;
    const replaced =
      (t(p.start - 1) === 'of' && t(p.start - 2) === 'instead') || (t(p.start - 1) === 'than' && t(p.start - 2) === 'rather');
    return replaced && this.live().some((q) => q !== p && q.kind === 'number' && q.end <= p.start);
  }

  /** "had no X", "had zero X", "with no X", "without any X" after a grouping: the groups with none of X. */
  private saysNone(p: Pick<Piece, 'start' | 'end' | 'text'>, pieces: Piece[]): boolean {
    const word = p.text.toLowerCase();
    if (word !== 'no' && word !== 'without' && word !== 'zero' && word !== '0') return false;
    const before = this.scan.tokens[p.start - 1]?.t ?? '';
    if (!NONE_INTRO.has(before)) return false;
    const next = this.scan.tokens[p.end]?.t === 'any' ? p.end + 1 : p.end;
    const subject = pieces.some(
      (q) => q.start === next && (q.kind === 'type' || q.kind === 'category' || q.kind === 'all' || (q.kind === 'flag' && q.noun === true)),
    );
    return subject && pieces.some((q) => q.kind === 'dim' && q.end <= p.start);
  }

  /** every piece, in word order */
  all(): Piece[] {
    return [...this.scan.pieces].sort((a, b) => a.start - b.start || a.end - b.end);
  }

  live(): Piece[] {
    return this.all().filter((p) => !this.dropped.has(p));
  }

  of<K extends Piece['kind']>(kind: K): Extract<Piece, { kind: K }>[] {
    return this.live().filter((p): p is Extract<Piece, { kind: K }> => p.kind === kind);
  }

  drop(p: Piece, why?: string): void {
    this.dropped.add(p);
    for (let k = p.start; k < p.end; k++) this.bad.add(k);
    if (why) this.problems.push(why);
  }

  isDropped(p: Piece): boolean {
    return this.dropped.has(p);
  }

  /** the normalised word at i */
  word(i: number): string | undefined {
    return this.scan.tokens[i]?.t;
  }

  /** the unplaced words as phrases: runs of neighbouring words as written */
  unplacedPhrases(): string[] {
    const idx = [...this.bad].sort((a, b) => a - b);
    const out: string[] = [];
    let runStart = -1;
    let prev = -2;
    for (const k of [...idx, Number.MAX_SAFE_INTEGER]) {
      if (k !== prev + 1) {
        if (runStart >= 0) {
          const text = spanText(this.scan.words, runStart, prev + 1 - runStart);
          if (!out.includes(text)) out.push(text);
        }
        runStart = k;
      }
      prev = k;
    }
    return out;
  }
}
