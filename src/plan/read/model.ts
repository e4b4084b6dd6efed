// The semantic model (fixtures/knowledge/semantic-model.json) as the reader
// sees it: every section it reads, typed (the file may hold more).
import { semanticModel as loadModel } from '../semantic-model.js';
import type { RemovableSlot, SortTo } from './pieces.js';

interface Named {
  label: string;
  words: string[];
}

export interface SemanticModel {
  types: Record<string, { one: string; many: string; words: string[] }>;
  type_details?: Record<string, { type: string; description: string; label: string; words: string[] } | string>;
  categories: Record<string, Named & { types?: string[]; glossary?: string }>;
  all_crimes: { one: string; many: string; words: string[] };
  locations: Record<string, Named>;
  measures: Record<'count' | 'distinct' | 'share' | 'average' | 'median' | 'percentile', string[]>;
  flags: Record<'arrest' | 'domestic', Named & { negated?: string[] }>;
  dimensions: Record<string, Named>;
  weekdays: Record<string, string[]>;
  months: Record<string, string[]>;
  seasons: Record<string, { months: number[]; words: string[] }>;
  day_parts: Record<string, { hours: [number, number]; words: string[] }>;
  ranking: { most: string[]; least: string[]; order_only?: string[]; common?: string[]; sort?: Partial<Record<SortTo, string[]>> };
  stop_words: string[];
  terms?: { night?: string[]; weekend?: string[]; weekdays?: string[] };
  area_aliases?: Record<string, string>;
  places_all?: string[];
  time_all?: string[];
  compare_words?: string[];
  change_words?: string[];
  grouping_fillers?: string[];
  follow_up?: string[];
  filler_phrases?: string[];
  period_edits?: { whole_year?: string[]; same_period?: string[] };
  /** follow-up words that add to the last answer's slot rather than replace it ("also robberies") */
  follow_up_adding?: string[];
  follow_up_points_back?: string[];
  removals?: { phrases?: Partial<Record<RemovableSlot, string[]>> };
}

/** The model file (read once by ../semantic-model.ts), with the sections the reader uses typed. */
export const semanticModel = (): SemanticModel => loadModel() as unknown as SemanticModel;

/** The entries of a record section, without its "_about" note. */
export function entries<T>(section: Record<string, T | string> | undefined): [string, T][] {
  return Object.entries(section ?? {}).filter((e): e is [string, T] => !e[0].startsWith('_') && typeof e[1] !== 'string');
}
