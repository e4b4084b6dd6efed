// Which rollup (src/db/rollups.ts) can answer a plan exactly: the first, smallest
// first, that keeps every column the plan filters, groups or counts by, and
// every time facet it reads (month, weekday, day, hour). Anything else is answered from
// crimes. The plan says all it uses, so this is a walk over the plan, not over SQL.
import type { Dimension, Filters, Measure, QueryPlan, TimeRange } from './query-plan.js';
import { option } from '../knowledge/glossary.js';
import { CRIME_COLUMNS } from '../db/crime-columns.js';
import { GRAIN_FACETS, ROLLUPS, type Rollup, type TimeFacet } from '../db/rollups.js';

/** What a plan reads of a crime: whole columns, and facets of its `date`. */
interface PlanNeeds {
  columns: Set<string>;
  facets: Set<TimeFacet>;
}

const DIMENSION_NEEDS: Record<Dimension, { column?: string; facet?: TimeFacet }> = {
  year: { column: 'year' },
  month: { facet: 'month' },
  month_of_year: { facet: 'month' },
  weekday: { facet: 'weekday' },
  hour: { facet: 'hour' },
  date: { facet: 'day' },
  day_of_year: { facet: 'day' },
  community_area: { column: 'community_area' },
  district: { column: 'district' },
  ward: { column: 'ward' },
  beat: { column: 'beat' },
  block: { column: 'block' },
  type: { column: 'primary_type' },
  location: { column: 'location_description' },
};

const DISTINCT_NEEDS: Record<Extract<Measure, { kind: 'distinct' }>['of'], string> = {
  block: 'block',
  beat: 'beat',
  community_area: 'community_area',
  district: 'district',
  ward: 'ward',
  type: 'primary_type',
  location: 'location_description',
};

class Needs implements PlanNeeds {
  readonly columns = new Set<string>();
  readonly facets = new Set<TimeFacet>();

  column(name: string): void {
    this.columns.add(name);
  }

  facet(f: TimeFacet): void {
    this.facets.add(f);
  }

  /** A period: whole years read the year column, whole months the month, anything else whole days. */
  period(t: TimeRange): void {
    if (/-01-01$/.test(t.from) && /-01-01$/.test(t.to)) this.column('year');
    else if (t.from.endsWith('-01') && t.to.endsWith('-01')) this.facet('month');
    else this.facet('day');
  }

  /** A glossary option's SQL: the crimes columns it names, and what it reads of `date`. */
  glossary(term: string, choices: Record<string, string>): void {
    const sql = option(term, choices[term] ?? '')?.sql;
    if (!sql) return; // the compiler refuses a plan without its choice
    const code = sql.replace(/'[^']*'/g, "''");
    for (const c of CRIME_COLUMNS) if (c !== 'date' && new RegExp(`\\b${c}\\b`).test(code)) this.column(c);
    if (/extract\(\s*hour\b/i.test(code)) this.facet('hour');
    if (/extract\(\s*(isodow|dow)\b/i.test(code)) this.facet('weekday');
    if (/extract\(\s*(day|doy)\b|::date|to_char/i.test(code)) this.facet('day');
    if (/extract\(\s*month\b/i.test(code)) this.facet('month');
  }

  filters(f: Partial<Filters>, choices: Record<string, string>): void {
    if (f.types || f.category === 'property') this.column('primary_type');
    if (f.category === 'violent') this.glossary('violent_crime', choices);
    if (f.descriptions) this.column('description');
    if (f.locations) this.column('location_description');
    if (f.time) this.period(f.time);
    if (f.months) this.facet('month');
    if (f.weekdays) this.facet('weekday');
    if (f.weekend) this.glossary('weekend', choices);
    if (f.hours) this.facet('hour');
    if (f.night) this.glossary('night', choices);
    if (f.areas) this.column('community_area');
    if (f.districts) this.column('district');
    if (f.wards) this.column('ward');
    if (f.beats) this.column('beat');
    if (f.blocks) this.column('block');
    if (f.arrest !== undefined) this.column('arrest');
    if (f.domestic !== undefined) this.column('domestic');
  }

  measure(m: Measure, choices: Record<string, string>): void {
    if (m.kind === 'distinct') this.column(DISTINCT_NEEDS[m.of]);
    if (m.kind === 'average_gap') this.column('date'); // whole timestamps: no rollup keeps them
    if (m.kind === 'share') this.filters(m.part, choices);
    if (m.kind === 'average_per' || m.kind === 'percentile_per') {
      if (m.per === 'day') this.facet('day');
      else if (m.per === 'month') this.facet('month');
      else if (m.per === 'year') this.facet('year');
      else this.column(m.per);
    }
  }
}

function planNeeds(plan: QueryPlan, choices: Record<string, string>): PlanNeeds {
  const needs = new Needs();
  needs.filters(plan.filters, choices);
  needs.measure(plan.measure, choices);
  if (plan.compareWith) needs.period(plan.compareWith);
  for (const d of plan.groupBy) {
    const { column, facet } = DIMENSION_NEEDS[d];
    if (column) needs.column(column);
    if (facet) needs.facet(facet);
  }
  return needs;
}

/**
 * What a plan reads beyond the common facets every rollup keeps (year, type, FBI code, arrest, domestic): the shape
 * the plan bench tallies for the plans answered from crimes, e.g. "beat+community_area | weekday,hour".
 */
export function planShape(plan: QueryPlan, choices: Record<string, string>): string {
  if (plan.measure.kind === 'average_gap') return 'gap over some incidents';
  const needs = planNeeds(plan, choices);
  const common = new Set(['year', 'primary_type', 'fbi_code', 'arrest', 'domestic']);
  const places = [...needs.columns].filter((c) => !common.has(c)).sort();
  const facets = [...needs.facets].filter((f) => f !== 'year').sort();
  return `${places.join('+') || 'no place'} | ${facets.join(',') || 'years only'}`;
}

const rollupHolds = (r: Rollup, needs: PlanNeeds): boolean =>
  [...needs.columns].every((c) => r.columns.includes(c)) && [...needs.facets].every((f) => GRAIN_FACETS[r.grain].includes(f));

/**
 * The average gap between consecutive incidents on a block, over every incident: the rollup that keeps the
 * blocks of all time gives each block and its count, and crimes' (block, date) index (migration 042) its first
 * and last incident in two probes, instead of grouping every incident by block. A gap over some incidents
 * (filtered) reads whole timestamps of those: crimes.
 */
function gapRollup(plan: QueryPlan): Rollup | undefined {
  const everyIncident = Object.values(plan.filters).every((v) => v === undefined) && !plan.groupBy.length && !plan.compareWith;
  return everyIncident ? ROLLUPS.find((r) => r.grain === 'all' && r.columns.includes('block')) : undefined;
}

/** The smallest rollup that answers the plan exactly, or undefined: then crimes. */
export function chooseRollup(plan: QueryPlan, choices: Record<string, string>): Rollup | undefined {
  if (plan.measure.kind === 'average_gap') return gapRollup(plan);
  const needs = planNeeds(plan, choices);
  return ROLLUPS.find((r) => rollupHolds(r, needs));
}
