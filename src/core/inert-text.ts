// One check for every string a model or the data puts in front of a person:
// a restated question, a plan's words, a column name, a value from the crime
// table (a description is anyone's to write when a CSV is loaded), a chart
// label, a thread title. A string is not shown when it carries a way out of
// the answer: a link, plain or disguised (crime-stats[.]example, "dot com",
// hxxp), a domain under any real top-level domain (the IANA list, from the
// `tlds` package), an IP or e-mail address, a phone number, a mention or a
// slash command, a fake badge, an instruction to the reader, numbers written
// in words (they slip past every check of the numbers), markup, data or SQL
// instead of sentences, or a word mixing Latin with look-alike letters.
//
// The rules read the string as a person sees it (text-skeleton.ts: NFKC,
// invisible characters removed, look-alike letters folded to the Latin ones),
// so "Vеrified" with a Cyrillic е, "datadesk-verify．com" with a full-width
// dot and "cl\u200bick" with a zero-width space are what they look like.
// The words of the badge, instruction and number rules are data:
// fixtures/security/inert-vocabulary.json. fixtures/security/inert-corpus.json
// holds the strings the check must stop and the real sentences it must let
// through.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fixturePath } from './paths.js';
import { mixesScripts, skeleton, withoutInvisibles } from './text-skeleton.js';

interface Vocabulary {
  badge: string[];
  instruction: string[];
  numberWords: string[];
}

/** The TLDs written most often with a spaced dot ("crime-stats . com"): a spaced dot before any TLD would read "2019. Community" as a link. */
const COMMON_TLD =
  '(?:com|net|org|io|info|biz|co|xyz|gov|edu|ru|cn|app|dev|me|ly|link|site|online|top|us|uk|de|ai|gg|tv|cc|ws|sh|to|support|help)';
/** A dot disguised: "[.]", "(.)", "{.}", "[dot]", "(dot)", " dot ". */
const DISGUISED_DOT = '(?:\\s*(?:\\[\\s*\\.\\s*\\]|\\(\\s*\\.\\s*\\)|\\{\\s*\\.\\s*\\}|\\[dot\\]|\\(dot\\)|\\{dot\\})\\s*|\\s+dot\\s+)';
/** Names reserved for examples and local use (RFC 2606, 6761, 7686): not in the IANA list, written in links all the same. */
const SPECIAL_USE = ['example', 'test', 'invalid', 'localhost', 'local', 'onion', 'internal', 'lan', 'intranet', 'corp'];
const LABEL = '[\\p{L}\\p{N}][\\p{L}\\p{N}-]*';

const words = (list: string[]) => new RegExp(`(?<![\\p{L}\\p{N}])(?:${list.join('|')})(?![\\p{L}\\p{N}])`, 'iu');

function buildChecks(): [RegExp, string][] {
  const vocabulary = JSON.parse(readFileSync(fixturePath('security', 'inert-vocabulary.json'), 'utf8')) as Vocabulary;
  const tlds = [...(createRequire(import.meta.url)('tlds') as string[]), ...SPECIAL_USE]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|');
  const END = '(?![\\p{L}\\p{N}-])';
  return [
    [
      /\b(?:h[tx]{2}ps?|ftp|javascript|mailto|tel|sms|slack|msteams):|\b(?:file|data):[\/a-z]|\/\/[\p{L}\p{N}]|\bh\s+t\s+t\s+p|\bwww\s*\.|\]\(|<[^>|\s]+\|[^>]*>/iu,
      'a link',
    ],
    [new RegExp(`${LABEL}(?:\\.${LABEL})*\\.(?:${tlds})${END}`, 'iu'), 'a link'],
    [new RegExp(`${LABEL}(?:(?:${DISGUISED_DOT}|\\s*\\.\\s*)${LABEL})*${DISGUISED_DOT}(?:${tlds})${END}`, 'iu'), 'a link'],
    [new RegExp(`${LABEL}\\s+\\.\\s*${COMMON_TLD}${END}`, 'iu'), 'a link'],
    [/\b\d{1,3}(?:\s*\.\s*\d{1,3}){3}\b|\[[0-9a-f:]{6,}\]/i, 'an address'],
    [/[^\s@<]+@[^\s@]+\.[a-z]{2,}|(?:\[\s*at\s*\]|\(\s*at\s*\)|\{\s*at\s*\})/iu, 'an e-mail address'],
    [
      /\+\s?\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}\b|\(\s?\d{3}\s?\)\s?\d{3}[\s.-]?\d{4}\b|\b1?[\s.-]?\d{3}[\s.-]\d{3}[\s.-]\d{4}\b|(?<![\d,.])[2-9]\d{9}(?![\d]|[.,]\d)|\b(?:tel|phone|call|text|whatsapp|signal)\W{0,3}\d[\d\s().-]{6,}/i,
      'a phone number',
    ],
    [/<[!@#][^>]*>|(?:^|[\s(])@(?:channel|here|everyone|[\p{L}\p{N}_.-]+)/iu, 'a mention'],
    [/(?:^|[\s"'(:])\/[a-z][a-z0-9_-]{2,}(?:\s|$)/i, 'a slash command'],
    [new RegExp(`${words(vocabulary.badge).source}|[✓✅✔☑🔒🛡🏅🎖]|:white_check_mark:|:heavy_check_mark:|:lock:`, 'iu'), 'a badge'],
    [words(vocabulary.instruction), 'an instruction'],
    [words(vocabulary.numberWords), 'numbers in words'],
    [/[*_~`]{2,}|(?:^|\s)#{1,6}\s|(?:^|\s)>\s|<\/?[a-z][^>]*>|!\[/im, 'markup'],
    [/^\s*[{[]|[{[]\s*"|\bselect\b[\s\S]*\bfrom\b/i, 'data or SQL, not sentences'],
  ];
}

let checks: [RegExp, string][] | undefined;
/** Right-to-left overrides and isolates: they make "moc.yfirev" read as a domain; real text never carries them. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;

/** Verdicts of recent strings: a table repeats its descriptions and places row after row. */
const recent = new Map<string, string | null>();
const RECENT_MAX = 5_000;

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
  if (BIDI_CONTROLS.test(text)) return 'it contained direction controls';
  if (mixesScripts(text)) return 'it contained look-alike letters';
  // folded, and also only normalised: folding turns a Cyrillic domain ("пример.рф") into no domain at all
  const seen = [skeleton(text), withoutInvisibles(text.normalize('NFKC'))];
  for (const [pattern, what] of (checks ??= buildChecks())) if (seen.some((s) => pattern.test(s))) return `it contained ${what}`;
  return undefined;
}

/** What a withheld value says in its place. */
export const WITHHELD = '(a value not shown: it looks like a link or an instruction)';

/** A value from the data or a model, shown: without invisible characters when inert, else said as withheld. */
export function shownValue(value: string): string {
  return inertProblem(value) ? WITHHELD : withoutInvisibles(value);
}

/**
 * A result as it may be shown: a column name a model wrote ("Call 312-555-0199 to verify") becomes "column_3",
 * a text cell that is not inert is withheld, and invisible characters go from both.
 */
export function shownResult<R extends { columns: string[]; rows: (string | number | boolean | null)[][] }>(r: R): R {
  return {
    ...r,
    columns: r.columns.map((c, i) => (inertProblem(c.replace(/_/g, ' ')) ? `column_${i + 1}` : withoutInvisibles(c))),
    rows: r.rows.map((row) => row.map((c) => (typeof c === 'string' ? shownValue(c) : c))),
  };
}
