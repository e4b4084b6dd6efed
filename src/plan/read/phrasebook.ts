// How people type what the reader already understands ("w/ arrest", "by dist",
// "top10", "from 2018 on", "same thing but"): the phrasebook
// (fixtures/knowledge/phrasebook.json) rewrites such words into the reader's
// own before the vocabulary is matched. Words it does not list are left as
// they are, so a word that changes the meaning and is not understood is still
// refused.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../core/paths.js';

interface Word {
  t: string;
  raw: string;
  start: number;
  end: number;
}

interface Book {
  splits: RegExp[];
  /** patterns by first word, longest first */
  phrases: Map<string, Phrase[]>;
}

interface Phrase {
  /** words; {year} is a four-digit year, {n} a number of one to three digits, {words} one to four words, all copied into 'read' */
  say: string[];
  read: string[];
  /** only when nothing but punctuation or the end of the text follows ("from 2018 on", not "from 2018 on the street") */
  clauseEnd: boolean;
  /** the second word when it is a plain word: most candidates are told apart by it without fitting the rest */
  second?: string;
}

const YEAR = '{year}';
/** a whole number of one to three digits ('limit {n}'), copied into 'read' */
const NUMBER = '{n}';
const WORDS = '{words}';
const MAX_WORDS = 4;
const isYear = (w: string) => /^(19|20)\d{2}$/.test(w);
const isNumber = (w: string) => /^\d{1,3}$/.test(w);

let book: Book | undefined;

/** The phrasebook, and the books of one kind of speaker kept apart (phrasebook-analyst.json: SQL and stats words; phrasebook-chat.json: chat wording). */
const FILES = ['phrasebook.json', 'phrasebook-analyst.json', 'phrasebook-chat.json'];

interface BookFile {
  split?: { word: string }[];
  phrases: { say: string; read: string; clause_end?: boolean }[];
}

function load(): Book {
  const files = FILES.map((name) => JSON.parse(readFileSync(fixturePath('knowledge', name), 'utf8')) as BookFile);
  const phrases = new Map<string, Phrase[]>();
  for (const p of files.flatMap((f) => f.phrases)) {
    const say = p.say.split(' ');
    const list = phrases.get(say[0]) ?? [];
    const second = say[1] === undefined || say[1] === YEAR || say[1] === WORDS || say[1] === NUMBER ? undefined : say[1];
    list.push({ say, read: p.read ? p.read.split(' ') : [], clauseEnd: p.clause_end === true, second });
    phrases.set(say[0], list);
  }
  for (const list of phrases.values()) list.sort((a, b) => b.say.length - a.say.length);
  return { splits: files.flatMap((f) => f.split ?? []).map((s) => new RegExp(s.word)), phrases };
}

/** The words with the phrasebook's rewritings applied; a rewritten word keeps the span it was said in. */
export function rewrite<T extends Word>(words: readonly T[], source: string): T[] {
  book ??= load();
  const split: T[] = [];
  for (const w of words) {
    const m = book.splits.map((re) => re.exec(w.t)).find((x) => x);
    if (m) for (const part of m.slice(1)) split.push({ ...w, t: part });
    else split.push(w);
  }
  const out: T[] = [];
  let i = 0;
  while (i < split.length) {
    const found = phraseAt(split, i, book, source);
    if (!found) {
      out.push(split[i++]);
      continue;
    }
    const first = split[i];
    const last = split[i + found.len - 1];
    const span = {
      start: first.start,
      end: last.end,
      raw: split
        .slice(i, i + found.len)
        .map((x) => x.raw)
        .join(' '),
    };
    for (const r of found.read) {
      if (r === WORDS) out.push(...rewrite(found.words, source));
      else out.push({ ...first, ...span, t: r === YEAR ? found.year! : r === NUMBER ? found.n! : r });
    }
    i += found.len;
  }
  return out;
}

interface Found extends Phrase {
  len: number;
  year?: string;
  n?: string;
  words: Word[];
}

function phraseAt<T extends Word>(words: readonly T[], i: number, b: Book, source: string): (Found & { words: T[] }) | undefined {
  // each list is sorted longest first when loaded; only a year merges two lists here
  const own = b.phrases.get(words[i].t) ?? [];
  const candidates = isYear(words[i].t) ? [...own, ...(b.phrases.get(YEAR) ?? [])].sort((x, y) => y.say.length - x.say.length) : own;
  const next = words[i + 1]?.t;
  for (const c of candidates) {
    if (c.second !== undefined && c.second !== next) continue;
    const m = fit(c.say, 0, words, i, source, c.clauseEnd);
    if (m) return { ...c, ...m };
  }
  return undefined;
}

/** The words of 'say' from k on, matched at words[i]: the length taken, the year and the {words} copied. */
function fit<T extends Word>(
  say: string[],
  k: number,
  words: readonly T[],
  i: number,
  source: string,
  clauseEnd: boolean,
): { len: number; year?: string; n?: string; words: T[] } | undefined {
  if (k === say.length) {
    const end = words[i - 1]?.end ?? 0;
    return !clauseEnd || /^\s*(?:[,.;:!?)]|$)/.test(source.slice(end)) ? { len: 0, words: [] } : undefined;
  }
  const s = say[k];
  if (s === WORDS) {
    // the fewest words that let the rest fit ("put battery next to it", "put the 2020 numbers next to each month")
    for (let n = 1; n <= MAX_WORDS && i + n <= words.length; n++) {
      const rest = fit(say, k + 1, words, i + n, source, clauseEnd);
      if (rest) return { ...rest, len: rest.len + n, words: [...words.slice(i, i + n), ...rest.words] };
    }
    return undefined;
  }
  const w = words[i]?.t;
  if (w === undefined) return undefined;
  if (s === YEAR ? !isYear(w) : s === NUMBER ? !isNumber(w) : s !== w) return undefined;
  const rest = fit(say, k + 1, words, i + 1, source, clauseEnd);
  return rest && { ...rest, len: rest.len + 1, year: s === YEAR ? w : rest.year, n: s === NUMBER ? w : rest.n };
}
