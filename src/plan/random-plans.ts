// Seeded random query plans over the whole plan language (measures, filters,
// groupings, cuts, comparisons) with random glossary choices: the differential
// test answers each from its rollup and from crimes and requires the same rows.
import { Random } from '../ingest/generate/random.js';
import { glossary } from '../knowledge/glossary.js';
import { DIMENSIONS, PER_GROUPS, QueryPlan, type Filters, type QueryPlanInput } from './query-plan.js';

const TYPES = ['THEFT', 'BATTERY', 'NARCOTICS', 'HOMICIDE', 'BURGLARY', 'ASSAULT', 'ROBBERY', 'MOTOR VEHICLE THEFT'];
const LOCATIONS = ['STREET', 'RESIDENCE', 'APARTMENT', 'SIDEWALK', 'PARKING LOT/GARAGE(NON.RESID.)'];

export interface RandomPlan {
  plan: QueryPlan;
  choices: Record<string, string>;
}

const iso = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

function pickSome<T>(r: Random, from: readonly T[], max: number): T[] {
  const n = r.int(1, max);
  const out = new Set<T>();
  while (out.size < n) out.add(from[r.int(0, from.length - 1)]);
  return [...out];
}

/** A period as people ask it: whole years, whole months, or a run of days. */
function period(r: Random, years: [number, number]): { from: string; to: string } {
  const y = r.int(years[0], years[1]);
  switch (r.int(0, 3)) {
    case 0:
      return { from: iso(y, 1, 1), to: iso(y + 1, 1, 1) };
    case 1:
      return { from: iso(y, 1, 1), to: iso(Math.min(y + r.int(1, 4), years[1] + 1), 1, 1) };
    case 2: {
      const m = r.int(1, 12);
      return { from: iso(y, m, 1), to: iso(y, m + r.int(1, 6), 1) };
    }
    default: {
      const start = Date.UTC(y, r.int(0, 11), r.int(1, 28));
      return {
        from: new Date(start).toISOString().slice(0, 10),
        to: new Date(start + r.int(1, 120) * 86_400_000).toISOString().slice(0, 10),
      };
    }
  }
}

function filters(r: Random, years: [number, number], rich: boolean): Filters {
  const f: Filters = {};
  if (r.chance(0.45)) f.types = pickSome(r, TYPES, 3);
  else if (r.chance(0.15)) f.category = r.chance(0.5) ? 'violent' : 'property';
  if (r.chance(0.6)) f.time = period(r, years);
  if (r.chance(0.15)) f.months = pickSome(r, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 3);
  if (r.chance(0.12)) f.weekdays = pickSome(r, [1, 2, 3, 4, 5, 6, 7], 2);
  else if (r.chance(0.1)) f.weekend = true;
  if (r.chance(0.12)) f.hours = { from: r.int(0, 23), to: r.int(1, 24) };
  else if (r.chance(0.1)) f.night = true;
  if (r.chance(0.15)) f.arrest = r.chance(0.5);
  if (r.chance(0.15)) f.domestic = r.chance(0.5);
  if (!rich) return f;
  if (r.chance(0.12)) f.locations = pickSome(r, LOCATIONS, 2);
  if (r.chance(0.1)) f.areas = pickSome(r, [8, 25, 28, 32, 43, 68, 71], 2);
  if (r.chance(0.08)) f.districts = pickSome(r, [1, 6, 8, 11, 12, 18], 2);
  if (r.chance(0.06)) f.wards = pickSome(r, [2, 24, 27, 42], 2);
  if (r.chance(0.03)) f.descriptions = ['RETAIL'];
  if (r.chance(0.04)) f.blocks = ['001XX N STATE ST', '0000X W TERMINAL ST'];
  return f;
}

export function randomPlans(count: number, seed: number, years: [number, number]): RandomPlan[] {
  const r = new Random(seed);
  const out: RandomPlan[] = [];
  while (out.length < count) {
    const input: QueryPlanInput = { measure: { kind: 'count' }, filters: filters(r, years, true) };
    const kind = r.int(0, 9);
    if (kind === 0)
      input.measure = { kind: 'distinct', of: (['type', 'location', 'community_area', 'district', 'ward', 'beat'] as const)[r.int(0, 5)] };
    if (kind === 1)
      input.measure = { kind: 'share', part: r.chance(0.5) ? { arrest: true } : r.chance(0.5) ? { domestic: true } : { types: ['THEFT'] } };
    if (kind === 2 || kind === 3) {
      const per = PER_GROUPS[r.int(0, PER_GROUPS.length - 1)];
      input.measure = kind === 2 ? { kind: 'average_per', per } : { kind: 'percentile_per', per, p: [0.5, 0.9][r.int(0, 1)] };
      if (kind === 3 && r.chance(0.15)) input.measure = { kind: 'average_gap', unit: r.chance(0.5) ? 'day' : 'hour' };
    }
    if (kind === 4 && input.filters?.time) {
      input.compareWith = period(r, years);
      input.filters = filters(r, years, true);
      input.filters.time = period(r, years);
    } else if (kind >= 5 || (kind <= 1 && r.chance(0.5))) {
      // by block only alone: thousands of blocks times a second axis is a big table to compare twice
      const dims = DIMENSIONS.filter((d) => d !== 'date');
      input.groupBy = pickSome(r, dims, r.chance(0.7) ? 1 : 2);
      if (input.groupBy.length === 2 && input.groupBy.includes('block')) input.groupBy = ['block'];
      if (r.chance(0.35)) input.top = { n: r.int(1, 12), order: r.chance(0.6) ? 'desc' : 'asc' };
      else if (r.chance(0.3)) input.order = (['measure', 'measure_asc', 'axis'] as const)[r.int(0, 2)];
    }
    const parsed = QueryPlan.safeParse(input);
    if (!parsed.success) continue;
    const choices = Object.fromEntries(
      glossary()
        .filter((t) => t.options?.length)
        .map((t) => [t.id, t.options![r.int(0, t.options!.length - 1)].id]),
    );
    out.push({ plan: parsed.data, choices });
  }
  return out;
}
