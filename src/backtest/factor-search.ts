// BM25 retrieval of atomic rules from words ("RSI oversold", "golden cross",
// "buy on a volume surge"), as AutoBacktest maps indicator mentions to its
// library. minisearch does the BM25 ranking; a match must also name the
// factor (its id or an alias) to count as confident: precision over recall.
import MiniSearch from 'minisearch';
import { loadLibrary, type Rule } from './library.js';

interface Doc {
  id: string;
  side: 'buy' | 'sell';
  factor: string;
  names: string;
  rule: string;
  about: string;
}

let index: MiniSearch<Doc> | undefined;

function build(): MiniSearch<Doc> {
  const lib = loadLibrary();
  const search = new MiniSearch<Doc>({
    fields: ['names', 'rule', 'about'],
    storeFields: ['id', 'side', 'factor'],
    // the factor's names weigh most, the rule's own words next, the factor's description least
    searchOptions: { boost: { names: 3, rule: 2, about: 0.3 }, fuzzy: 0.15, prefix: true },
  });
  search.addAll(
    lib.rules.map((r) => {
      const f = lib.factor(r.factor)!;
      return {
        id: r.id,
        side: r.side,
        factor: f.id,
        names: [f.id.replace(/_/g, ' '), f.name, ...f.aliases].join(' '),
        rule: `${r.description} ${r.id.replace(/_/g, ' ')}`,
        about: f.description,
      };
    }),
  );
  return search;
}

export interface RuleMatch {
  rule: Rule;
  score: number;
  /** the text names the rule's factor (id or alias), not just words around it */
  confident: boolean;
}

const normalise = (s: string) => ` ${s.toLowerCase().replace(/[^a-z0-9%]+/g, ' ')} `;

export function factorNamed(text: string, factorId: string): boolean {
  const f = loadLibrary().factor(factorId);
  if (!f) return false;
  const t = normalise(text);
  // the id, its family ("KDJ" of KDJ_J, "MACD" of MACD_CROSS_UP), or an alias
  return [f.id.replace(/_/g, ' '), f.id.split('_')[0], ...f.aliases].some((name) => t.includes(normalise(name)));
}

// Words of a request that say nothing about the indicator ("buy when ... is ...").
const STOP_WORDS = new Set([
  'buy',
  'sell',
  'when',
  'the',
  'a',
  'an',
  'is',
  'are',
  'on',
  'of',
  'it',
  'its',
  'and',
  'then',
  'if',
  'to',
  'at',
  'in',
  'for',
  'with',
  'by',
  'as',
  'after',
  'once',
  'stock',
  'shares',
]);

export function searchRules(text: string, side?: 'buy' | 'sell', limit = 5): RuleMatch[] {
  index ??= build();
  const lib = loadLibrary();
  const query = text
    .split(/\s+/)
    .filter((w) => !STOP_WORDS.has(w.toLowerCase().replace(/[^a-z]/g, '')))
    .join(' ');
  return index
    .search(query, side ? { filter: (r) => r.side === side } : {})
    .slice(0, limit)
    .map((hit) => ({
      rule: lib.rules.find((r) => r.id === hit.id)!,
      score: hit.score,
      confident: factorNamed(text, hit.factor as string),
    }));
}
