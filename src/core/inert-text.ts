// One check for every string a model or the data puts in front of a person:
// a narration, a restated question, a plan's words, a value from the crime
// table (a description is anyone's to write when a CSV is loaded). A string
// is not shown when it carries a way out of the answer: a link, plain or
// obfuscated (crime-stats[.]example, "dot com", hxxp), a bare domain, an IP
// address, an e-mail address, a phone number, a mention, a fake "verified"
// badge, an instruction to the reader, numbers written in words (they slip
// past the check that every number is in the result), markup, or data or SQL
// instead of sentences. fixtures/security/inert-corpus.json holds the strings
// it must stop and the real sentences it must let through.

/** Top-level domains a link is written with; "e.g.", "a.m." and "St." end in none of them. */
const TLD =
  '(?:com|net|org|io|example|info|biz|co|xyz|gov|edu|ru|cn|app|dev|me|ly|link|site|online|top|us|uk|de|fr|ai|gg|tv|cc|ws|sh|to|gl|page|click|zip|mov)';
/** A dot, as written or disguised: ".", "[.]", "(.)", "[dot]", "(dot)", " dot ". */
const DOT = '(?:\\s*(?:\\.|\\[\\.\\]|\\(\\.\\)|\\[dot\\]|\\(dot\\))\\s*|\\s+dot\\s+)';

const CHECKS: [RegExp, string][] = [
  [/\b(?:h[tx]{2}ps?|ftp)s?:\/\/|\bh\s+t\s+t\s+p|\bwww\.|\]\(|<[^>|\s]+\|[^>]*>/i, 'a link'],
  [new RegExp(`\\b[a-z0-9][a-z0-9-]*(?:${DOT}[a-z0-9-]+)*${DOT}${TLD}\\b`, 'i'), 'a link'],
  [/\b\d{1,3}(?:\.\d{1,3}){3}\b/, 'an address'],
  [/[^\s@<]+@[^\s@]+\.[a-z]{2,}|\[\s*at\s*\]|\(\s*at\s*\)/i, 'an e-mail address'],
  [/\b\d{3}[-.\s]\d{3}[-.\s]\d{4}\b/, 'a phone number'],
  [/<[!@#][^>]*>|(?:^|\s)@(?:channel|here|everyone|[A-Za-z0-9_.-]+\b)/i, 'a mention'],
  [/\bverified\b|✓|✅|✔|:white_check_mark:|:heavy_check_mark:/i, 'a badge'],
  [
    /\b(?:click|tap|log ?in|sign ?in|re-?authenticate|verify (?:your|the) account|password|credentials|api key|token|visit|go to|contact (?:us|support)|call us|download|install|enter your|reply with|send (?:your|us|it|them)|forward (?:this|it)|scan the|open the attachment|run this|ignore (?:the|all|previous|these|those)|keep access)\b/i,
    'an instruction',
  ],
  [
    /\b(?:eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion)\b/i,
    'numbers in words',
  ],
  [/[*_~`]{2,}|(?:^|\s)#{1,6}\s|(?:^|\s)>\s|<\/?[a-z][^>]*>/im, 'markup'],
  [/^\s*[{[]|[{[]\s*"|\bselect\b[\s\S]*\bfrom\b/i, 'data or SQL, not sentences'],
];

/** What the string carries that a person must not be shown, in a few words; undefined when it is inert. */
export function inertProblem(text: string): string | undefined {
  for (const [pattern, what] of CHECKS) if (pattern.test(text)) return `it contained ${what}`;
  return undefined;
}

/** A value from the data shown in a sentence: as it is when inert, else said as withheld. */
export function shownValue(value: string): string {
  return inertProblem(value) ? '(a value not shown: it looks like a link or an instruction)' : value;
}
