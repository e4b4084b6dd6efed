// The relevance gate: sql, backtest, help, reject or refuse_write, with no LLM
// and in well under a millisecond. It decides by what is asked about, never by
// which words happen to appear: "weather in Chicago tomorrow" and "best pizza in
// Logan Square" name the city and an area but ask nothing about the crime data,
// so they are refused; "which blocks had the most burglaries" has no action verb
// but asks about crimes, so it is answered.
//
// In the domain (sql), from the vocabulary in fixtures/knowledge/semantic-model.json (its types,
// locations and gate sections: the one vocabulary of the gate and the reader):
//   - a crime type or crime word ("burglaries", "arrests", "violent") or a word
//     about the data itself ("in the data", "records");
//   - a safety word about a place: "how safe is Austin", "most dangerous
//     neighborhoods", "is Austin a safe place to buy a house?" (the crime
//     figures for the area answer it, so it is answered with them);
//   - a column of the data with a measure: "how many beats are in district 11";
//   - close similarity to a verified question.
// Refused (reject), from fixtures/knowledge/out-of-domain.json:
//   - always: asking for or overriding the desk's instructions, creative
//     writing ("a poem about Chicago crime" is not a question about the data),
//     coding help, translation, even when crime words appear;
//   - off-topic subjects (weather, food, lawyers, real estate, trivia, sports,
//     travel, ...) unless the message names a crime measure outright ("how many
//     robberies at pizza places?"): "I need a criminal defense attorney" is
//     refused, "who is the mayor of Chicago" too;
//   - anything else with no evidence: "Chicago" or an area name alone is none.
//
// Inside a thread the desk lets a refused message through only when the one
// follow-up rule (readInThread) reads it as an edit of the last answer: "and
// in 2021?", "only arrests", "by month instead", "now for englewood".
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';
import { looksLikeRuleSyntax } from '../backtest/rule-syntax.js';
import { mentionsIndicator } from './backtest/free-text.js';
import { similarVerified } from '../verified/verified-queries.js';

export type Route = 'sql' | 'backtest' | 'help' | 'reject' | 'refuse_write';

/**
 * A request to change the data: SQL's own write statements, a strong write verb first ("delete all crimes from
 * 2001"), or any write verb with the data as its object ("remove the 2019 records"). "drop the arrest filter",
 * "remove the year", "change it to 2019" and "update the chart" edit the answer, not the data, and are read as such.
 */
const WRITE_REQUEST = new RegExp(
  [
    String.raw`\b(?:insert\s+into|delete\s+from|truncate\s+table|update\s+\w+\s+set)\b`,
    String.raw`\b(?:drop|alter|create|truncate)\s+(?:table|schema|index|database|view|role|user|column)\b`,
    String.raw`^\s*(?:please\s+)?(?:delete|truncate|erase|wipe|purge|overwrite|insert|grant|revoke)\b`,
    String.raw`\b(?:delete|remove|drop|truncate|erase|wipe|purge|alter|update|modify|overwrite|insert|add|change|edit|correct)\b.*\b(?:tables?|rows?|records?|data|database|dataset|entries|entry|schema)\b`,
  ].join('|'),
  'i',
);
const GREETING =
  /^\s*((hi|hello|hey|hiya|howdy|yo|greetings)(\s+(there|all|everyone|team|bot|data\s*desk))?|help|what can you do|how do (i|you) use( (this|it|you))?|\?|good (morning|afternoon|evening)(\s+(all|everyone))?)\b[\s!?.]*$/i;
const BACKTEST_WORDS = /\b(backtest|back-test|strategy|strategies|stock|stocks|shares?|ticker|a-share|portfolio|sharpe|drawdown)\b/i;

/**
 * BM25 score over the verified questions (stop words removed) above which a
 * question with no domain word is still taken as one. Area names and years in
 * the verified questions alone give about 20 ("recommend a brunch spot in
 * Lincoln Park"), so the bar sits above that.
 */
const SIMILARITY_THRESHOLD = 25;

interface DomainWords {
  crime: string[];
  data: string[];
  columns: string[];
  measures: string[];
  safety: string[];
  places: string[];
  numberedUnits: string[];
  figures: string[];
}
interface GateVocabulary {
  types: Record<string, { one: string; many: string; words: string[] }>;
  locations: Record<string, { label: string; words: string[] } | string>;
  gate: DomainWords;
}
interface RefusalCues {
  always: Record<string, string[]>;
  offTopic: Record<string, string[]>;
}

interface Vocabulary {
  /** crime types, crime words, words about the data: enough on their own */
  crime: RegExp;
  columns: RegExp;
  measures: RegExp;
  safety: RegExp;
  /** generic place words and the kinds of location in the data */
  places: RegExp;
  /** a unit named with its number ("ward 27", "beat 1123") */
  numberedUnit: RegExp;
  /** a plain ask for its figures ("numbers", "stats") */
  figures: RegExp;
  always: RegExp;
  offTopic: RegExp;
  /** single-word crime type names, for typos ("homocides", "burglarys", "thefs") */
  typeWords: Set<string>;
}

const escapeLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Alternatives matched as whole words; a hyphen joins words ("crime-ridden" is not "crime"). */
const wordsRegex = (fragments: readonly string[]) => new RegExp(`(?<![\\w-])(?:${fragments.join('|')})(?![\\w-])`, 'i');

let vocabulary: Vocabulary | undefined;

function vocab(): Vocabulary {
  if (!vocabulary) {
    const model = JSON.parse(readFileSync(fixturePath('knowledge', 'semantic-model.json'), 'utf8')) as GateVocabulary;
    const crimeTypes = Object.fromEntries(Object.entries(model.types).map(([t, v]) => [t, [v.one, v.many, ...v.words]]));
    const locations = Object.entries(model.locations)
      .filter(([k, v]) => !k.startsWith('_') && typeof v !== 'string')
      .map(([, v]) => (v as { words: string[] }).words);
    const domain = model.gate;
    const cues = JSON.parse(readFileSync(fixturePath('knowledge', 'out-of-domain.json'), 'utf8')) as RefusalCues;
    const literals = (groups: Record<string, string[]>) =>
      Object.entries(groups)
        .flatMap(([k, v]) => [k, ...v])
        .map((w) => escapeLiteral(w.toLowerCase()));
    const fragments = (groups: Record<string, string[]>) =>
      Object.entries(groups)
        .filter(([k]) => !k.startsWith('_'))
        .flatMap(([, v]) => v);
    vocabulary = {
      crime: wordsRegex([...literals(crimeTypes), ...domain.crime, ...domain.data]),
      columns: wordsRegex(domain.columns),
      measures: wordsRegex(domain.measures),
      safety: wordsRegex(domain.safety),
      places: wordsRegex([...domain.places, ...locations.flat().map(escapeLiteral)]),
      numberedUnit: new RegExp(`(?<![\\w-])(?:${domain.numberedUnits.join('|')}) *(?:no\\.? *|#)?\\d{1,4}(?![\\w-])`, 'i'),
      figures: wordsRegex(domain.figures),
      always: wordsRegex(fragments(cues.always)),
      offTopic: wordsRegex(fragments(cues.offTopic)),
      typeWords: new Set(
        Object.entries(crimeTypes)
          .flatMap(([k, v]) => [k.toLowerCase(), ...v])
          .filter((w) => /^[a-z]{6,}$/.test(w)),
      ),
    };
  }
  return vocabulary;
}

const placesRegex = (places: readonly string[]) =>
  places.length ? wordsRegex([...places].sort((a, b) => b.length - a.length).map(escapeLiteral)) : undefined;

/**
 * The router for one data set: `places` are the place names known only from
 * the database (the 77 community area names). A place name is no reason on its
 * own to answer ("best pizza in Logan Square"); with a safety word it is ("how
 * safe is Austin").
 */
export function createRouter(places: readonly string[] = []): (text: string) => Route {
  const named = placesRegex(places);
  return (text) => decide(text, named);
}

/**
 * Refused whatever the thread: instructions, creative writing, coding help, or an off-topic subject
 * ("and what's the weather?"). Such a message is never read as a follow-up.
 */
export function refusedOutright(text: string): boolean {
  const v = vocab();
  return v.always.test(text) || v.offTopic.test(text);
}

export function route(text: string): Route {
  return decide(text, undefined);
}

function decide(text: string, named: RegExp | undefined): Route {
  const t = text.trim();
  if (!t || GREETING.test(t)) return 'help';
  if (looksLikeRuleSyntax(t)) return 'backtest';
  const v = vocab();
  if (v.always.test(t)) return 'reject';
  if (WRITE_REQUEST.test(t)) return 'refuse_write';
  if (/\b\d{6}\b/.test(t) && (BACKTEST_WORDS.test(t) || mentionsIndicator(t))) return 'backtest';
  if (BACKTEST_WORDS.test(t) && mentionsIndicator(t)) return 'backtest';
  const measured = v.measures.test(t);
  // a misspelt crime type counts when the message also asks for a measure or names a column
  const aboutCrime = v.crime.test(t) || (misspeltTypes(t, v).length > 0 && (measured || v.columns.test(t)));
  if (aboutCrime) return v.offTopic.test(t) && !measured ? 'reject' : 'sql';
  if (v.offTopic.test(t)) return 'reject';
  if (v.safety.test(t) && (v.places.test(t) || named?.test(t))) return 'sql';
  if (measured && v.columns.test(t)) return 'sql';
  // "ward 27 numbers for 2023", "district 3 stats": a numbered unit's figures (off-topic words refused above)
  if (v.numberedUnit.test(t) && v.figures.test(t)) return 'sql';
  // similar enough to a verified question (scores are BM25 over the example questions)
  const best = similarVerified(t, 1)[0];
  if (best && best.score >= SIMILARITY_THRESHOLD) return 'sql';
  return 'reject';
}

/** Edit distance with adjacent transpositions (optimal string alignment), stopping early past 1. */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > 1) return false;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] <= 1;
}

/**
 * Words one typo away from a crime type name of six letters or more, with the
 * same first letter ("homocides", "burglarys", "thefs"; not "talking" for
 * "stalking").
 */
function misspeltTypes(text: string, v: Vocabulary): string[] {
  const found: string[] = [];
  for (const word of text.toLowerCase().match(/[a-z]{5,}/g) ?? []) {
    if (v.typeWords.has(word)) continue;
    for (const target of v.typeWords) {
      if (target[0] === word[0] && withinOneEdit(word, target)) {
        found.push(word);
        break;
      }
    }
  }
  return found;
}
