// A comparison of two sides that differ in one filter, not in the period
// ("battery per year" then "compare with assault"; "in district 7" then
// "compare with district 11"): plan.versus holds the filters of the second
// side, in place of the plan's own of the same slot. The compiler answers
// each side as the plan it is and puts them side by side; the narrator and
// the column names say the two sides in words.
import type { Filters, QueryPlan } from './query-plan.js';
import { semanticModel, typePlural } from './semantic-model.js';

type Versus = NonNullable<QueryPlan['versus']>;

/** The filters each slot a side can differ in holds: a side's types replace the whole subject, a place every place. */
const SLOTS: { said: (keyof Versus)[]; replaces: (keyof Filters)[] }[] = [
  { said: ['types'], replaces: ['types', 'exceptTypes', 'category', 'descriptions'] },
  { said: ['locations'], replaces: ['locations', 'exceptLocations'] },
  {
    said: ['areas', 'districts', 'wards', 'beats', 'blocks'],
    replaces: ['areas', 'districts', 'wards', 'beats', 'blocks'],
  },
];

/** The filter keys a plan's two sides differ in (both sides' keys of each slot the comparison speaks to). */
export function versusKeys(v: Versus): (keyof Filters)[] {
  return SLOTS.filter((s) => s.said.some((k) => v[k] !== undefined)).flatMap((s) => s.replaces);
}

/** The plan of each side: the first is the plan without the comparison, the second with the comparison's filters in place. */
export function versusSides(plan: QueryPlan): [QueryPlan, QueryPlan] {
  const v = plan.versus!;
  const a: QueryPlan = { ...plan, filters: { ...plan.filters } };
  delete a.versus;
  const b: QueryPlan = { ...a, filters: { ...plan.filters } };
  for (const k of versusKeys(v)) delete b.filters[k];
  Object.assign(b.filters, v);
  return [a, b];
}

/** What sets a side apart, in words: "batteries", "apartments", "district 7", "West Town". */
export function sideWords(f: Filters, keys: (keyof Filters)[], areaNames: ReadonlyMap<number, string>): string {
  const model = semanticModel();
  const parts: string[] = [];
  if (keys.includes('types'))
    parts.push(
      f.types && !f.exceptTypes
        ? f.types.map(typePlural).join(' and ')
        : f.category
          ? model.categories[f.category].label
          : model.all_crimes.many,
    );
  if (keys.includes('locations'))
    parts.push(f.locations ? f.locations.map((l) => model.locations[l]?.label ?? l.toLowerCase()).join(' or ') : 'any location');
  if (keys.includes('areas')) {
    const places = [
      ...(f.areas ?? []).map((a) => areaNames.get(a) ?? `community area ${a}`),
      ...(f.districts ?? []).map((d) => `district ${d}`),
      ...(f.wards ?? []).map((w) => `ward ${w}`),
      ...(f.beats ?? []).map((b) => `beat ${b}`),
      ...(f.blocks ?? []),
    ];
    parts.push(places.length ? places.join(' and ') : 'all of Chicago');
  }
  return parts.join(', ');
}
