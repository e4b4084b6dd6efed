// Every plan an edit can make compiles to the right rows and is told so a
// person sees what was answered. Representative answers (a count, by month,
// by year, the top 5 types, by district, a share of arrests, an average per
// day) are edited as plans, the way a follow-up or a button edits them:
// another period, a bare month, a filter added, replaced or removed, another
// or a second grouping, a top or bottom N, a comparison with the year before,
// another measure; and each edit again under a comparison. Each plan runs on
// generated crimes and its rows are checked against an independent count
// over the crimes themselves (computed here, row by row, from a plain SELECT
// of the crimes); its headline must restate the period, every filter, the
// grouping and the N, its narration the totals over every group.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cell } from '../../src/core/answer.js';
import { compilePlan, PlanCompileError, periodLabel } from '../../src/plan/compile.js';
import { groupFacts } from '../../src/plan/facts.js';
import { narratePlan } from '../../src/plan/narrate.js';
import { parsePlan, type Dimension, type QueryPlan, type QueryPlanInput, type TimeRange } from '../../src/plan/query-plan.js';
import { placeAxis, typePlural } from '../../src/plan/semantic-model.js';
import { crimeDatabase } from '../helpers/crime-data.js';

const data = crimeDatabase(20_000);

interface Crime {
  day: string;
  year: number;
  month: number;
  dow: number;
  type: string;
  district: number | null;
  arrest: boolean;
  block: string;
}

let crimes: Crime[] = [];
let dataFrom = '';
let dataTo = '';
const Y = 2019;

beforeAll(async () => {
  const { rows } = await data.db.pool.query<{
    day: string;
    year: number;
    month: number;
    dow: number;
    type: string;
    district: number | null;
    arrest: boolean;
    block: string;
  }>(
    `SELECT to_char(date, 'YYYY-MM-DD') AS day, year, extract(month FROM date)::int AS month, extract(isodow FROM date)::int AS dow,
            primary_type AS type, district, arrest, block FROM crimes`,
  );
  crimes = rows;
  dataFrom = rows.reduce((m, c) => (c.day < m ? c.day : m), '9999-12-31');
  dataTo = rows.reduce((m, c) => (c.day > m ? c.day : m), '0000-01-01');
});

// ---------------------------------------------------------------- the plans

const year = (y: number): TimeRange => ({ from: `${y}-01-01`, to: `${y + 1}-01-01` });
const april = (y: number): TimeRange => ({ from: `${y}-04-01`, to: `${y}-05-01` });
/** the same period a year earlier */
const yearBefore = (t: TimeRange): TimeRange => ({
  from: `${Number(t.from.slice(0, 4)) - 1}${t.from.slice(4)}`,
  to: `${Number(t.to.slice(0, 4)) - 1}${t.to.slice(4)}`,
});

const BASES: Record<string, QueryPlanInput> = {
  'thefts in 2019': { measure: { kind: 'count' }, filters: { types: ['THEFT'], time: year(Y) } },
  'thefts in 2019 by month': { measure: { kind: 'count' }, filters: { types: ['THEFT'], time: year(Y) }, groupBy: ['month'] },
  'thefts by year': { measure: { kind: 'count' }, filters: { types: ['THEFT'] }, groupBy: ['year'] },
  'top 5 crime types in 2019': { measure: { kind: 'count' }, filters: { time: year(Y) }, groupBy: ['type'], top: { n: 5, order: 'desc' } },
  'batteries in 2019 by district': { measure: { kind: 'count' }, filters: { types: ['BATTERY'], time: year(Y) }, groupBy: ['district'] },
  'share of thefts with an arrest in 2019': {
    measure: { kind: 'share', part: { arrest: true } },
    filters: { types: ['THEFT'], time: year(Y) },
  },
  'average crimes per day in 2019': { measure: { kind: 'average_per', per: 'day' }, filters: { time: year(Y) } },
};

type Edit = (p: QueryPlan) => QueryPlanInput;
const withFilters = (p: QueryPlan, f: Partial<QueryPlan['filters']>): QueryPlanInput => ({ ...p, filters: { ...p.filters, ...f } });

/** Another period; a comparison keeps its distance ("and April?" after 2019 against 2018: April 2019 against April 2018). */
function period(p: QueryPlan, time: TimeRange): QueryPlanInput {
  if (!p.compareWith || !p.filters.time) return withFilters(p, { time });
  const back = Number(p.filters.time.from.slice(0, 4)) - Number(p.compareWith.from.slice(0, 4));
  const shift = (t: TimeRange, years: number): TimeRange => ({
    from: `${Number(t.from.slice(0, 4)) - years}${t.from.slice(4)}`,
    to: `${Number(t.to.slice(0, 4)) - years}${t.to.slice(4)}`,
  });
  return { ...withFilters(p, { time }), compareWith: shift(time, back) };
}

/** Every kind of edit a follow-up or a button makes, as a plan. */
const EDITS: Record<string, Edit> = {
  'and 2018?': (p) => period(p, year(Y - 1)),
  'and April?': (p) => period(p, april(p.filters.time ? Number(p.filters.time.from.slice(0, 4)) : Y)),
  'only April, every year': (p) => withFilters(p, { months: [4] }),
  'only arrests': (p) => withFilters(p, { arrest: true }),
  'in district 11': (p) => withFilters(p, { districts: [11] }),
  'batteries instead': (p) => withFilters(p, { types: ['BATTERY'] }),
  'all crimes': (p) => withFilters(p, { types: undefined }),
  'by month of the year': (p) => ({ ...p, groupBy: ['month_of_year'], top: undefined }),
  'by crime type (widens the type)': (p) => ({ ...withFilters(p, { types: undefined }), groupBy: ['type'] }),
  'and by year too': (p) => ({
    ...p,
    groupBy: p.groupBy.length ? [p.groupBy[0], p.groupBy[0] === 'year' ? 'month_of_year' : 'year'] : ['year'],
  }),
  'top 5': (p) => ({ ...p, groupBy: p.groupBy.length ? p.groupBy : ['type'], top: { n: 5, order: 'desc' } }),
  'and the fewest?': (p) => ({ ...p, groupBy: p.groupBy.length ? p.groupBy : ['type'], top: { n: p.top?.n ?? 3, order: 'asc' } }),
  'compare with the year before': (p) => {
    const time = p.filters.time ?? year(Y);
    return { ...withFilters(p, { time }), compareWith: yearBefore(time) };
  },
  'share with an arrest': (p) => ({ ...p, measure: { kind: 'share', part: { arrest: true } } }),
  'how many blocks': (p) => ({ ...p, measure: { kind: 'distinct', of: 'block' } }),
  'the count': (p) => ({ ...p, measure: { kind: 'count' } }),
  'average per day': (p) => ({ ...p, measure: { kind: 'average_per', per: 'day' } }),
};

/** What a compiler may refuse, and why a person would not mean it as asked. */
const REFUSALS = [
  // an average per day by crime type or district (each group's days) is not in the plan language yet: refused, and said
  /can be grouped only by a longer time/,
  // nor is an average per day compared group by group
  /an average or percentile per group cannot be grouped again/,
];

// ---------------------------------------------------------------- the independent count

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
/** as PostgreSQL's round(numeric): halves away from zero */
const round = (x: number, digits: number) => (Math.sign(x) * Math.round(Math.abs(x) * 10 ** digits)) / 10 ** digits;

function matches(c: Crime, f: QueryPlan['filters']): boolean {
  if (f.types && !f.types.includes(c.type)) return false;
  if (f.time && (c.day < f.time.from || c.day >= f.time.to)) return false;
  if (f.months && !f.months.includes(c.month)) return false;
  if (f.weekdays && !f.weekdays.includes(c.dow)) return false;
  if (f.arrest !== undefined && c.arrest !== f.arrest) return false;
  if (f.districts && (c.district === null || !f.districts.includes(c.district))) return false;
  return true;
}

/** The value of a measure over some crimes; days: the days an average per day is taken over. */
function value(m: QueryPlan['measure'], rows: Crime[], days: string[]): number | null {
  switch (m.kind) {
    case 'count':
      return rows.length;
    case 'share':
      return rows.length ? round((100 * rows.filter((c) => c.arrest).length) / rows.length, 2) : null;
    case 'distinct':
      return new Set(rows.map((c) => c.block)).size;
    case 'average_per': {
      const byDay = new Map<string, number>();
      for (const c of rows) byDay.set(c.day, (byDay.get(c.day) ?? 0) + 1);
      return round(days.reduce((s, d) => s + (byDay.get(d) ?? 0), 0) / days.length, 2);
    }
    default:
      throw new Error(`no independent count for ${m.kind}`);
  }
}

function daysOf(f: QueryPlan['filters']): string[] {
  const out: string[] = [];
  const [from, to] = f.time ? [f.time.from, f.time.to] : [dataFrom, addDays(dataTo, 1)];
  for (let d = from; d < to; d = addDays(d, 1)) {
    const month = Number(d.slice(5, 7));
    if (f.months && !f.months.includes(month)) continue;
    out.push(d);
  }
  return out;
}

interface Member {
  /** the key of a crime on this axis */
  key: string;
  label: string;
}

/** The members of an axis for these filters (calendar ones complete, others as found), in the axis' order. */
function members(d: Dimension, f: QueryPlan['filters'], found: Crime[], fewest: boolean): Member[] {
  const [from, to] = f.time ? [f.time.from, f.time.to] : [dataFrom, addDays(dataTo, 1)];
  const last = addDays(to, -1);
  switch (d) {
    case 'year': {
      const out: Member[] = [];
      for (let y = Number(from.slice(0, 4)); y <= Number(last.slice(0, 4)); y++) out.push({ key: String(y), label: String(y) });
      return out;
    }
    case 'month': {
      const oneYear = f.time && from.slice(0, 4) === last.slice(0, 4);
      const out: Member[] = [];
      for (let y = Number(from.slice(0, 4)), m = Number(from.slice(5, 7)); `${y}-${String(m).padStart(2, '0')}` <= last.slice(0, 7);) {
        if (!f.months || f.months.includes(m)) out.push({ key: `${y}-${m}`, label: oneYear ? MONTHS[m - 1] : `${MONTHS[m - 1]} ${y}` });
        m++;
        if (m === 13) [y, m] = [y + 1, 1];
      }
      return out;
    }
    case 'month_of_year':
      return (f.months ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).map((m) => ({ key: String(m), label: MONTHS[m - 1] }));
    case 'weekday':
      return (f.weekdays ?? [1, 2, 3, 4, 5, 6, 7]).map((w) => ({ key: String(w), label: WEEKDAYS[w - 1] }));
    case 'type':
      return [...new Set(found.map((c) => c.type))].sort().map((t) => ({ key: t, label: t }));
    case 'district': {
      const keys = new Set(found.filter((c) => c.district !== null).map((c) => c.district!));
      if (fewest && !f.districts) for (const k of placeAxis('district')) keys.add(k);
      return [...keys].sort((a, b) => a - b).map((k) => ({ key: String(k), label: String(k) }));
    }
    default:
      throw new Error(`no independent axis for ${d}`);
  }
}

function keyOf(c: Crime, d: Dimension): string {
  switch (d) {
    case 'year':
      return String(c.year);
    case 'month':
      return `${c.year}-${c.month}`;
    case 'month_of_year':
      return String(c.month);
    case 'weekday':
      return String(c.dow);
    case 'type':
      return c.type;
    case 'district':
      return String(c.district);
    default:
      throw new Error(`no independent key for ${d}`);
  }
}

/** The key of a day on a time axis, as keyOf gives it for a crime on that day. */
function dayKey(d: Dimension, day: string): string {
  const [y, m] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))];
  if (d === 'year') return String(y);
  if (d === 'month') return `${y}-${m}`;
  if (d === 'month_of_year') return String(m);
  if (d === 'weekday') return String(((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1);
  throw new Error(`no day key on ${d}`);
}

interface Group {
  labels: string[];
  value: number | null;
}

/** Every group of a grouped plan with its value, in the axes' order (before any ranking or cut). */
function groups(plan: QueryPlan, f: QueryPlan['filters'], fewest: boolean): Group[] {
  const rows = crimes.filter((c) => matches(c, f));
  const axes = plan.groupBy.map((d) => members(d, f, rows, fewest));
  const combos: Member[][] = axes.reduce<Member[][]>((acc, ms) => acc.flatMap((a) => ms.map((m) => [...a, m])), [[]]);
  const byKey = new Map<string, Crime[]>();
  for (const c of rows) {
    const k = plan.groupBy.map((d) => keyOf(c, d)).join('|');
    byKey.set(k, [...(byKey.get(k) ?? []), c]);
  }
  // an average per day: each group over its own days of the period
  const days = plan.measure.kind === 'average_per' ? daysOf(f) : [];
  return combos.map((ms) => ({
    labels: ms.map((m) => m.label),
    value: value(
      plan.measure,
      byKey.get(ms.map((m) => m.key).join('|')) ?? [],
      days.filter((day) => plan.groupBy.every((d, i) => dayKey(d, day) === ms[i].key)),
    ),
  }));
}

const byValue = (order: 'asc' | 'desc') => (x: Group, y: Group) => {
  if (x.value === null || y.value === null) return x.value === null ? (y.value === null ? 0 : 1) : -1;
  return order === 'desc' ? y.value - x.value : x.value - y.value;
};

/** The rows a person should see, as [labels..., values...], and whether their order is fixed (ties aside). */
function expected(plan: QueryPlan): { rows: Cell[][]; ranked: boolean } {
  const f = plan.filters;
  if (plan.compareWith) return expectedComparison(plan);
  if (!plan.groupBy.length) {
    const rows = crimes.filter((c) => matches(c, f));
    const v = value(plan.measure, rows, daysOf(f));
    if (plan.measure.kind === 'share') return { rows: [[v, rows.filter((c) => c.arrest).length, rows.length]], ranked: false };
    return { rows: [[v]], ranked: false };
  }
  const all = groups(plan, f, plan.top?.order === 'asc');
  const withParts = (g: Group): Cell[] => {
    if (plan.measure.kind !== 'share') return [...g.labels, g.value];
    const rows = crimes.filter((c) => matches(c, f) && plan.groupBy.every((d, i) => labelOfKey(d, c, f) === g.labels[i]));
    return [...g.labels, g.value, rows.filter((c) => c.arrest).length, rows.length];
  };
  if (plan.top) {
    const sorted = [...all].sort(byValue(plan.top.order));
    const kept =
      plan.top.n === 1 ? sorted.filter((g) => g.value === sorted[0].value) : sorted.slice(0, Math.min(plan.top.n, sorted.length));
    return { rows: kept.map(withParts), ranked: true };
  }
  const time = plan.groupBy[0] === 'year' || plan.groupBy[0] === 'month' || plan.groupBy[0] === 'month_of_year';
  const alongAxis = plan.order ? plan.order === 'axis' : time || plan.measure.kind === 'share';
  return { rows: (alongAxis ? all : [...all].sort(byValue('desc'))).map(withParts), ranked: !alongAxis };
}

function labelOfKey(d: Dimension, c: Crime, f: QueryPlan['filters']): string {
  const oneYear = f.time && f.time.from.slice(0, 4) === addDays(f.time.to, -1).slice(0, 4);
  if (d === 'month') return oneYear ? MONTHS[c.month - 1] : `${MONTHS[c.month - 1]} ${c.year}`;
  if (d === 'month_of_year') return MONTHS[c.month - 1];
  if (d === 'weekday') return WEEKDAYS[c.dow - 1];
  return keyOf(c, d);
}

/** A comparison: this period and the other side by side, a time axis lined up by position, labelled by this period. */
function expectedComparison(plan: QueryPlan): { rows: Cell[][]; ranked: boolean } {
  const a = plan.filters.time!;
  const b = plan.compareWith!;
  const m = plan.measure;
  const change = (va: number | null, vb: number | null): number | null =>
    va === null || vb === null ? null : m.kind === 'share' ? round(va - vb, 2) : vb === 0 ? null : round((100 * (va - vb)) / vb, 1);
  if (!plan.groupBy.length) {
    const va = value(
      m,
      crimes.filter((c) => matches(c, plan.filters)),
      daysOf(plan.filters),
    );
    const vb = value(
      m,
      crimes.filter((c) => matches(c, { ...plan.filters, time: b })),
      daysOf({ ...plan.filters, time: b }),
    );
    return { rows: [[periodLabel(a), va, periodLabel(b), vb, change(va, vb)]], ranked: false };
  }
  // each period's groups; a time axis by position (the i-th year or month of each period)
  const position = (d: Dimension, c: Crime, t: TimeRange): string => {
    if (d === 'year') return String(c.year - Number(t.from.slice(0, 4)));
    if (d === 'month') return String(c.year * 12 + c.month - (Number(t.from.slice(0, 4)) * 12 + Number(t.from.slice(5, 7))));
    return keyOf(c, d);
  };
  const side = (t: TimeRange) => {
    const map = new Map<string, Crime[]>();
    for (const c of crimes.filter((x) => matches(x, { ...plan.filters, time: t }))) {
      if (plan.groupBy.some((d) => d === 'district' && c.district === null)) continue;
      const k = plan.groupBy.map((d) => position(d, c, t)).join('|');
      map.set(k, [...(map.get(k) ?? []), c]);
    }
    return map;
  };
  const [sa, sb] = [side(a), side(b)];
  const axisMembers = plan.groupBy.map((d, i) => {
    if (d === 'year' || d === 'month') {
      // the members of this period, keyed by their position in it
      const start = Number(a.from.slice(0, 4)) * (d === 'year' ? 1 : 12) + (d === 'year' ? 0 : Number(a.from.slice(5, 7)));
      return members(d, plan.filters, [], false).map((mm) => {
        const [y, mo] = mm.key.split('-').map(Number);
        return { key: String((d === 'year' ? y : y * 12 + mo) - start), label: mm.label };
      });
    }
    if (d === 'month_of_year' || d === 'weekday') return members(d, plan.filters, [], false);
    const found = new Set([...sa.keys(), ...sb.keys()].map((k) => k.split('|')[i]));
    return [...found].sort((x, y) => (d === 'district' ? Number(x) - Number(y) : x < y ? -1 : 1)).map((k) => ({ key: k, label: k }));
  });
  const combos: Member[][] = axisMembers.reduce<Member[][]>((acc, ms) => acc.flatMap((x) => ms.map((mm) => [...x, mm])), [[]]);
  const all = combos.map((ms) => {
    const k = ms.map((mm) => mm.key).join('|');
    const [va, vb] = [value(m, sa.get(k) ?? [], []), value(m, sb.get(k) ?? [], [])];
    return { labels: ms.map((mm) => mm.label), va, vb, change: change(va, vb) };
  });
  const row = (g: (typeof all)[number]): Cell[] => [...g.labels, g.va, g.vb, g.change];
  if (plan.top) {
    // the top N of this period (every group tied at the cut kept), with the same groups in the other
    const sorted = [...all].sort((x, y) => byValue(plan.top!.order)({ labels: [], value: x.va }, { labels: [], value: y.va }));
    const cut = sorted[Math.min(plan.top.n, sorted.length) - 1]?.va;
    const kept = sorted.filter((g, i) => i < plan.top!.n || g.va === cut);
    return { rows: kept.map(row), ranked: true };
  }
  const time = ['year', 'month', 'month_of_year', 'weekday'].includes(plan.groupBy[0]);
  const alongAxis = plan.order ? plan.order === 'axis' : time || m.kind === 'share';
  const ordered = alongAxis ? all : [...all].sort((x, y) => byValue('desc')({ labels: [], value: x.va }, { labels: [], value: y.va }));
  return { rows: ordered.map(row), ranked: !alongAxis };
}

// ---------------------------------------------------------------- running and comparing

async function run(sql: string): Promise<Cell[][]> {
  const { rows } = await data.db.reader!.pool.query({ text: sql, rowMode: 'array' });
  return rows.map((r: unknown[]) =>
    r.map((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v instanceof Date ? v.toISOString().slice(0, 10) : v)),
  ) as Cell[][];
}

const same = (x: Cell, y: Cell) =>
  x === null || y === null
    ? x === y
    : typeof x === 'number' || typeof y === 'number'
      ? Math.abs(Number(x) - Number(y)) < 0.011
      : String(x) === String(y);

/** Axes whose order is the calendar's (names sort by the database's collation, which this test does not repeat). */
const TIME_AXES = new Set<Dimension>(['year', 'month', 'month_of_year', 'weekday']);

/**
 * The rows compiled against the rows expected: the same groups with the same values; a ranking in order of its
 * values (groups tied in value may come in any order, a cut may keep any of a tie), a series in the axis' order.
 */
function differences(plan: QueryPlan, got: Cell[][], want: { rows: Cell[][]; ranked: boolean }): string[] {
  const labels = plan.compareWith ? plan.groupBy.length : plan.groupBy.length;
  const key = (row: Cell[]) => row.slice(0, labels).map(String).join(' | ');
  const problems: string[] = [];
  if (got.length !== want.rows.length) problems.push(`${got.length} rows, expected ${want.rows.length}`);
  const at = labels + (plan.compareWith && !plan.groupBy.length ? 1 : 0);
  if (!labels) {
    for (const [i, cell] of (want.rows[0] ?? []).entries())
      if (!same(got[0]?.[i] ?? null, cell)) problems.push(`cell ${i}: ${got[0]?.[i]}, expected ${cell}`);
    return problems;
  }
  const wanted = new Map(want.rows.map((r) => [key(r), r]));
  for (const row of got) {
    const w = wanted.get(key(row));
    if (!w) {
      // a cut may keep any one of the groups tied at it
      const tiedAtCut = want.ranked && plan.top && want.rows.some((r) => same(r[at], row[at]));
      if (!tiedAtCut || !same(row[at], want.rows.at(-1)![at])) problems.push(`unexpected group ${key(row)}: ${JSON.stringify(row)}`);
      continue;
    }
    for (let i = labels; i < w.length; i++) if (!same(row[i], w[i])) problems.push(`${key(row)} column ${i}: ${row[i]}, expected ${w[i]}`);
  }
  const values = (rows: Cell[][]) => rows.map((r) => r[at]);
  if (want.ranked) {
    if (!values(got).every((v, i) => same(v, values(want.rows)[i]))) problems.push(`ranking ${values(got)}, expected ${values(want.rows)}`);
  } else if (TIME_AXES.has(plan.groupBy[0]) && got.map(key).join(',') !== want.rows.map(key).join(','))
    problems.push(`order ${got.map(key)}, expected ${want.rows.map(key)}`);
  return problems;
}

// ---------------------------------------------------------------- what the words must say

const fmt = (n: number) => n.toLocaleString('en-US');

/** The parts of the plan the headline must name, each as the words a person reads. */
function mustName(plan: QueryPlan): string[] {
  const f = plan.filters;
  const out: string[] = [];
  if (f.types) out.push(...f.types.map(typePlural));
  if (f.time) out.push(periodLabel(f.time));
  if (f.months) out.push(...f.months.map((m) => MONTHS[m - 1]));
  if (f.arrest) out.push('with an arrest');
  if (f.districts) out.push(`district ${f.districts.join(', ')}`);
  if (plan.top)
    out.push(
      plan.top.n === 1
        ? plan.top.order === 'desc'
          ? 'the most'
          : 'the fewest'
        : `${plan.top.order === 'desc' ? 'top' : 'bottom'} ${plan.top.n}`,
    );
  const dims: Record<string, string> = {
    year: 'year',
    month: 'month',
    month_of_year: 'month of the year',
    type: 'crime type',
    district: 'district',
    weekday: 'day of the week',
  };
  for (const d of plan.groupBy) out.push(plan.top && d === 'month_of_year' ? 'month' : dims[d]);
  if (plan.compareWith) out.push(`compared with ${periodLabel(plan.compareWith)}`);
  if (plan.measure.kind === 'share') out.push('share');
  if (plan.measure.kind === 'average_per') out.push('per day');
  if (plan.measure.kind === 'distinct') out.push('blocks');
  return out;
}

function wordProblems(plan: QueryPlan, told: { headline: string; narration: string }, got: Cell[][], all: Group[] | undefined): string[] {
  const problems: string[] = [];
  const head = told.headline.toLowerCase();
  for (const part of mustName(plan))
    if (!head.includes(part.toLowerCase())) problems.push(`the headline does not say "${part}": ${told.headline}`);
  const text = told.narration;
  const labels = plan.groupBy.length;
  // a top/bottom N names every group it kept (up to ten) with its value
  if (plan.top && plan.top.n > 1 && !plan.compareWith)
    for (const row of got.slice(0, 10)) {
      const name = plan.groupBy[0] === 'district' ? `district ${row[0]}` : String(row[0]);
      if (!text.includes(name)) problems.push(`the ranking does not name ${name}: ${text}`);
    }
  // a total is over every group, never over the rows kept
  const inAll = /([\d,]+) in all/.exec(text);
  if (inAll && all && plan.measure.kind === 'count' && !plan.compareWith) {
    const total = all.reduce((s, g) => s + (g.value ?? 0), 0);
    if (inAll[1] !== fmt(total)) problems.push(`"${inAll[0]}" but every group adds up to ${fmt(total)}: ${text}`);
  }
  if (plan.compareWith) {
    for (const p of [plan.filters.time!, plan.compareWith])
      if (!text.includes(periodLabel(p))) problems.push(`the narration does not name ${periodLabel(p)}: ${text}`);
    if (labels && plan.top && !/ranked by/.test(text)) problems.push(`the rule of a compared top N is not said: ${text}`);
    if (labels && plan.measure.kind === 'count' && !plan.top) {
      const [ta, tb] = [0, 1].map((k) => got.reduce((s, r) => s + Number(r[labels + k]), 0));
      if (!text.includes(`${fmt(ta)} in all`) || !text.includes(fmt(tb))) problems.push(`the totals ${ta} and ${tb} are not said: ${text}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- the test

/** Every base edited once, and each of those again compared with the year before (the edit after a comparison too). */
function editedPlans(): { name: string; plan: QueryPlanInput }[] {
  const out: { name: string; plan: QueryPlanInput }[] = [];
  for (const [b, base] of Object.entries(BASES)) {
    const p = parsePlan(base);
    out.push({ name: b, plan: base });
    for (const [e, edit] of Object.entries(EDITS)) {
      const once = parsePlan(edit(p));
      out.push({ name: `${b} -> ${e}`, plan: once });
      if (e !== 'compare with the year before') {
        out.push({ name: `${b} -> ${e} -> compare with the year before`, plan: EDITS['compare with the year before'](once) });
        const compared = parsePlan(EDITS['compare with the year before'](p));
        out.push({ name: `${b} -> compare with the year before -> ${e}`, plan: edit(compared) });
      }
    }
  }
  return out;
}

describe('every edited shape compiles to the right rows and is told right', () => {
  it('each base answer under every edit kind, and under a comparison', async () => {
    const ctx = { areaNames: new Map<number, string>(), choices: {}, dataFrom, dataTo };
    const wrong: string[] = [];
    const refused: string[] = [];
    let checked = 0;
    for (const { name, plan: input } of editedPlans()) {
      const plan = parsePlan(input);
      let sql: string;
      try {
        sql = compilePlan(plan).sql;
      } catch (error) {
        if (!(error instanceof PlanCompileError)) throw error;
        if (!REFUSALS.some((r) => r.test(error.message))) wrong.push(`${name}: refused: ${error.message}`);
        refused.push(name);
        continue;
      }
      const got = await run(sql);
      const want = expected(plan);
      for (const p of differences(plan, got, want)) wrong.push(`${name}: ${p}\n${sql}`);
      const grouped = plan.groupBy.length > 0 && !plan.compareWith;
      const cut = plan.top ? got.at(-1)?.[plan.groupBy.length] : null;
      const facts =
        grouped && plan.top
          ? await groupFacts(data.db.pool, plan, {}, cut === null || cut === undefined ? null : Number(cut), 10_000)
          : undefined;
      const told = narratePlan(plan, { columns: [], rows: got, rowCount: got.length }, ctx, facts);
      const all = grouped ? groups(plan, plan.filters, plan.top?.order === 'asc') : undefined;
      for (const p of wordProblems(plan, told, got, all)) wrong.push(`${name}: ${p}`);
      checked++;
    }
    expect(wrong).toEqual([]);
    // the refusals are the grouped averages only
    expect(
      refused.every((n) => /average per day|average crimes per day/.test(n)),
      refused.join('\n'),
    ).toBe(true);
    // an average per day by month, by month of the year or by year is answered: each group over its own days
    for (const answered of [
      'thefts in 2019 by month -> average per day',
      'average crimes per day in 2019 -> by month of the year',
      'average crimes per day in 2019 -> and by year too',
    ])
      expect(refused).not.toContain(answered);
    expect(checked).toBeGreaterThan(250);
  }, 300_000);
});
