// The one compiler from QueryPlan to SQL. Deterministic (the same plan and
// choices always give the same text), readable, values as validated literals,
// and complete on calendar and cyclic axes: a month, weekday or hour with no
// incidents is a row with 0, and weekdays and months carry their names.
// Groupings compile to one shape: counts per key in a CTE, the axes (complete
// series, or the keys found), a cross join of the axes, the counts joined in.
import type { Dimension, Filters, Measure, PerGroup, QueryPlan, TimeRange } from './query-plan.js';
import { glossary, option, type GlossaryOption } from '../knowledge/glossary.js';
import { placeAxis, typeCategory } from './semantic-model.js';
import { chooseRollup } from './rollup-choice.js';
import { compileVersus } from './compile-compare.js';
import { ROLLUPS, type Rollup } from '../db/rollups.js';

export interface CompiledPlan {
  sql: string;
  /** the rollup the SQL counts from, when a rollup holds the plan (src/db/rollups.ts) */
  rollup?: string;
  /** the glossary definitions the SQL used, in words, for the answer's footer */
  assumptions: string[];
}

export class PlanCompileError extends Error {}

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const list = (values: (string | number)[]) => values.map((v) => (typeof v === 'number' ? String(v) : quote(v))).join(', ');
const inList = (column: string, values: (string | number)[]) =>
  values.length === 1 ? `${column} = ${list(values)}` : `${column} IN (${list(values)})`;
const notInList = (column: string, values: (string | number)[]) =>
  values.length === 1 ? `${column} <> ${list(values)}` : `${column} NOT IN (${list(values)})`;

/** Not one of the values, a NULL included (a crime with no recorded location is not "on the street"). */
const notAmong = (column: string, values: string[]) =>
  values.length === 1 ? `${column} IS DISTINCT FROM ${list(values)}` : `(${column} IS NULL OR ${column} NOT IN (${list(values)}))`;

/** A whole number of calendar years, as the `year` column can say it. */
function wholeYears(t: TimeRange): [number, number] | undefined {
  const m1 = /^(\d{4})-01-01$/.exec(t.from);
  const m2 = /^(\d{4})-01-01$/.exec(t.to);
  return m1 && m2 && Number(m2[1]) > Number(m1[1]) ? [Number(m1[1]), Number(m2[1]) - 1] : undefined;
}

/** `yearColumn`: whole years as `year = N` (false: always a date range) */
function timeCondition(t: TimeRange, yearColumn = true): string {
  const years = yearColumn ? wholeYears(t) : undefined;
  if (years) return years[0] === years[1] ? `year = ${years[0]}` : `year BETWEEN ${years[0]} AND ${years[1]}`;
  return `date >= ${quote(t.from)} AND date < ${quote(t.to)}`;
}

function hoursCondition(from: number, to: number): string {
  const lower = `extract(hour FROM date) >= ${from}`;
  const upper = `extract(hour FROM date) < ${to}`;
  if (from < to) return to === 24 ? lower : from === 0 ? upper : `${lower} AND ${upper}`;
  return `(${lower} OR ${upper})`;
}

class Conditions {
  readonly assumptions: string[] = [];
  /** `yearColumn`: whole years as `year = N`; false: as a date range (see compilePlan) */
  constructor(
    private readonly choices: Record<string, string>,
    private readonly yearColumn = true,
  ) {}

  /** An assumption the SQL makes that is not a glossary choice. */
  note(assumption: string): void {
    this.assumptions.push(assumption);
  }

  /** The glossary option the thread chose for a term; the agent asks before compiling when there is none. */
  glossary(term: string): GlossaryOption {
    const o = option(term, this.choices[term] ?? '');
    if (!o) throw new PlanCompileError(`no choice for "${term}" in this thread`);
    this.assumptions.push(`${glossary().find((t) => t.id === term)!.label}: ${o.label}`);
    return o;
  }

  of(f: Partial<Filters>): string[] {
    const where: string[] = [];
    if (f.types) where.push(f.exceptTypes ? notInList('primary_type', f.types) : inList('primary_type', f.types));
    if (f.category === 'property') where.push(inList('primary_type', typeCategory('property')));
    if (f.category === 'violent') where.push(this.glossary('violent_crime').sql);
    if (f.descriptions)
      where.push(`(${f.descriptions.map((d) => `description ILIKE ${quote(`%${d.replace(/[\\%_]/g, '\\$&')}%`)}`).join(' OR ')})`);
    if (f.locations)
      where.push(f.exceptLocations ? notAmong('location_description', f.locations) : inList('location_description', f.locations));
    if (f.time) where.push(timeCondition(f.time, this.yearColumn));
    if (f.months) where.push(`extract(month FROM date) IN (${list(f.months)})`);
    if (f.weekdays) where.push(`extract(isodow FROM date) IN (${list(f.weekdays)})`);
    if (f.weekend) where.push(this.glossary('weekend').sql);
    if (f.hours) where.push(hoursCondition(f.hours.from, f.hours.to));
    if (f.night) where.push(this.glossary('night').sql);
    if (f.areas) where.push(inList('community_area', f.areas));
    if (f.districts) where.push(inList('district', f.districts));
    if (f.wards) where.push(inList('ward', f.wards));
    if (f.beats) where.push(inList('beat', f.beats));
    if (f.blocks) where.push(inList('block', f.blocks));
    if (f.arrest !== undefined) where.push(f.arrest ? 'arrest' : 'NOT arrest');
    if (f.domestic !== undefined) where.push(f.domestic ? 'domestic' : 'NOT domestic');
    return where;
  }
}

/**
 * Where the counts come from: crimes (one row per incident), or a rollup (one row per group, n incidents;
 * src/db/rollups.ts) when the plan fits inside one. The SQL reads the same either way: sum(n) for count(*).
 */
interface Source {
  table: string;
  /** a table holding every value of a crimes column that crimes holds (the members of a place axis of all time) */
  valuesOf: (column: string) => string;
  /** the incidents of a group (GROUP BY), of a whole result (may be no rows: 0), and of those matching a condition */
  grouped: string;
  total: string;
  matching: (condition: string) => string;
}

/**
 * The values of a column of all time (every block, every beat): with `rollups`, from the smallest rollup that keeps
 * it, as every incident is counted in each rollup and a group at 0 is deleted: the same values, from 51K-200K groups
 * instead of 8.5M rows of crimes or 1M of a finer rollup (the districts of crimes_by_year_hour_place: 509 ms).
 */
const valuesFrom = (column: string, rollups: boolean): string =>
  (rollups ? ROLLUPS.find((r) => r.columns.includes(column))?.table : undefined) ?? 'crimes';

/** Crimes; `rollups`: the values of a column of all time from a rollup (valuesFrom). */
const crimesSource = (rollups: boolean): Source => ({
  table: 'crimes',
  valuesOf: (column) => valuesFrom(column, rollups),
  grouped: 'count(*)',
  total: 'count(*)',
  matching: (c) => `count(*) FILTER (WHERE ${c})`,
});
const fromRollup = (r: Rollup): Source => ({
  table: r.table,
  valuesOf: (column) => valuesFrom(column, true),
  grouped: 'sum(n)',
  total: 'coalesce(sum(n), 0)',
  matching: (c) => `coalesce(sum(n) FILTER (WHERE ${c}), 0)`,
});

const whereClause = (conds: string[]) => (conds.length ? `\nWHERE ${conds.join('\n  AND ')}` : '');

/** The period an unbounded calendar axis spans: the data's own first and last day. */
const DATA_FROM = '(SELECT min(date)::date FROM crimes)';
const DATA_TO = '(SELECT max(date)::date + 1 FROM crimes)';
const bounds = (t: TimeRange | undefined): [string, string] =>
  t ? [`${quote(t.from)}::date`, `${quote(t.to)}::date`] : [DATA_FROM, DATA_TO];

/**
 * How the groups of a listing with no cut go: the plan's order, else time and cycles (`ordered`) along the axis,
 * shares along the axis (a table of rates is read per group), counts most first.
 */
export function listOrder(plan: QueryPlan, ordered: boolean): NonNullable<QueryPlan['order']> {
  return plan.order ?? (ordered || plan.measure.kind === 'share' ? 'axis' : 'measure');
}

/** Whether a dimension is listed along its own order (time, cycles) when the plan says no order. */
export const isOrderedAxis = (d: Dimension): boolean => axis(d, {}).ordered;

const DIRECTION = { measure: 'DESC', measure_asc: 'ASC' } as const;

interface Axis {
  /** the key computed from a crime row */
  key: string;
  /** the axis' members: a complete series, or undefined for the keys found */
  members?: string;
  /** the members as a whole query (a place axis: every community area, district or ward), instead of members */
  membersQuery?: string;
  /** the label shown for a key k, and its column name */
  label: (k: string) => string;
  name: string;
  /** ordered along the axis (time, cycles) rather than by the measure */
  ordered: boolean;
}

/**
 * `everyPlace`: the question asks for the fewest, so a place axis lists every member (those with no
 * incident as 0); otherwise, as the portal's own tables do, the places found are the groups.
 */
function axis(d: Dimension, f: Filters, everyPlace = false): Axis {
  const wholePlaces = everyPlace && !narrowedByPlace(f);
  const [from, to] = bounds(f.time);
  switch (d) {
    case 'year': {
      const years = f.time ? wholeYears(f.time) : undefined;
      const members = years
        ? `generate_series(${years[0]}, ${years[1]})`
        : f.time
          ? `generate_series(extract(year FROM ${from})::int, extract(year FROM ${to} - 1)::int)`
          : 'generate_series((SELECT min(year) FROM crimes), (SELECT max(year) FROM crimes))';
      return { key: 'year', members, label: (k) => k, name: 'year', ordered: true };
    }
    case 'month': {
      // within one calendar year the months are named alone ("March"), otherwise with their year ("March 2021")
      const oneYear = f.time && f.time.from.slice(0, 4) === addDays(f.time.to, -1).slice(0, 4);
      const series = `generate_series(date_trunc('month', ${from}), ${to} - 1, interval '1 month')`;
      return {
        key: "date_trunc('month', date)::date",
        // only April asked ("thefts in April, by month"): the Aprils of the period, not every month as a 0
        ...(f.months
          ? { membersQuery: `SELECT m::date AS k1 FROM ${series} m WHERE extract(month FROM m) IN (${list(f.months)})` }
          : { members: `${series}::date` }),
        label: (k) => `to_char(${k}, '${oneYear ? 'FMMonth' : 'FMMonth YYYY'}')`,
        name: 'month',
        ordered: true,
      };
    }
    case 'month_of_year':
      return {
        key: 'extract(month FROM date)::int',
        members: f.months ? `unnest(ARRAY[${list(f.months)}])` : 'generate_series(1, 12)',
        label: (k) => `to_char(make_date(2000, ${k}, 1), 'FMMonth')`,
        name: 'month',
        ordered: true,
      };
    case 'weekday':
      return {
        key: 'extract(isodow FROM date)::int',
        members: f.weekdays ? `unnest(ARRAY[${list(f.weekdays)}])` : 'generate_series(1, 7)',
        // 2024-01-01 was a Monday: day k of that week is ISO weekday k
        label: (k) => `to_char(make_date(2024, 1, ${k}), 'FMDay')`,
        name: 'weekday',
        ordered: true,
      };
    case 'hour': {
      const hours = f.hours ? hourList(f.hours.from, f.hours.to) : undefined;
      return {
        key: 'extract(hour FROM date)::int',
        members: hours && !f.night ? `unnest(ARRAY[${list(hours)}])` : f.night ? undefined : 'generate_series(0, 23)',
        label: (k) => k,
        name: 'hour',
        ordered: true,
      };
    }
    case 'date': {
      const series = `generate_series(${from}, ${to} - 1, interval '1 day')`;
      // only Mondays, only April: the days of the period that can have a row, not every day as a 0
      const narrow = [
        ...(f.months ? [`extract(month FROM d) IN (${list(f.months)})`] : []),
        ...(f.weekdays ? [`extract(isodow FROM d) IN (${list(f.weekdays)})`] : []),
      ];
      return {
        key: 'date::date',
        ...(narrow.length
          ? { membersQuery: `SELECT d::date AS k1 FROM ${series} d WHERE ${narrow.join(' AND ')}` }
          : { members: `${series}::date` }),
        label: (k) => k,
        name: 'day',
        ordered: true,
      };
    }
    case 'day_of_year':
      return { key: "to_char(date, 'MM-DD')", label: (k) => k, name: 'day_of_year', ordered: true };
    case 'community_area':
      // for the fewest: every area, those with no incident as 0, unless another place filter narrows the question
      return {
        key: 'community_area',
        label: (k) => `(SELECT name FROM community_areas ca WHERE ca.community_area = ${k})`,
        name: 'community_area',
        ordered: false,
        ...(wholePlaces ? { membersQuery: 'SELECT community_area AS k1 FROM community_areas' } : {}),
      };
    case 'district':
    case 'ward': {
      const listed = placeAxis(d);
      // for the fewest: the listed members and any other found (district 31, the airports), unless another place narrows
      return {
        key: d,
        label: (k) => k,
        name: d,
        ordered: false,
        ...(!wholePlaces ? {} : { membersQuery: `SELECT unnest(ARRAY[${list(listed)}]) AS k1 UNION SELECT k1 FROM counts` }),
      };
    }
    case 'type':
      return { key: 'primary_type', label: (k) => k, name: 'primary_type', ordered: false };
    case 'location':
      return { key: 'location_description', label: (k) => k, name: 'location_description', ordered: false };
    default:
      return { key: d, label: (k) => k, name: d, ordered: false };
  }
}

/** A place filter (areas, districts, wards, beats, blocks): then only the places found are groups, not a whole city axis. */
const narrowedByPlace = (f: Filters) => Boolean(f.areas || f.districts || f.wards || f.beats || f.blocks);

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

function hourList(from: number, to: number): number[] {
  const out: number[] = [];
  for (let h = from; h !== to % 24 || out.length === 0; h = (h + 1) % 24) {
    out.push(h);
    if (out.length === 24) break;
  }
  return out;
}

const measureName = (m: Measure): string => {
  switch (m.kind) {
    case 'count':
      return 'incidents';
    case 'distinct':
      return `${m.of}s`;
    case 'share':
      return 'share_pct';
    case 'average_per':
      return `average_per_${m.per}`;
    case 'percentile_per':
      return m.p === 0.5 ? `median_per_${m.per}` : `p${Math.round(m.p * 100)}_per_${m.per}`;
    case 'average_gap':
      return `average_${m.unit}s_between`;
  }
};

const DISTINCT_COLUMN: Record<string, string> = { type: 'primary_type', location: 'location_description' };

export interface CompileOptions {
  /** list every member of a place axis (default: when the plan asks for the fewest); facts.ts sets it for a fewest plan without its cut */
  everyPlace?: boolean;
  /** answer from crimes even when a rollup holds the plan (the differential test compares both) */
  rollups?: boolean;
}

export function compilePlan(plan: QueryPlan, choices: Record<string, string> = {}, options: CompileOptions = {}): CompiledPlan {
  if (plan.versus)
    return compileVersus(
      plan,
      (p) => compilePlan(p, choices, options),
      (why) => new PlanCompileError(why),
    );
  const rollup = options.rollups === false ? undefined : chooseRollup(plan, choices);
  const s = rollup ? fromRollup(rollup) : crimesSource(options.rollups !== false);
  // whole years from crimes as days, unless a type narrows them: crimes is stored in date order and the planner
  // costs its one-column date index as the run of pages a year is, where it costs year = N through the two-column
  // (year, type) index as scattered rows and scans the whole table instead (a year by area and district at 8.5M
  // rows: 4.6 s -> 0.8 s); with a type the (type, year) index reads just that type's rows. A community area or
  // district in some years: as days too, so that the (place, date) index reads just those days ("crimes per month
  // in 2020 in Austin": 111 -> 9 ms). The year column is the year of the date, so the rows are the same (the
  // differential test compares both)
  const f = plan.filters;
  const typed = Boolean((f.types && !f.exceptTypes) || f.category);
  const c = new Conditions(choices, Boolean(rollup) || (typed && !(f.areas || f.districts)));
  const where = c.of(plan.filters);
  let sql: string;
  if (plan.compareWith) sql = compileComparison(plan, c, s);
  else if (plan.measure.kind === 'average_gap') sql = compileGap(plan, plan.measure, where, rollup);
  else if (plan.measure.kind === 'average_per' || plan.measure.kind === 'percentile_per')
    sql = compilePerGroup(plan, plan.measure, c, where, s);
  else if (plan.groupBy.length === 0) sql = compileTotal(plan, c, where, s);
  else sql = compileGrouped(plan, c, where, options.everyPlace ?? (plan.top?.order === 'asc' || plan.none === true), s);
  return { sql, assumptions: [...new Set(c.assumptions)], ...(rollup ? { rollup: rollup.table } : {}) };
}

/** The aggregate columns of count and share, over the rows in scope; `grouped`: per group of a GROUP BY. */
function aggregates(m: Measure, c: Conditions, s: Source, grouped: boolean): string[] {
  const count = grouped ? s.grouped : s.total;
  if (m.kind === 'distinct') throw new Error('a distinct count is compiled by measured(): the pairs first');
  if (m.kind === 'share') {
    const part = c.of(m.part).join(' AND ');
    return [
      `round(100.0 * ${s.matching(part)} / nullif(${count}, 0), 2) AS share_pct`,
      `${s.matching(part)} AS matching`,
      `${count} AS incidents`,
    ];
  }
  return [`${count} AS incidents`];
}

/**
 * The measure per group over the rows of the source matching `conds`: each group's key expression named k1, k2, ...
 * (no keys: one row), `leading` columns before the measure's. A distinct count takes each (group, value) pair once
 * and then counts the pairs: PostgreSQL hashes the pairs, in parallel, where count(DISTINCT) sorts every row of each
 * group in one process (count(DISTINCT beat) per community area and hour from crimes at 8.5M rows: 43 s -> 1.9 s).
 * count(value) leaves NULL out, as count(DISTINCT value) does.
 */
function measured(m: Measure, c: Conditions, s: Source, keys: string[], conds: string[], leading: string[] = []): string {
  const named = keys.map((k, i) => `${k} AS k${i + 1}`);
  const groupBy = keys.length ? `\nGROUP BY ${keys.map((_, i) => i + 1).join(', ')}` : '';
  if (m.kind === 'distinct') {
    const x = DISTINCT_COLUMN[m.of] ?? m.of;
    const pairs = `SELECT DISTINCT ${[...named, x].join(', ')}\nFROM ${s.table}${whereClause(conds)}`;
    const columns = [...keys.map((_, i) => `k${i + 1}`), `count(${x}) AS ${measureName(m)}`];
    return `SELECT ${columns.join(', ')}\nFROM (\n  ${pairs.replace(/\n/g, '\n  ')}\n) pairs${groupBy}`;
  }
  const columns = [...named, ...leading, ...aggregates(m, c, s, keys.length > 0)];
  return `SELECT ${columns.join(',\n       ')}\nFROM ${s.table}${whereClause(conds)}${groupBy}`;
}

function compileTotal(plan: QueryPlan, c: Conditions, where: string[], s: Source): string {
  return measured(plan.measure, c, s, [], where);
}

function compileGrouped(plan: QueryPlan, c: Conditions, where: string[], everyPlace: boolean, s: Source): string {
  const axes = plan.groupBy.map((d) => axis(d, plan.filters, everyPlace));
  const keys = axes.map((_, i) => `k${i + 1}`);
  const m = plan.measure;
  if (plan.ofTotal && (m.kind !== 'count' || !plan.groupBy.length))
    throw new PlanCompileError('each group as a percent of the total needs a count by group');
  // each group's percent of all groups in scope: a window over every group, taken before any cut
  const ofTotal = plan.ofTotal ? [`round(100.0 * ${s.grouped} / nullif(sum(${s.grouped}) OVER (), 0), 2) AS pct_of_total`] : [];
  // a place or category that is not recorded (NULL) is no group: it is left out, and said
  const unknown = axes.filter((a) => !a.ordered).map((a) => `${a.key} IS NOT NULL`);
  const nullable = axes.filter((a) => !a.ordered && a.key !== 'primary_type').map((a) => a.name.replace(/_/g, ' '));
  if (nullable.length) c.note(`incidents with no recorded ${nullable.join(' or ')} are left out`);
  const counts = `counts AS (\n  ${measured(
    m,
    c,
    s,
    axes.map((a) => a.key),
    [...where, ...unknown],
    ofTotal,
  ).replace(/\n/g, '\n  ')}\n)`;
  const axisCtes = axes.map(
    (a, i) =>
      `axis${i + 1} AS (${a.membersQuery ? a.membersQuery.replace(/\bk1\b/g, keys[i]) : `SELECT ${a.members ? `${a.members} AS ${keys[i]}` : `DISTINCT ${keys[i]} FROM counts`}`})`,
  );
  const outputs =
    m.kind === 'share'
      ? ['counts.share_pct', 'coalesce(counts.matching, 0) AS matching', 'coalesce(counts.incidents, 0) AS incidents']
      : plan.ofTotal
        ? ['coalesce(counts.pct_of_total, 0) AS pct_of_total', `coalesce(counts.${measureName(m)}, 0) AS ${measureName(m)}`]
        : [`coalesce(counts.${measureName(m)}, 0) AS ${measureName(m)}`];
  const labels = axes.map((a, i) => `${a.label(`axis${i + 1}.${keys[i]}`)} AS ${a.name}`);
  const from = axes.map((_, i) => `axis${i + 1}`).join(' CROSS JOIN ');
  const join = `LEFT JOIN counts ON ${keys.map((k, i) => `counts.${k} = axis${i + 1}.${k}`).join(' AND ')}`;
  const value = m.kind === 'share' ? 'counts.share_pct' : `coalesce(counts.${measureName(m)}, 0)`;
  // ties go by the axis' own order (time, cycles) or alphabetically by label (names, types)
  const byAxis = axes.map((a, i) => (a.ordered ? `axis${i + 1}.${keys[i]}` : a.name));
  const nullsLast = m.kind === 'share' ? ' NULLS LAST' : '';
  const body = `FROM ${from}\n${join}`;
  if (plan.none) {
    // the empty members of a complete axis: a place axis lists every member, a calendar axis every period
    if (axes.some((a) => !a.members && !a.membersQuery))
      throw new PlanCompileError(
        `"which ${axes[0].name.replace(/_/g, ' ')} had none" needs an axis of every member: a time axis, community areas, districts or wards`,
      );
    return `WITH ${[counts, ...axisCtes].join(',\n')}\nSELECT ${[...labels, ...outputs].join(',\n       ')}\n${body}\nWHERE coalesce(counts.${m.kind === 'share' ? 'matching' : measureName(m)}, 0) = 0\nORDER BY ${byAxis.join(', ')}`;
  }
  if (plan.top && plan.top.n > 1) {
    // the top n, ties at the cut broken deterministically by the axis order or the label (the narration says
    // when the cut splits a tie: facts.ts)
    const order = [`${value} ${plan.top.order.toUpperCase()}${nullsLast}`, ...byAxis];
    return `WITH ${[counts, ...axisCtes].join(',\n')}\nSELECT ${[...labels, ...outputs].join(',\n       ')}\n${body}\nORDER BY ${order.join(', ')}\nLIMIT ${plan.top.n}`;
  }
  if (plan.top) {
    // the first and every group tied with it ("which ward had the most": a three-way tie is three rows); within
    // a tie the groups go by the axis' order or the label
    const rankOrder = `${value} ${plan.top.order.toUpperCase()}${nullsLast}`;
    // the columns by position (c1, c2, ...): two axes may share a name (month and month of year)
    const shown = [...labels, ...outputs].map((col, i) => {
      const cut = col.lastIndexOf(' AS ');
      const [expr, name] = cut < 0 ? [col, col.slice(col.lastIndexOf('.') + 1)] : [col.slice(0, cut), col.slice(cut + 4)];
      return { expr, name, alias: `c${i + 1}` };
    });
    const along = axes.map((a, i) => (a.ordered ? `${byAxis[i]} AS o${i + 1}` : undefined)).filter(Boolean);
    const then = axes.map((a, i) => (a.ordered ? `o${i + 1}` : shown[i].alias));
    const ranked = `ranked AS (\n  SELECT ${[...shown.map((c) => `${c.expr} AS ${c.alias}`), ...along, `rank() OVER (ORDER BY ${rankOrder}) AS place`].join(',\n         ')}\n  ${body.replace(/\n/g, '\n  ')}\n)`;
    return `WITH ${[counts, ...axisCtes, ranked].join(',\n')}\nSELECT ${shown.map((c) => `${c.alias} AS ${c.name}`).join(', ')}\nFROM ranked\nWHERE place <= ${plan.top.n}\nORDER BY ${['place', ...then].join(', ')}`;
  }
  const listed = listOrder(plan, axes[0].ordered);
  const order = listed === 'axis' ? byAxis : [`${value} ${DIRECTION[listed]}${nullsLast}`, ...byAxis];
  return `WITH ${[counts, ...axisCtes].join(',\n')}\nSELECT ${[...labels, ...outputs].join(',\n       ')}\n${body}\nORDER BY ${order.join(', ')}`;
}

/** Averages and percentiles of per-group counts, over every member of the group in scope (empty ones count as 0). */
function compilePerGroup(plan: QueryPlan, m: Extract<Measure, { per: PerGroup }>, c: Conditions, where: string[], s: Source): string {
  if (plan.groupBy.join() === 'year' && m.kind === 'average_per' && PLACE_PER.has(m.per) && !plan.top)
    return compilePlaceAverageByYear(plan, m, c, where, s);
  if (plan.groupBy.length) return compilePerGroupAlongTime(plan, m, where, s);
  const f = plan.filters;
  const [from, to] = bounds(f.time);
  const agg = (x: string) => (m.kind === 'average_per' ? `round(avg(${x}), 2)` : `percentile_cont(${m.p}) WITHIN GROUP (ORDER BY ${x})`);
  const name = measureName(m);
  const filtered = whereClause(where).replace(/\n/g, '\n  ');
  const calendar = (step: string, trunc: string, key: string) => {
    // the period's members, narrowed like the rows are (only Mondays, only summer months)
    const narrow: string[] = [];
    if (f.weekdays && step === 'day') narrow.push(`extract(isodow FROM ${key}) IN (${list(f.weekdays)})`);
    if (f.months) narrow.push(`extract(month FROM ${key}) IN (${list(f.months)})`);
    return `WITH periods AS (\n  SELECT generate_series(date_trunc('${trunc}', ${from}), ${to} - 1, interval '1 ${step}')::date AS ${key}\n), counts AS (\n  SELECT date_trunc('${trunc}', date)::date AS ${key}, ${s.grouped} AS n\n  FROM ${s.table}${filtered}\n  GROUP BY 1\n)\nSELECT ${agg('coalesce(counts.n, 0)')} AS ${name}\nFROM periods\nLEFT JOIN counts USING (${key})${narrow.length ? `\nWHERE ${narrow.join(' AND ')}` : ''}`;
  };
  switch (m.per) {
    case 'day':
      return calendar('day', 'day', 'day');
    case 'month':
      return calendar('month', 'month', 'month');
    case 'year':
      return calendar('year', 'year', 'year');
    case 'block': {
      const counts = `SELECT block, ${s.grouped} AS n\n  FROM ${s.table}${filtered}\n  GROUP BY block`;
      // the glossary's per-block question is about averages; a percentile is taken over the blocks where it happened
      const overIncidents =
        m.kind === 'percentile_per'
          ? (c.note('over the blocks with at least one incident'), true)
          : c.glossary('per_block_average').id === 'blocks_with_incidents';
      if (overIncidents) return `SELECT ${agg('n')} AS ${name}\nFROM (\n  ${counts}\n) per_block`;
      return `WITH counts AS (\n  ${counts}\n)\nSELECT ${agg('coalesce(counts.n, 0)')} AS ${name}\nFROM (SELECT DISTINCT block FROM ${s.valuesOf('block')}) blocks\nLEFT JOIN counts USING (block)`;
    }
    case 'community_area':
      return `WITH counts AS (\n  SELECT community_area, ${s.grouped} AS n\n  FROM ${s.table}${filtered}\n  GROUP BY community_area\n)\nSELECT ${agg('coalesce(counts.n, 0)')} AS ${name}\nFROM community_areas\nLEFT JOIN counts USING (community_area)`;
    default:
      return `WITH counts AS (\n  SELECT ${m.per}, ${s.grouped} AS n\n  FROM ${s.table}${filtered}\n  GROUP BY ${m.per}\n)\nSELECT ${agg('coalesce(counts.n, 0)')} AS ${name}\nFROM (SELECT DISTINCT ${m.per} FROM ${s.valuesOf(m.per)} WHERE ${m.per} IS NOT NULL) members\nLEFT JOIN counts USING (${m.per})`;
  }
}

const PLACE_PER = new Set<PerGroup>(['block', 'community_area', 'district', 'ward', 'beat']);

/**
 * An average per block (or place) in each year ("per-block average by year"): each year's value is the plan's
 * average over that year's incidents, as the same plan pinned to that year would give; every year of the
 * period listed, a year with none as 0. Per block, the glossary's choice: the blocks with an incident that
 * year, or every block in the data; per place, every place (as compilePerGroup).
 */
function compilePlaceAverageByYear(
  plan: QueryPlan,
  m: Extract<Measure, { kind: 'average_per' }>,
  c: Conditions,
  where: string[],
  s: Source,
): string {
  const ax = axis('year', plan.filters);
  const name = measureName(m);
  const col = m.per;
  const overIncidents = col === 'block' && c.glossary('per_block_average').id === 'blocks_with_incidents';
  const filtered = whereClause(where).replace(/\n/g, '\n  ');
  const members =
    col === 'community_area'
      ? '(SELECT count(*) FROM community_areas)'
      : `(SELECT count(DISTINCT ${col}) FROM ${s.valuesOf(col)}${col === 'block' ? '' : ` WHERE ${col} IS NOT NULL`})`;
  const per = overIncidents
    ? `per AS (\n  SELECT k1, round(avg(n), 2) AS v\n  FROM (\n    SELECT year AS k1, block, ${s.grouped} AS n\n    FROM ${s.table}${filtered.replace(/\n/g, '\n  ')}\n    GROUP BY 1, 2\n  ) per_block\n  GROUP BY k1\n)`
    : `per AS (\n  SELECT year AS k1, round(${s.grouped}::numeric / ${members}, 2) AS v\n  FROM ${s.table}${filtered}\n  GROUP BY 1\n)`;
  return `WITH ${per}\nSELECT ${ax.label('axis.k1')} AS ${ax.name}, coalesce(per.v, 0) AS ${name}\nFROM ${ax.members} AS axis(k1)\nLEFT JOIN per ON per.k1 = axis.k1\nORDER BY axis.k1`;
}

/** The coarser time axes an average or percentile per day (per month) can be grouped by, with each one's key of a day. */
const PER_PERIOD_AXES: Partial<Record<PerGroup, Partial<Record<Dimension, (day: string) => string>>>> = {
  day: {
    year: (x) => `extract(year FROM ${x})::int`,
    month: (x) => `date_trunc('month', ${x})::date`,
    month_of_year: (x) => `extract(month FROM ${x})::int`,
    weekday: (x) => `extract(isodow FROM ${x})::int`,
  },
  month: { year: (x) => `extract(year FROM ${x})::int`, month_of_year: (x) => `extract(month FROM ${x})::int` },
};

/**
 * An average or percentile per day (per month) in each year, month, month of the year or weekday ("average thefts
 * per day, by month"): every day of the period is a member of its group, days without incidents as 0, so each
 * group's value is the plan's measure over its own days.
 */
function compilePerGroupAlongTime(plan: QueryPlan, m: Extract<Measure, { per: PerGroup }>, where: string[], s: Source): string {
  const d = plan.groupBy[0];
  const keyOf = PER_PERIOD_AXES[m.per]?.[d];
  if (plan.groupBy.length > 1 || !keyOf)
    throw new PlanCompileError(
      `an average or percentile per ${m.per.replace(/_/g, ' ')} can be grouped only by a longer time (year, month, month of the year, weekday), not by ${plan.groupBy.join(' and ').replace(/_/g, ' ')}`,
    );
  const f = plan.filters;
  const [from, to] = bounds(f.time);
  const unit = m.per;
  const agg = (x: string) => (m.kind === 'average_per' ? `round(avg(${x}), 2)` : `percentile_cont(${m.p}) WITHIN GROUP (ORDER BY ${x})`);
  const name = measureName(m);
  const narrow: string[] = [];
  if (f.weekdays && unit === 'day') narrow.push(`extract(isodow FROM periods.p) IN (${list(f.weekdays)})`);
  if (f.months) narrow.push(`extract(month FROM periods.p) IN (${list(f.months)})`);
  const ax = axis(d, f);
  const value = `${agg('n')}`;
  const per = `per AS (\n  SELECT ${keyOf('periods.p')} AS k1, coalesce(counts.n, 0) AS n\n  FROM periods\n  LEFT JOIN counts USING (p)${narrow.length ? `\n  WHERE ${narrow.join(' AND ')}` : ''}\n)`;
  const ctes = [
    `periods AS (\n  SELECT generate_series(date_trunc('${unit}', ${from}), ${to} - 1, interval '1 ${unit}')::date AS p\n)`,
    `counts AS (\n  SELECT date_trunc('${unit}', date)::date AS p, ${s.grouped} AS n\n  FROM ${s.table}${whereClause(where).replace(/\n/g, '\n  ')}\n  GROUP BY 1\n)`,
    per,
  ];
  const select = `SELECT ${ax.label('k1')} AS ${ax.name}, ${value} AS ${name}\nFROM per\nGROUP BY k1`;
  if (plan.top) {
    // as any ranking: the first n by the measure, ties at the cut broken along the axis; the first comes with every group tied with it
    const ranked = `ranked AS (\n  SELECT k1, ${value} AS v, rank() OVER (ORDER BY ${value} ${plan.top.order.toUpperCase()}) AS place\n  FROM per\n  GROUP BY k1\n)`;
    const cut = plan.top.n === 1 ? '\nWHERE place = 1\nORDER BY k1' : `\nORDER BY place, k1\nLIMIT ${plan.top.n}`;
    return `WITH ${[...ctes, ranked].join(',\n')}\nSELECT ${ax.label('k1')} AS ${ax.name}, v AS ${name}\nFROM ranked${cut}`;
  }
  const listed = plan.order ?? 'axis';
  const order = listed === 'axis' ? 'k1' : `${value} ${DIRECTION[listed]}, k1`;
  return `WITH ${ctes.join(',\n')}\n${select}\nORDER BY ${order}`;
}

/**
 * The average time between consecutive incidents on the same block, over every such pair: a block's gaps add
 * up to its last incident minus its first, and it has one gap fewer than incidents, so one GROUP BY gives the
 * exact average of the window form (date - lag(date) OVER (PARTITION BY block ORDER BY date)) without sorting
 * every incident (8.5M rows: 0.88 s against 73 s). The timestamps are always crimes'; over every incident the
 * blocks and their counts are a rollup's, and each block's first and last incident an index probe.
 */
function compileGap(plan: QueryPlan, m: Extract<Measure, { kind: 'average_gap' }>, where: string[], rollup?: Rollup): string {
  if (plan.groupBy.length || plan.top) throw new PlanCompileError('an average gap between incidents cannot be grouped');
  const seconds = m.unit === 'day' ? 86_400 : 3_600;
  const average = `SELECT round((sum(extract(epoch FROM last - first)) / ${seconds} / nullif(sum(n - 1), 0))::numeric, 2) AS ${measureName(m)},
       sum(n - 1) AS gaps`;
  // every incident (rollup-choice.ts gapRollup): each block and its count from the rollup, its first and last
  // incident two probes of crimes' (block, date) index; the incidents with no block are one group, as GROUP BY has it
  if (rollup)
    return `${average}
FROM (
  SELECT b.n, s.first, s.last
  FROM (SELECT block, sum(n) AS n FROM ${rollup.table} WHERE block IS NOT NULL GROUP BY block HAVING sum(n) > 1) b
  CROSS JOIN LATERAL (SELECT min(date) AS first, max(date) AS last FROM crimes c WHERE c.block = b.block) s
  UNION ALL
  SELECT count(*), min(date), max(date) FROM crimes WHERE block IS NULL HAVING count(*) > 1
) per_block`;
  return `${average}
FROM (
  SELECT min(date) AS first, max(date) AS last, count(*) AS n
  FROM crimes${whereClause(where).replace(/\n/g, '\n  ')}
  GROUP BY block
  HAVING count(*) > 1
) per_block`;
}

/** A short label of a period: 2019, 2021-03, 2019-07-04, or from..to. */
export function periodLabel(t: TimeRange): string {
  const years = wholeYears(t);
  if (years) return years[0] === years[1] ? String(years[0]) : `${years[0]}-${years[1]}`;
  const day = new Date(`${t.from}T00:00:00Z`);
  const next = new Date(day.getTime() + 86_400_000).toISOString().slice(0, 10);
  if (next === t.to) return t.from;
  const monthEnd = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  if (t.from.endsWith('-01') && monthEnd === t.to) return t.from.slice(0, 7);
  const last = new Date(new Date(`${t.to}T00:00:00Z`).getTime() - 86_400_000).toISOString().slice(0, 10);
  return `${t.from} to ${last}`;
}

/** The column of a comparison's value in one period: "incidents_2019"; the two periods' columns never share a name. */
function periodColumns(name: string, a: TimeRange, b: TimeRange): [string, string] {
  // days as one run of digits, a span of years with "to": "incidents 2001 2025" and "2019 04 01" read as phone numbers
  // to the check every shown column name passes (core/inert-text.ts), and the column would be shown as "column 2"
  const words = (t: TimeRange) =>
    periodLabel(t)
      .replace(/(\d{4})-(\d{2})-(\d{2})/g, '$1$2$3')
      .replace(/^(\d{4})-(\d{4})$/, '$1 to $2')
      .replace(/[^0-9A-Za-z]+/g, '_');
  const [ca, cb] = [a, b].map((t) => `${name}_${words(t)}`);
  return ca === cb ? [name, `compared_${name}`] : [ca, cb];
}

/**
 * The change from the other period to this one: in percent for counts and averages, in percentage points for a
 * share (a share of 12% against 10% is +2 points, not +20%).
 */
function changeColumn(m: Measure, va: string, vb: string): string {
  return m.kind === 'share'
    ? `round((${va} - ${vb})::numeric, 2) AS change_points`
    : `round((100.0 * (${va} - ${vb}) / nullif(${vb}, 0))::numeric, 1) AS change_pct`;
}

function compileComparison(plan: QueryPlan, c: Conditions, s: Source): string {
  const current = plan.filters.time;
  if (!current) throw new PlanCompileError('a comparison needs the period it compares: this question names none');
  if (plan.none) throw new PlanCompileError('a comparison of only the groups with none');
  if (plan.ofTotal) throw new PlanCompileError('a comparison of each group as a percent of the total');
  const m = plan.measure;
  if (plan.groupBy.length) {
    if (m.kind !== 'count' && m.kind !== 'distinct' && m.kind !== 'share')
      throw new PlanCompileError('an average or percentile per group cannot be grouped again');
    return compileGroupedComparison(plan, m, current, plan.compareWith!, c, s);
  }
  const [la, lb] = [periodLabel(current), periodLabel(plan.compareWith!)];
  if (m.kind === 'count') {
    const rest = c.of({ ...plan.filters, time: undefined });
    const a = timeCondition(current);
    const b = timeCondition(plan.compareWith!);
    const [na, nb] = [s.matching(a), s.matching(b)];
    return `SELECT ${quote(la)} AS period, ${na} AS incidents,\n       ${quote(lb)} AS compared_with, ${nb} AS compared_incidents,\n       round(100.0 * (${na} - ${nb}) / nullif(${nb}, 0), 1) AS change_pct\nFROM ${s.table}\nWHERE ${[...rest, `(${a} OR ${b})`].join('\n  AND ')}`;
  }
  // any other measure: the plan answered once per period, from the same source, side by side
  const once = (t: TimeRange) => {
    const p: QueryPlan = { ...plan, filters: { ...plan.filters, time: t }, compareWith: undefined };
    const where = c.of(p.filters);
    const sql =
      m.kind === 'average_gap'
        ? compileGap(p, m, where)
        : m.kind === 'average_per' || m.kind === 'percentile_per'
          ? compilePerGroup(p, m, c, where, s)
          : compileTotal(p, c, where, s);
    return `  ${sql.replace(/\n/g, '\n  ')}`;
  };
  const name = measureName(m);
  return `WITH a AS (\n${once(current)}\n), b AS (\n${once(plan.compareWith!)}\n)\nSELECT ${quote(la)} AS period, a.${name} AS ${name},\n       ${quote(lb)} AS compared_with, b.${name} AS compared_${name},\n       ${changeColumn(m, `a.${name}`, `b.${name}`)}\nFROM a CROSS JOIN b`;
}

/**
 * The calendar years, months or days a period touches, from its first day's to its last day's: April 2019 is
 * one year and one month; a comparison by year or month lines up two periods that touch as many.
 */
function stepsIn(t: TimeRange, unit: 'year' | 'month' | 'date'): number {
  const last = addDays(t.to, -1);
  const [fy, fm] = [Number(t.from.slice(0, 4)), Number(t.from.slice(5, 7))];
  const [ly, lm] = [Number(last.slice(0, 4)), Number(last.slice(5, 7))];
  if (unit === 'date') return Math.round((Date.parse(t.to) - Date.parse(t.from)) / 86_400_000);
  if (unit === 'month') return (ly - fy) * 12 + (lm - fm) + 1;
  return ly - fy + 1;
}

/** One axis of a grouped comparison: its key in each period, its members, its label and column name. */
interface ComparedAxis {
  keyA: string;
  keyB: string;
  /** a query of the members (column k1), or undefined for the keys found in either period */
  members?: string;
  label: (k: string) => string;
  name: string;
  ordered: boolean;
}

/**
 * A time axis (year, month, day) is lined up by position, the 1st month of 2020 against the 1st of 2018, and
 * labelled by this period; any other axis by its members (each district, each month of the year in both periods).
 */
function comparedAxis(d: Dimension, f: Filters, a: TimeRange, b: TimeRange): ComparedAxis {
  if (d !== 'year' && d !== 'month' && d !== 'date') {
    const ax = axis(d, f);
    return {
      keyA: ax.key,
      keyB: ax.key,
      members: ax.membersQuery ?? (ax.members ? `SELECT ${ax.members} AS k1` : undefined),
      label: ax.label,
      name: ax.name,
      ordered: ax.ordered,
    };
  }
  const name = d === 'date' ? 'day' : d;
  const n = stepsIn(a, d);
  if (n !== stepsIn(b, d))
    throw new PlanCompileError(
      `a comparison by ${name} lines up two periods of as many ${name}s: ${periodLabel(a)} and ${periodLabel(b)} are not`,
    );
  const offset = (t: TimeRange) =>
    d === 'year'
      ? `year - ${t.from.slice(0, 4)}`
      : d === 'month'
        ? `(extract(year FROM date)::int * 12 + extract(month FROM date)::int) - ${Number(t.from.slice(0, 4)) * 12 + Number(t.from.slice(5, 7))}`
        : `date::date - ${quote(t.from)}::date`;
  const oneYear = a.from.slice(0, 4) === addDays(a.to, -1).slice(0, 4);
  // only April asked: the positions of this period's Aprils, not every month as a 0
  const at = (k: string) => `${quote(a.from)}::date + ${k} * interval '1 ${d === 'date' ? 'day' : d}'`;
  const narrow = [
    ...(f.months && d !== 'year' ? [`extract(month FROM ${at('o')}) IN (${list(f.months)})`] : []),
    ...(f.weekdays && d === 'date' ? [`extract(isodow FROM ${at('o')}) IN (${list(f.weekdays)})`] : []),
  ];
  return {
    keyA: offset(a),
    keyB: offset(b),
    members: `SELECT o AS k1 FROM generate_series(0, ${n - 1}) o${narrow.length ? ` WHERE ${narrow.join(' AND ')}` : ''}`,
    label: (k) =>
      d === 'year'
        ? `${a.from.slice(0, 4)} + ${k}`
        : d === 'month'
          ? `to_char(${at(k)}, '${oneYear ? 'FMMonth' : 'FMMonth YYYY'}')`
          : `${quote(a.from)}::date + ${k}`,
    name,
    ordered: true,
  };
}

/** A by-year series of several years compared with one year: each year beside that one. */
export const isSeriesAgainstYear = (plan: QueryPlan): boolean =>
  plan.groupBy.join() === 'year' &&
  !plan.top &&
  !!plan.filters.time &&
  !!plan.compareWith &&
  stepsIn(plan.compareWith, 'year') === 1 &&
  stepsIn(plan.filters.time, 'year') > 1;

/**
 * A by-year series against one year ("April of each year" then "compare with 2018"): each year of the series
 * beside that year's value, and the change from it; every year of the series listed (none as 0).
 */
function compileSeriesAgainstYear(
  m: Extract<Measure, { kind: 'count' | 'distinct' | 'share' }>,
  rest: string[],
  a: TimeRange,
  b: TimeRange,
  c: Conditions,
  s: Source,
): string {
  const name = measureName(m);
  const [colA, colB] = periodColumns(name, a, b);
  const [va, vb] = m.kind === 'share' ? ['a.share_pct', 'b.share_pct'] : [`coalesce(a.${name}, 0)`, `b.${name}`];
  const [fy, ly] = [Number(a.from.slice(0, 4)), Number(addDays(a.to, -1).slice(0, 4))];
  const series = measured(m, c, s, ['year'], [...rest, timeCondition(a)]).replace(/\n/g, '\n  ');
  const one = measured(m, c, s, [], [...rest, timeCondition(b)]).replace(/\n/g, '\n  ');
  return `WITH a AS (\n  ${series}\n), b AS (\n  ${one}\n)\nSELECT axis1.k1 AS year,\n       ${va} AS ${colA},\n       ${vb} AS ${colB},\n       ${changeColumn(m, va, vb)}\nFROM generate_series(${fy}, ${ly}) AS axis1(k1)\nLEFT JOIN a ON a.k1 = axis1.k1\nCROSS JOIN b\nORDER BY axis1.k1`;
}

/**
 * A grouped comparison: per group (one or two axes), the measure in this period and in the other, and the
 * change. A top/bottom N is the N of this period (ties at the cut kept), with the same groups in the other.
 */
function compileGroupedComparison(
  plan: QueryPlan,
  m: Extract<Measure, { kind: 'count' | 'distinct' | 'share' }>,
  a: TimeRange,
  b: TimeRange,
  c: Conditions,
  s: Source,
): string {
  const rest = c.of({ ...plan.filters, time: undefined });
  if (isSeriesAgainstYear(plan)) return compileSeriesAgainstYear(m, rest, a, b, c, s);
  const axes = plan.groupBy.map((d) => comparedAxis(d, plan.filters, a, b));
  const keys = axes.map((_, i) => `k${i + 1}`);
  const unknown = axes.filter((x) => !x.ordered).map((x) => `${x.keyA} IS NOT NULL`);
  const nullable = axes.filter((x) => !x.ordered && x.keyA !== 'primary_type').map((x) => x.name.replace(/_/g, ' '));
  if (nullable.length) c.note(`incidents with no recorded ${nullable.join(' or ')} are left out`);
  const side = (t: TimeRange, key: (x: ComparedAxis) => string) =>
    measured(m, c, s, axes.map(key), [...rest, timeCondition(t), ...unknown]).replace(/\n/g, '\n  ');
  const axisCtes = axes.map(
    (x, i) =>
      `axis${i + 1} AS (${x.members ? x.members.replace(/\bk1\b/g, keys[i]) : `SELECT ${keys[i]} FROM a UNION SELECT ${keys[i]} FROM b`})`,
  );
  const name = measureName(m);
  const [va, vb] = m.kind === 'share' ? ['a.share_pct', 'b.share_pct'] : [`coalesce(a.${name}, 0)`, `coalesce(b.${name}, 0)`];
  const [colA, colB] = periodColumns(name, a, b);
  const columns = [
    ...axes.map((x, i) => `${x.label(`axis${i + 1}.${keys[i]}`)} AS ${x.name}`),
    `${va} AS ${colA}`,
    `${vb} AS ${colB}`,
    changeColumn(m, va, vb),
  ];
  const on = (t: string) => keys.map((k, i) => `${t}.${k} = axis${i + 1}.${k}`).join(' AND ');
  const body = `FROM ${axes.map((_, i) => `axis${i + 1}`).join(' CROSS JOIN ')}\nLEFT JOIN a ON ${on('a')}\nLEFT JOIN b ON ${on('b')}`;
  const ctes = [`a AS (\n  ${side(a, (x) => x.keyA)}\n)`, `b AS (\n  ${side(b, (x) => x.keyB)}\n)`, ...axisCtes];
  const nullsLast = m.kind === 'share' ? ' NULLS LAST' : '';
  if (plan.top) {
    // ranked by this period; within a tie by the axis' order or the label. Columns by position: two axes may share a name
    const aliases = columns.map((_, i) => `c${i + 1}`);
    const names = columns.map((col) => col.slice(col.lastIndexOf(' AS ') + 4));
    const exprs = columns.map((col) => col.slice(0, col.lastIndexOf(' AS ')));
    const along = axes.map((x, i) => `${x.ordered ? `axis${i + 1}.${keys[i]}` : exprs[i]} AS o${i + 1}`);
    const ranked = `ranked AS (\n  SELECT ${[...exprs.map((e, i) => `${e} AS ${aliases[i]}`), ...along, `rank() OVER (ORDER BY ${va} ${plan.top.order.toUpperCase()}${nullsLast}) AS place`].join(',\n         ')}\n  ${body.replace(/\n/g, '\n  ')}\n)`;
    return `WITH ${[...ctes, ranked].join(',\n')}\nSELECT ${aliases.map((al, i) => `${al} AS ${names[i]}`).join(', ')}\nFROM ranked\nWHERE place <= ${plan.top.n}\nORDER BY ${['place', ...axes.map((_, i) => `o${i + 1}`)].join(', ')}`;
  }
  const byAxis = axes.map((x, i) => (x.ordered ? `axis${i + 1}.${keys[i]}` : x.label(`axis${i + 1}.${keys[i]}`)));
  const listed = listOrder(plan, axes[0].ordered);
  const order = listed === 'axis' ? byAxis : [`${va} ${DIRECTION[listed]}${nullsLast}`, ...byAxis];
  return `WITH ${ctes.join(',\n')}\nSELECT ${columns.join(',\n       ')}\n${body}\nORDER BY ${order.join(', ')}`;
}
