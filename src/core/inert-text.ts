// One check for every string a model or the data puts in front of a person:
// a restated question, a plan's words, a column name, a value from the crime
// table (a description is anyone's to write when a CSV is loaded), a chart
// label, a strategy's name. A string is not shown when it carries a way out
// of the answer: a link, plain or disguised (crime-stats[.]example, "dot com",
// hxxp), a domain under any real top-level domain (the IANA list, from the
// `tlds` package), an IP or e-mail address, a phone number in any script's
// digits, a mention or a slash command, a fake badge or system notice, an
// instruction to the reader, numbers written in words (they slip past every
// check of the numbers), markup, data or SQL instead of sentences, a word
// mixing Latin with look-alike letters, direction controls, or sheer length.
//
// The rules read the string as a person sees it, in three forms:
//   seen:  text-skeleton.ts (NFKC, invisibles removed, look-alikes folded,
//          any script's digits as 0-9, dot look-alikes as ".");
//   plain: only NFKC and invisibles removed (folding turns "пример.рф" into
//          no domain at all);
//   loose: seen, with letters written apart joined ("v e r i f i e d"),
//          disguised dots as dots ("crime-stats [dot] com"), and for the word
//          rules leetspeak read as letters ("v3rif1ed", "cIick", "l0gin").
// Every rule is linear in the string's length: domains are found token by
// token against a set of TLDs, not by a backtracking pattern (a 16,000-
// character string took 139 s with one).
// The words of the badge, instruction and number rules are data:
// fixtures/security/inert-vocabulary.json. fixtures/security/inert-corpus.json
// holds the strings the check must stop and the real sentences it must let
// through.
import { readFileSync } from 'node:fs';
import tldList from 'tlds' with { type: 'json' };
import { fixturePath } from './paths.js';
import { mixesScripts, skeleton, withoutInvisibles } from './text-skeleton.js';

interface Vocabulary {
  badge: string[];
  instruction: string[];
  numberWords: string[];
}

/** The longest string judged at all: a label, a name or a sentence is far shorter; a longer one is no value to show. */
const LONGEST = 1_000;

/** Names reserved for examples and local use (RFC 2606, 6761, 7686): not in the IANA list, written in links all the same. */
const SPECIAL_USE = ['example', 'test', 'invalid', 'localhost', 'local', 'onion', 'internal', 'lan', 'intranet', 'corp'];
/** TLDs that are no English word: written after a spaced dot or a comma ("crime-stats. com", "crime-stats,com") they are still links. */
const WORDLESS_TLD = 'com|net|org|io|ru|cn|xyz|info|biz|example|uk|de|ly|gg|cc|ws|co';

let tldSet: Set<string> | undefined;
const tlds = () => (tldSet ??= new Set([...(tldList as readonly string[]), ...SPECIAL_USE]));

/** A run of characters a host name is made of; a domain is one with a dot and a real TLD after it. */
// (an underscore belongs to the run: pg_catalog.pg_user is a name whose last part is no TLD, x_y.evil.com a host in .com)
const HOSTISH = /(?<![\p{L}\p{N}_-])[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+/gu;

function hasDomain(text: string): boolean {
  const known = tlds();
  for (const match of text.matchAll(HOSTISH)) {
    const labels = match[0].toLowerCase().split('.');
    const tld = labels.at(-1)!;
    if (labels.every((l) => l.length > 0) && known.has(tld) && /\p{L}/u.test(tld)) return true;
  }
  return false;
}

/** Disguised dots and @ written as words or in brackets, and letters written apart, joined: the text a link-reader sees. */
function joined(seen: string): string {
  return (
    seen
      // "(v)(e)(r)" as NFKC writes parenthesized letters
      .replace(/\((\p{L})\)/gu, '$1')
      // letters written apart by single spaces, dots or hyphens: "v e r i f i e d", "V.E.R.I.F.I.E.D", "c o m"
      .replace(/(?<![\p{L}\p{N}])\p{L}(?:[ .\-·]\p{L}){2,}(?![\p{L}\p{N}])/gu, (m) => m.replace(/[ .\-·]/g, ''))
      .replace(/(?<!\s)\s*(?:\[\s*(?:\.|dot|d0t|d\.o\.t)\s*\]|\(\s*(?:\.|dot|d0t|d\.o\.t)\s*\)|\{\s*(?:\.|dot|d0t)\s*\})\s*/gi, '.')
      .replace(/(?<=[\p{L}\p{N}])(?:\s+|-)(?:dot|d0t)(?:\s+|-)(?=[\p{L}\p{N}])/giu, '.')
      .replace(/(?<=[\p{L}\p{N}])\s*dot(?=com\b|net\b|org\b)/giu, '.')
      .replace(/(?<!\s)\s*(?:\[\s*at\s*\]|\(\s*at\s*\)|\{\s*at\s*\})\s*/gi, '@')
      .replace(new RegExp(`(?<=[\\p{L}\\p{N}])(?:\\s+\\.\\s*|\\.\\s+|,)(?=(?:${WORDLESS_TLD})(?![\\p{L}\\p{N}]))`, 'giu'), '.')
      .replace(/(?<=[\p{L}\p{N}])\s+\.\s*(?=\p{L})/gu, '.')
      .replace(/(?<=[\p{L}\p{N}])\s*@\s*(?=[\p{L}\p{N}])/gu, '@')
  );
}

/** Leetspeak and look-alike letters read as the letters they stand for, for the word rules ("v3rif1ed", "cIick", "l0gin"). */
const leet = (text: string) =>
  text
    .toLowerCase()
    .replace(/[1|!l]/g, 'i')
    .replace(/0/g, 'o')
    .replace(/3/g, 'e')
    .replace(/[4@]/g, 'a')
    .replace(/[5$]/g, 's')
    .replace(/7/g, 't');

// an underscore joins a name (reader_login is no "log in")
const words = (list: string[]) => new RegExp(`(?<![\\p{L}\\p{N}_])(?:${list.join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
/** The same words as leet() writes them (an "l" in a word is an "i" there). */
const leetWords = (list: string[]) => words(list.map((w) => w.replace(/l/g, 'i')));

interface Checks {
  link: RegExp;
  address: RegExp;
  email: RegExp;
  phone: RegExp[];
  mention: RegExp;
  slash: RegExp;
  markup: RegExp;
  data: RegExp;
  vocabulary: [RegExp, RegExp, string][];
}

function buildChecks(): Checks {
  const v = JSON.parse(readFileSync(fixturePath('security', 'inert-vocabulary.json'), 'utf8')) as Vocabulary;
  return {
    link: /\b(?:h[tx]{2}ps?|ftp|javascript|mailto|tel|sms|slack|msteams):|\b(?:file|data):[/a-z]|\/\/[\p{L}\p{N}]|\bhttps?\b|\bwww\s*\.|\]\(|<[^>|\s]+\|[^>]*>|(?<![\p{L}\p{N}-])[\p{L}\p{N}-]+\s+(?:com|net|org|ly|io)\/\S/iu,
    address: /\b\d{1,3}(?:\s*\.\s*\d{1,3}){3}\b|\[[0-9a-f:]{6,}\]/i,
    email: /(?<![^\s<])[^\s@<]+@[\p{L}\p{N}-]+\.[\p{L}]{2,}/iu,
    phone: [
      // vanity and toll-free numbers: 1-800-CPD-DATA
      /\b1?[\s.-]?8(?:00|33|44|55|66|77|88)[\s.-]+[A-Z0-9]{3}[\s.-]+[A-Z0-9]{4}\b/,
      /\b(?:tel|phone|call|text|whatsapp|signal|hotline|helpline)\W{0,3}\+?\d[\d\s().-]{5,}/i,
    ],
    mention: /<[!@#][^>]*>|(?:^|[\s(,;:])@\s?(?:channel|here|everyone|[\p{L}\p{N}_.-]+)/iu,
    slash: /(?:^|[\s"'(:])\/[a-z][a-z0-9_-]{2,}(?:\s|$)/i,
    markup: /[*_~`]{2,}|(?:^|\s)#{1,6}\s|(?:^|\s)>\s|<\/?[a-z][^>]*>|!\[|&#\d+;|&#x[0-9a-f]+;/im,
    data: /^\s*[{[]|[{[]\s*"|\bselect\b[\s\S]*\bfrom\b/i,
    vocabulary: [
      [words(v.badge), leetWords(v.badge), 'a badge'],
      [words(v.instruction), leetWords(v.instruction), 'an instruction'],
      [words(v.numberWords), leetWords(v.numberWords), 'numbers in words'],
    ],
  };
}

let checks: Checks | undefined;

/** Right-to-left marks, overrides and isolates: they make "moc.yfirev" read as a domain; real text never carries them. */
const BIDI_CONTROLS = /[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/;
/** Badge and notice symbols. */
const BADGE_SYMBOLS = /[✓✅✔☑√🗸🆗🔒🔐🛡🏅🎖⚠]|:white_check_mark:|:heavy_check_mark:|:lock:|:warning:/u;
/** A day, a time or a span of years: digit groups that are no phone number. */
const NOT_A_PHONE = /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b|\b(?:19|20)\d{2}\s*[-–]\s*(?:19|20)\d{2}\b/g;
/** Digit groups joined by what people put between them: spaces, dots, hyphens, slashes, bullets, emoji; parentheses around the first. */
const DIGIT_RUN = /\+?\(?\d+\)?(?:[\s.\-/_·•∙⋅\u2044\u2012-\u2015\p{Extended_Pictographic}\uFE0F]+\d+)*/gu;

/** A letter among digits stands for one: 312-555-O199, 312-555-0l99. */
const lettersAsDigits = (text: string) =>
  text.replace(/(?<=[\d\s.-])[Oo](?=\d)|(?<=\d)[Oo](?=[\d\s.-])/g, '0').replace(/(?<=[\d\s.-])[lI|](?=\d)|(?<=\d)[lI|](?=[\d\s.-])/g, '1');

/** Phone numbers in any form: 7 to 15 digits in groups of at most 4 (or 10 to 15 in one), or spoken as digit words. */
function hasPhone(seen: string, c: Checks): boolean {
  const text = lettersAsDigits(seen.replace(NOT_A_PHONE, ' '));
  for (const run of text.matchAll(DIGIT_RUN)) {
    const groups = run[0].split(/\D+/).filter(Boolean);
    const digits = groups.join('').length;
    if (digits < 7 || digits > 15) continue;
    // a decimal (41.766260675) is no phone number; 312.555.0199 is
    const separators = run[0]
      .replace(/^\D+|\D+$/g, '')
      .split(/\d+/)
      .filter(Boolean);
    const decimal =
      separators.length > 0 && separators.every((sep) => sep === '.') && (groups.length === 2 || groups.some((g) => g.length > 4));
    if (decimal) continue;
    if (groups.length === 1 ? digits >= 10 : groups.every((g) => g.length <= 8)) return true;
  }
  if (/(?:\b(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)\b[\s,-]*){5,}/i.test(text)) return true;
  return c.phone.some((p) => p.test(text));
}

/**
 * Verdicts of recent strings: a table repeats its descriptions and places row after row. Large enough for a
 * whole-market table's distinct values (5,000+ names and codes) to be judged once, not once per clearing.
 */
const recent = new Map<string, string | null>();
const RECENT_MAX = 50_000;

/** What the string carries that a person must not be shown, in a few words; undefined when it is inert. */
export function inertProblem(text: string): string | undefined {
  const known = recent.get(text);
  if (known !== undefined) return known ?? undefined;
  const verdict = judge(text);
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(text, verdict ?? null);
  return verdict;
}

function judge(text: string): string | undefined {
  if (text.length > LONGEST) return `it was ${text.length.toLocaleString('en-US')} characters long`;
  if (BIDI_CONTROLS.test(text)) return 'it contained direction controls';
  if (mixesScripts(text)) return 'it contained look-alike letters';
  const c = (checks ??= buildChecks());
  const plain = withoutInvisibles(text.normalize('NFKC'));
  const seen = skeleton(text);
  const loose = joined(seen);
  const lettered = leet(loose);
  if (c.link.test(seen) || c.link.test(loose) || [plain, seen, loose].some(hasDomain)) return 'it contained a link';
  if (c.address.test(seen)) return 'it contained an address';
  if (c.email.test(seen) || c.email.test(loose)) return 'it contained an e-mail address';
  if (hasPhone(seen, c)) return 'it contained a phone number';
  if (c.mention.test(seen)) return 'it contained a mention';
  if (c.slash.test(seen)) return 'it contained a slash command';
  if (BADGE_SYMBOLS.test(seen)) return 'it contained a badge';
  for (const [exact, written, what] of c.vocabulary) if (exact.test(loose) || written.test(lettered)) return `it contained ${what}`;
  if (c.markup.test(seen)) return 'it contained markup';
  if (c.data.test(seen)) return 'it contained data or SQL, not sentences';
  return undefined;
}

/** What a withheld value says in its place. */
const WITHHELD = '(a value not shown: it looks like a link or an instruction)';

/** A value from the data or a model, shown: without invisible characters when inert, else said as withheld. */
export function shownValue(value: string): string {
  return inertProblem(value) ? WITHHELD : withoutInvisibles(value);
}

/**
 * A result as it may be shown: a column name a model wrote ("Call 312-555-0199 to verify") becomes "column_3",
 * a text cell that is not inert is withheld, and invisible characters go from both.
 */
export function shownResult<R extends { columns: string[]; rows: (string | number | boolean | null)[][] }>(r: R): R {
  // each distinct cell once per table, whatever the shared cache kept: a column repeats its values row after row
  const shown = new Map<string, string>();
  const cell = (c: string) => {
    let out = shown.get(c);
    if (out === undefined) shown.set(c, (out = shownValue(c)));
    return out;
  };
  return {
    ...r,
    columns: r.columns.map((c, i) => (inertProblem(c.replace(/_/g, ' ')) ? `column_${i + 1}` : withoutInvisibles(c))),
    rows: r.rows.map((row) => row.map((c) => (typeof c === 'string' ? cell(c) : c))),
  };
}
