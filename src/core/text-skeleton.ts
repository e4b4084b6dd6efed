// What a string looks like to a person, as plain ASCII-ish text, so that the
// inertness rules read what the reader sees and not the code points: a link
// written with a Cyrillic "а", a full-width "．", a zero-width space before the
// dot or a soft hyphen inside "pass­word" is the same link or word once
// folded. Folding, in order:
//   1. NFKC (full-width and mathematical letters, ligatures -> plain ones);
//   2. invisible characters removed: format characters (\p{Cf}: zero-width,
//      soft hyphen, bidi controls, tags) and the other default-ignorables;
//   3. the dots a browser takes as dots in a domain (。 ｡) -> ".";
//   4. UTS #39 confusables whose prototype is ASCII -> that prototype
//      (fixtures/security/confusables.json, with its "extra" map: small
//      capitals, negative squared letters, dot look-alikes);
//   5. any script's decimal digits -> 0-9 (٣١٢ is 312 to a reader);
//   6. accents dropped (NFD, marks removed).
// The folded text is only read by checks, never shown.
import { readFileSync } from 'node:fs';
import { fixturePath } from './paths.js';

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const IDNA_DOTS = /[\u3002\uff61]/g;
const MARKS = /\p{M}/gu;
const DIGIT = /^\p{Nd}$/u;

/**
 * A decimal digit of any script as 0-9. Unicode keeps each script's digits as a run of ten from zero, and runs may
 * follow one another (the mathematical digits): the place in the run is found by walking back to its start.
 */
function asciiDigit(ch: string): string {
  const cp = ch.codePointAt(0)!;
  let start = cp;
  while (DIGIT.test(String.fromCodePoint(start - 1))) start--;
  return String((cp - start) % 10);
}

let confusables: Map<string, string> | undefined;
function confusableMap(): Map<string, string> {
  if (!confusables) {
    const doc = JSON.parse(readFileSync(fixturePath('security', 'confusables.json'), 'utf8')) as {
      map: Record<string, string>;
      extra: Record<string, string>;
    };
    confusables = new Map([...Object.entries(doc.map), ...Object.entries(doc.extra)]);
  }
  return confusables;
}

/** The string without its invisible characters: what a channel may show of a value. */
export const withoutInvisibles = (text: string) => text.replace(INVISIBLE, '');

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** The string as its look: see the header. */
export function skeleton(text: string): string {
  // ASCII is its own skeleton: NFKC and NFD leave it as it is, and it has no invisible, confusable or marked character
  if (ASCII.test(text)) return text;
  const map = confusableMap();
  let out = '';
  for (const ch of withoutInvisibles(text.normalize('NFKC')).replace(IDNA_DOTS, '.')) {
    // digits first: the confusables read an Arabic-Indic zero as a dot
    out += ch.charCodeAt(0) < 128 ? ch : DIGIT.test(ch) ? asciiDigit(ch) : (map.get(ch) ?? ch);
  }
  return out.normalize('NFD').replace(MARKS, '').normalize('NFC');
}

const LATIN = /\p{Script=Latin}/u;
const OTHER_LOOKALIKE_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}\p{Script=Coptic}]/u;

/** A word that mixes Latin letters with Cyrillic, Greek or other look-alike letters ("Vеrified" with a Cyrillic е). */
export function mixesScripts(text: string): boolean {
  for (const word of text.normalize('NFKC').split(/[^\p{L}\p{M}]+/u)) {
    if (word && LATIN.test(word) && OTHER_LOOKALIKE_SCRIPTS.test(word)) return true;
  }
  return false;
}
