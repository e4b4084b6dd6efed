// The semantic model (fixtures/knowledge/semantic-model.json), read once: the
// vocabulary the reader understands and the labels the narrator writes.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../core/paths.js';

export interface SemanticModel {
  types: Record<string, { one: string; many: string; words: string[] }>;
  categories: Record<string, { label: string; words: string[]; types?: string[]; glossary?: string }>;
  all_crimes: { one: string; many: string; words: string[] };
  locations: Record<string, { label: string; words: string[] }>;
  flags: Record<'arrest' | 'domestic', { words: string[]; label: string }>;
  dimensions: Record<string, { label: string; words: string[] }>;
  [section: string]: unknown;
}

let model: SemanticModel | undefined;

export function semanticModel(): SemanticModel {
  model ??= JSON.parse(readFileSync(fixturePath('knowledge', 'semantic-model.json'), 'utf8')) as SemanticModel;
  return model;
}

/** The primary types of a fixed category (property crimes). */
export function typeCategory(id: 'property'): string[] {
  return semanticModel().categories[id].types ?? [];
}

/** "thefts", "homicides": the plural a narration uses for a primary type. */
export const typePlural = (type: string): string => semanticModel().types[type]?.many ?? type.toLowerCase();

/** The listed members of a complete place axis (the districts, the wards): the semantic model's place_axes. */
export const placeAxis = (d: 'district' | 'ward'): number[] =>
  (semanticModel() as unknown as { place_axes: Record<string, number[]> }).place_axes[d] ?? [];
