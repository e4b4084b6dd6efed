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
//      (fixtures/security/confusables.json);
//   5. accents dropped (NFD, marks removed).
// The folded text is only read by checks, never shown.
import { readFileSync } from 'node:fs';
import { fixturePath } from './paths.js';

const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const IDNA_DOTS = /[\u3002\uff61]/g;
const MARKS = /\p{M}/gu;

let confusables: Map<string, string> | undefined;
function confusableMap(): Map<string, string> {
  if (!confusables) {
    const doc = JSON.parse(readFileSync(fixturePath('security', 'confusables.json'), 'utf8')) as { map: Record<string, string> };
    confusables = new Map(Object.entries(doc.map));
  }
  return confusables;
}

/** The string without its invisible characters: what a channel may show of a value. */
export const withoutInvisibles = (text: string) => text.replace(INVISIBLE, '');

/** The string as its look: see the header. */
export function skeleton(text: string): string {
  const map = confusableMap();
  let out = '';
  for (const ch of withoutInvisibles(text.normalize('NFKC')).replace(IDNA_DOTS, '.')) {
    out += ch.charCodeAt(0) < 128 ? ch : (map.get(ch) ?? ch);
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
