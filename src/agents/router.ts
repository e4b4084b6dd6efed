// The relevance gate: sql, backtest, help or reject, with no LLM and in well
// under a millisecond. It never turns away an in-domain question for lacking
// an action verb ("which blocks had the most burglaries", "what is the median
// ..."): domain vocabulary and similarity to the verified questions decide.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';
import { looksLikeRuleSyntax } from '../backtest/rule-syntax.js';
import { mentionsIndicator } from './backtest/free-text.js';
import { similarVerified } from '../knowledge/verified-queries.js';

export type Route = 'sql' | 'backtest' | 'help' | 'reject' | 'refuse_write';

const WRITE_REQUEST =
  /^\s*(please\s+)?(delete|remove|drop|truncate|update|insert|alter|create|grant|revoke|merge|modify|change|erase|wipe|overwrite|set)\b|\b(delete|drop|truncate|insert into|update)\b.*\b(table|rows?|records?|data|crimes)\b/i;
const GREETING = /^\s*(hi|hello|hey|help|what can you do|how do (i|you) use|\?|good (morning|afternoon|evening))\b[\s!?.]*$/i;
const BACKTEST_WORDS = /\b(backtest|back-test|strategy|strategies|stock|stocks|shares?|ticker|a-share|portfolio|sharpe|drawdown)\b/i;

/** BM25 score over the verified questions (stop words removed) above which a question is in the domain. */
const SIMILARITY_THRESHOLD = 6;

let vocabulary: RegExp | undefined;

function domainVocabulary(): RegExp {
  if (!vocabulary) {
    const syn = JSON.parse(readFileSync(fixturePath('knowledge', 'synonyms.json'), 'utf8')) as { crimeTypes: Record<string, string[]>; locations: Record<string, string[]> };
    const words = [
      ...Object.entries(syn.crimeTypes).flatMap(([k, v]) => [k.toLowerCase(), ...v]),
      ...Object.values(syn.locations).flat(),
      'crimes?', 'incidents?', 'offen[cs]es?', 'arrests?', 'arrested', 'domestic', 'districts?', 'wards?', 'beats?', 'community areas?',
      'neighbou?rhoods?', 'blocks?', 'chicago', 'police', 'iucr', 'fbi code', 'victims?', 'shootings?', 'violent', 'safest', 'dangerous',
      'case numbers?', 'primary type', 'location description',
    ];
    vocabulary = new RegExp(`\\b(${words.map((w) => w.replace(/[.+^${}()|[\]\\]/g, (c) => (c === '?' ? c : `\\${c}`))).join('|')})\\b`, 'i');
  }
  return vocabulary;
}

/**
 * The router for one data set: `places` are extra domain words known only from
 * the database (the 77 community area names).
 */
export function createRouter(places: readonly string[] = []): (text: string) => Route {
  const placeWords = places.length
    ? new RegExp(`\\b(${places.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'i')
    : undefined;
  return (text) => {
    const r = route(text);
    return r === 'reject' && placeWords?.test(text) ? 'sql' : r;
  };
}

export function route(text: string): Route {
  const t = text.trim();
  if (!t || GREETING.test(t)) return 'help';
  if (looksLikeRuleSyntax(t)) return 'backtest';
  if (WRITE_REQUEST.test(t)) return 'refuse_write';
  if (/\b\d{6}\b/.test(t) && (BACKTEST_WORDS.test(t) || mentionsIndicator(t))) return 'backtest';
  if (BACKTEST_WORDS.test(t) && mentionsIndicator(t)) return 'backtest';
  if (domainVocabulary().test(t)) return 'sql';
  // similar enough to a verified question (scores are BM25 over the example questions)
  const best = similarVerified(t, 1)[0];
  if (best && best.score >= SIMILARITY_THRESHOLD) return 'sql';
  return 'reject';
}
