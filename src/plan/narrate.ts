// Words from the plan and the rows, no model: the headline restates what was
// counted ("Thefts in 2019, all of Chicago: 2,239"), the "understood as" line
// lists the plan's parts, and the narration names the highest and lowest with
// ties said as ties. Percentage change only along time, never across hours of
// the day or between categories. An empty result says the data's range.
import type { Cell } from '../core/answer.js';
import { fmtInt, fmtNumber } from '../core/format.js';
import { glossary, option } from '../knowledge/glossary.js';
import { isOrderedAxis, isSeriesAgainstYear, listOrder, periodLabel } from './compile.js';
import type { Dimension, QueryPlan } from './query-plan.js';
import { placeAxis, semanticModel, typePlural } from './semantic-model.js';
import { DIMENSION_WORDS, monthName, PER_WORDS, topWords, weekdaysName } from './words.js';
import { titleCase } from './read/lexicon.js';
import { TIE_NAMES, type GroupFacts } from './facts.js';
import { shownValue } from '../core/inert-text.js';
import { narrateVersus, versusPhrase } from './narrate-compare.js';
import { versusSides } from './versus.js';

export interface NarrationContext {
  /** community area number -> name */
  areaNames: ReadonlyMap<number, string>;
  /** the data's first and last day, YYYY-MM-DD */
  dataFrom?: string;
  dataTo?: string;
  choices: Record<string, string>;
}

const joinWords = (items: string[], word = 'and') =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;

function choiceLabel(term: string, ctx: NarrationContext): string {
  const chosen = option(term, ctx.choices[term] ?? '');
  const label = glossary().find((t) => t.id === term)?.label ?? term;
  return chosen ? `${label} (${chosen.label})` : label;
}

/** "on the street", "in a residence": how a person says where, for "not on the street". */
function placeWords(location: string): string {
  const words = semanticModel().locations[location]?.words ?? [location.toLowerCase()];
  return words.find((x) => /^(on|in|at) /.test(x)) ?? `at ${words[0]}`;
}

/** "thefts", "thefts and robberies", "violent crimes (FBI violent index)", "crimes". */
function subject(plan: QueryPlan, ctx: NarrationContext): string {
  const f = plan.filters;
  const model = semanticModel();
  const kind =
    f.category === 'property'
      ? model.categories.property.label
      : f.category === 'violent'
        ? `violent crimes (${option('violent_crime', ctx.choices.violent_crime ?? '')?.label ?? 'as defined'})`
        : model.all_crimes.many;
  // "crimes other than thefts": the types left out
  let what = f.types && !f.exceptTypes ? joinWords(f.types.map(typePlural)) : kind;
  if (f.types && f.exceptTypes) what += ` other than ${joinWords(f.types.map(typePlural), 'or')}`;
  if (f.descriptions)
    what += ` described as ${joinWords(
      f.descriptions.map((d) => `"${shownValue(d).toLowerCase()}"`),
      'or',
    )}`;
  if (f.locations)
    what += f.exceptLocations
      ? ` not ${joinWords(f.locations.map(placeWords), 'or')}`
      : ` at ${joinWords(
          f.locations.map((l) => model.locations[l]?.label ?? l.toLowerCase()),
          'or',
        )}`;
  if (f.arrest !== undefined) what += f.arrest ? ' with an arrest' : ' without an arrest';
  if (f.domestic !== undefined) what += f.domestic ? ' (domestic)' : ' (not domestic)';
  return what;
}

/** "in 2019", "on 2019-07-04", "on weekends at night (22:00-06:00)". */
function when(plan: QueryPlan, ctx: NarrationContext): string {
  const f = plan.filters;
  const parts: string[] = [];
  if (f.time) {
    const label = periodLabel(f.time);
    const phrase = /^\d{4}-\d{2}-\d{2}$/.test(label) ? `on ${label}` : label.includes(' to ') ? `from ${label}` : `in ${label}`;
    parts.push(f.time.said && !f.time.said.includes(label) ? `${phrase} (${f.time.said})` : phrase);
  }
  // with no period, the months of every year: "in April of each year", so "by year" reads as what it is
  if (f.months)
    parts.push(
      `in ${joinWords(
        f.months.map((m) => titleCase(monthName(m))),
        'or',
      )}${f.time ? '' : ' of each year'}`,
    );
  if (f.weekdays)
    parts.push(
      `on ${joinWords(
        f.weekdays.map((d) => titleCase(weekdaysName(d))),
        'or',
      )}`,
    );
  if (f.weekend) parts.push(`on ${choiceLabel('weekend', ctx).replace(/^weekend/, 'weekends')}`);
  if (f.hours) parts.push(`between ${hh(f.hours.from)} and ${hh(f.hours.to)}`);
  if (f.night) parts.push(`at ${choiceLabel('night', ctx)}`);
  return parts.join(' ');
}

/** "all of Chicago", "in Austin", "in district 11", "in wards 3 and 4". */
function where(plan: QueryPlan, ctx: NarrationContext): string {
  const f = plan.filters;
  const parts: string[] = [];
  if (f.areas)
    parts.push(
      `in ${joinWords(
        f.areas.map((a) => ctx.areaNames.get(a) ?? `community area ${a}`),
        'or',
      )}`,
    );
  if (f.districts) parts.push(`in district${f.districts.length > 1 ? 's' : ''} ${joinWords(f.districts.map(String), 'or')}`);
  if (f.wards) parts.push(`in ward${f.wards.length > 1 ? 's' : ''} ${joinWords(f.wards.map(String), 'or')}`);
  if (f.beats) parts.push(`on beat${f.beats.length > 1 ? 's' : ''} ${joinWords(f.beats.map(String), 'or')}`);
  if (f.blocks) parts.push(`on ${joinWords(f.blocks, 'or')}`);
  return parts.length ? parts.join(', ') : 'all of Chicago';
}

function measurePhrase(plan: QueryPlan, ctx: NarrationContext): string {
  const m = plan.measure;
  const s = subject(plan, ctx);
  switch (m.kind) {
    case 'count':
      return s;
    case 'distinct':
      return `${DIMENSION_WORDS[m.of].many} with ${s}`;
    case 'share': {
      const part = subject({ ...plan, filters: m.part } as QueryPlan, ctx).replace(/^crimes ?/, '');
      // "share of crimes that were thefts", not "share of crimes thefts"
      if (m.part.types || m.part.category) return `share of ${s} that were ${part}`;
      return `share of ${s} ${part ? part.replace(/^with /, 'with ') : ''}`.trim();
    }
    case 'average_per':
      return `average ${s} per ${PER_WORDS[m.per]}${m.per === 'block' ? ` (${choiceLabel('per_block_average', ctx)})` : ''}`;
    case 'percentile_per':
      return `${m.p === 0.5 ? 'median' : `${Math.round(m.p * 100)}th percentile of`} ${s} per ${PER_WORDS[m.per]}`;
    case 'average_gap':
      return `average ${m.unit}s between consecutive ${s} on the same block`;
  }
}

/** The plan in short parts, for the "Understood as" line: ["thefts", "in 2019", "all of Chicago", "count"]. */
export function understoodAs(plan: QueryPlan, ctx: NarrationContext): string[] {
  const parts = [measurePhrase(plan, ctx)];
  const w = when(plan, ctx);
  if (w) parts.push(w);
  parts.push(where(plan, ctx));
  if (plan.groupBy.length) parts.push(`by ${plan.groupBy.map((d) => DIMENSION_WORDS[d].narrated).join(' and ')}`);
  if (plan.top) parts.push(topWords(plan.top));
  if (plan.ofTotal) parts.push('each as a percent of all');
  if (plan.none) parts.push('only those with none');
  if (plan.compareWith) parts.push(`compared with ${periodLabel(plan.compareWith)}`);
  if (plan.versus) parts.push(versusPhrase(plan, ctx.areaNames));
  return parts;
}

/** The groups of a grouping in words: "crime types", "combinations of crime type and district". */
function groupsNoun(plan: QueryPlan): { one: string; many: string } {
  if (plan.groupBy.length === 1) return { one: DIMENSION_WORDS[plan.groupBy[0]].one, many: DIMENSION_WORDS[plan.groupBy[0]].many };
  const both = plan.groupBy.map((d) => DIMENSION_WORDS[d].one).join(' and ');
  return { one: `combination of ${both}`, many: `combinations of ${both}` };
}

/** A plan's cut in a headline: "top 5 crime types", "bottom 3 districts", "the ward with the most". */
function topPhrase(plan: QueryPlan): string {
  const top = plan.top!;
  const noun = groupsNoun(plan);
  const share = plan.measure.kind === 'share';
  if (top.n === 1)
    return `the ${noun.one} with the ${top.order === 'desc' ? (share ? 'highest share' : 'most') : share ? 'lowest share' : 'fewest'}`;
  return `${top.order === 'desc' ? 'top' : 'bottom'} ${top.n} ${noun.many}`;
}

/**
 * "Thefts in 2019, all of Chicago"; a ranking says its cut ("Crimes in 2019, all of Chicago: top 5 crime types"),
 * so an answer after any edit restates the whole plan: what, when, where, grouping and N.
 */
function title(plan: QueryPlan, ctx: NarrationContext): string {
  const w = when(plan, ctx);
  const ofTotal = plan.ofTotal ? `, each as a percent of all ${measurePhrase(plan, ctx)} there` : '';
  if (plan.top && plan.groupBy.length)
    return `${capital(measurePhrase(plan, ctx))}${w ? ` ${w}` : ''}, ${where(plan, ctx)}: ${topPhrase(plan)}${ofTotal}`;
  const by = plan.groupBy.length ? ` by ${plan.groupBy.map((d) => DIMENSION_WORDS[d].narrated).join(' and ')}` : '';
  return `${capital(measurePhrase(plan, ctx))}${by}${w ? ` ${w}` : ''}, ${where(plan, ctx)}${ofTotal}${orderPhrase(plan)}`;
}

/** An order asked against the usual one: ", fewest first", ", in order of district" (most first is said by "Most:"). */
function orderPhrase(plan: QueryPlan): string {
  if (!plan.groupBy.length || plan.top || !plan.order) return '';
  if (plan.order === 'measure_asc') return plan.measure.kind === 'count' ? ', fewest first' : ', lowest first';
  if (plan.order === 'axis' && listOrder({ ...plan, order: undefined }, isOrderedAxis(plan.groupBy[0])) !== 'axis')
    return `, in order of ${DIMENSION_WORDS[plan.groupBy[0]].narrated}`;
  return '';
}

const num = (v: Cell): number => (typeof v === 'number' ? v : Number(v));
const show = (v: Cell, pct = false) =>
  v === null ? 'no value' : pct ? `${fmtNumber(num(v), 2)}%` : Number.isInteger(num(v)) ? fmtInt(num(v)) : fmtNumber(num(v));

export interface PlanRows {
  columns: string[];
  rows: Cell[][];
  rowCount: number;
}

/**
 * Headline and narration for a result of this plan. `facts`: the claims over every group, computed by the
 * database (facts.ts); without them (a caller with no database) they are computed from the rows given,
 * which must then be all of them.
 */
export function narratePlan(
  plan: QueryPlan,
  result: PlanRows,
  ctx: NarrationContext,
  facts?: GroupFacts,
): { headline: string; narration: string } {
  if (plan.versus) return narrateVersus(plan, result, ctx.areaNames, title(versusSides(plan)[0], ctx), (v) => labelOf(plan.groupBy[0], v));
  const head = title(plan, ctx);
  const m = plan.measure;
  const pct = m.kind === 'share';
  const range = ctx.dataFrom && ctx.dataTo ? `; the data runs from ${ctx.dataFrom} to ${ctx.dataTo}` : '';
  if (plan.compareWith && plan.groupBy.length)
    return { headline: `${head}, compared with ${periodLabel(plan.compareWith)}`, narration: describeComparison(plan, result, ctx) };
  if (plan.compareWith) {
    const [, a, , b, change] = result.rows[0];
    const other = periodLabel(plan.compareWith);
    // a share moves in percentage points; a count or an average in percent of the other period's
    const dir =
      change === null
        ? ''
        : num(change) === 0
          ? 'the same as'
          : pct
            ? `${fmtNumber(Math.abs(num(change)), 2)} points ${num(change) > 0 ? 'higher' : 'lower'} than`
            : `${fmtNumber(Math.abs(num(change)), 1)}% ${num(change) > 0 ? 'more' : 'fewer'} than`;
    // the narration goes on from the headline in a sentence of its own (renderers show the headline above it)
    const text = `${head}: ${show(a, pct)}. ${dir ? `That is ${dir} in ${other} (${show(b, pct)})` : `${other} had ${show(b, pct)}`}.${unequalPeriods(plan)}`;
    return { headline: `${head}: ${show(a, pct)}, compared with ${other}: ${show(b, pct)}`, narration: text };
  }
  if (!plan.groupBy.length) {
    const value = result.rows[0]?.[0] ?? null;
    if ((value === null || num(value) === 0) && m.kind !== 'share') {
      return {
        headline: `${head}: 0`,
        narration: `No ${subject(plan, ctx)} are recorded ${when(plan, ctx) || 'at all'}, ${where(plan, ctx)}${range}.`,
      };
    }
    const detail = pct && result.rows[0] ? ` (${show(result.rows[0][1])} of ${show(result.rows[0][2])})` : '';
    // the whole answer is its headline: renderers show it once
    return { headline: `${head}: ${show(value, pct)}${detail}`, narration: `${head}: ${show(value, pct)}${detail}` };
  }
  return { headline: head, narration: describeGroups(plan, result, ctx, range, facts ?? factsOfRows(plan, result)) };
}

const TIME_AXES = new Set<Dimension>(['year', 'month', 'date']);

/** A group's label as a person says it: "district 20", "18:00", "Austin". */
function labelOf(d: Dimension, v: Cell): string {
  if (d === 'hour') return `${String(v).padStart(2, '0')}:00`;
  if (d === 'district' || d === 'ward' || d === 'beat') return `${d} ${v}`;
  // a block, a location, a type: the data's own words, anyone's to write when a CSV is loaded
  return shownValue(String(v));
}

/** "community area" -> "community areas", "day of the week" -> "days of the week". */
function plural(noun: string): string {
  const words = noun.split(' ');
  const at = words.includes('of') ? 0 : words.length - 1;
  const w = words[at];
  words[at] = /[^aeiou]y$/.test(w) ? `${w.slice(0, -1)}ies` : `${w}s`;
  return words.join(' ');
}

/** The same facts as facts.ts, over the rows given (all of them): for callers with no database. */
function factsOfRows(plan: QueryPlan, r: PlanRows): GroupFacts {
  const at = plan.groupBy.length;
  const valued = r.rows.filter((row) => row[at] !== null);
  const values = valued.map((row) => num(row[at]));
  const extreme = (value: number | undefined) => {
    if (value === undefined) return undefined;
    const tied = valued.filter((row) => num(row[at]) === value);
    return { value, labels: tied.slice(0, TIE_NAMES + 1).map((row) => row.slice(0, at)), count: tied.length };
  };
  return {
    groups: r.rows.length,
    valued: valued.length,
    total: values.reduce((a, b) => a + b, 0),
    highest: extreme(values.length ? Math.max(...values) : undefined),
    lowest: extreme(values.length ? Math.min(...values) : undefined),
    zeros: values.filter((v) => v === 0).length,
  };
}

/**
 * The districts or wards of the city's list with no row in a by-district (by-ward) result that lists the
 * places found: their count is 0. None when another place narrows the question, or the rows are cut.
 */
function missingPlaces(plan: QueryPlan, r: PlanRows): number[] {
  const d = plan.groupBy[0];
  const f = plan.filters;
  if (plan.groupBy.length !== 1 || (d !== 'district' && d !== 'ward') || r.rows.length !== r.rowCount) return [];
  if (f.areas || f.districts || f.wards || f.beats || f.blocks) return [];
  const listed = placeAxis(d);
  const found = new Set(r.rows.map((row) => Number(row[0])));
  return listed.filter((v) => !found.has(v));
}

/** The place axes compiled complete (every member, zeros included) when no other place narrows the question. */
const PLACE_AXES = new Set<Dimension>(['community_area', 'district', 'ward']);

function describeGroups(plan: QueryPlan, r: PlanRows, ctx: NarrationContext, range: string, facts: GroupFacts): string {
  const labels = plan.groupBy.length;
  const pct = plan.measure.kind === 'share' || plan.ofTotal === true;
  const valueAt = labels; // the measure follows the label columns
  const empty = !facts.valued || !facts.highest || !facts.lowest || (!pct && facts.total === 0);
  if (empty && !plan.none) return `No ${subject(plan, ctx)} are recorded ${when(plan, ctx) || 'at all'}, ${where(plan, ctx)}${range}.`;
  const label = (row: Cell[]) =>
    row
      .slice(0, labels)
      .map((v, i) => labelOf(plan.groupBy[i], v))
      .join(', ');
  const say = (word: string, e: NonNullable<GroupFacts['highest']>) => {
    const who = e.labels.map(label);
    return e.count > 1
      ? `${word}: ${show(e.value, pct)}, tied between ${joinWords(who.slice(0, TIE_NAMES))}${e.count > TIE_NAMES ? ` and ${fmtInt(e.count - TIE_NAMES)} more` : ''}`
      : `${word}: ${who[0]} with ${show(e.value, pct)}`;
  };
  const noun = labels === 1 ? DIMENSION_WORDS[plan.groupBy[0]].narrated : 'combination';
  const many = (n: number) => `${fmtInt(n)} ${n === 1 ? noun : plural(noun)}`;
  if (plan.none) {
    // the empty members, out of every member of the axis (facts over the whole axis)
    if (!r.rowCount) return `None: every one of the ${many(facts.groups)} had at least one.`;
    return `${fmtInt(r.rowCount)} of the ${many(facts.groups)} had none.`;
  }
  if (empty || !facts.highest || !facts.lowest)
    return `No ${subject(plan, ctx)} are recorded ${when(plan, ctx) || 'at all'}, ${where(plan, ctx)}${range}.`;
  if (facts.groups === 1 && r.rows.length === 1) {
    // one group is a value, not a ranking: no "highest" of one
    return `${many(1)}: ${label(r.rows[0])} with ${show(r.rows[0][valueAt], pct)}.`;
  }
  // a ranking ("which blocks had the most", "top 5") names its end, not the other one
  const ranking = Boolean(plan.top) || plan.order === 'measure' || plan.order === 'measure_asc';
  const ascending = plan.top ? plan.top.order === 'asc' : plan.order === 'measure_asc';
  // the headline is said above the narration: the narration goes on from it
  // a total only of counts: shares, averages and distinct counts of the groups do not add up to the whole
  const additive = plan.measure.kind === 'count' && !plan.ofTotal;
  const sentences = plan.top ? [] : [`${capital(many(facts.groups))}${additive ? `, ${show(facts.total)} in all` : ''}.`];
  if (plan.top && plan.top.n > 1) {
    // a top/bottom N names every group asked for, with its value, ties as ties
    sentences.push(`${ranked(r.rows, valueAt, listLabel(plan), pct)}.`);
    if (facts.groups > r.rows.length) sentences.push(`Out of ${many(facts.groups)}${additive ? `, ${show(facts.total)} in all` : ''}.`);
  } else if (ascending) sentences.push(`${say('Fewest', facts.lowest)}.`);
  else sentences.push(`${say(ranking ? 'Most' : 'Highest', facts.highest)}.`);
  // a district or ward axis lists the places found: the listed ones with none are the true lowest
  const missing = ranking || pct ? [] : missingPlaces(plan, r);
  if (missing.length) {
    const who = missing.map((v) => labelOf(plan.groupBy[0], v));
    sentences.push(
      `Lowest: 0 in ${joinWords(who.slice(0, TIE_NAMES))}${who.length > TIE_NAMES ? ` and ${fmtInt(who.length - TIE_NAMES)} more` : ''} (not in the table: ${missing.length === 1 ? 'it has' : 'they have'} none).`,
    );
  } else if (!ranking && facts.valued > 1) sentences.push(`${say('Lowest', facts.lowest)}.`);
  // zeros are places and times too: said, so "fewest" is never a 1 where there were 0s
  if (!pct && facts.zeros > 0 && (ascending || !ranking) && (PLACE_AXES.has(plan.groupBy[0]) || labels === 1)) {
    sentences.push(`${capital(many(facts.zeros))} had none.`);
  }
  // a cut that splits a tie: the last place shown is shared with groups that are not shown
  if (plan.top && plan.top.n > 1 && facts.atCut !== undefined && r.rows.length) {
    const cut = num(r.rows.at(-1)![valueAt]);
    const shown = r.rows.filter((row) => row[valueAt] !== null && num(row[valueAt]) === cut).length;
    const beyond = facts.atCut - shown;
    if (beyond > 0) sentences.push(`Place ${r.rows.length} (${show(cut, pct)}) is tied with ${many(beyond)} not shown.`);
  }
  // change only along time, first to last member of the axis (the rows are the whole axis then)
  const rows = r.rows.filter((row) => row[valueAt] !== null);
  // (a ranking lists the periods by the measure: first and last are then no span of time)
  if (labels === 1 && TIME_AXES.has(plan.groupBy[0]) && rows.length > 1 && !ranking && r.rowCount === r.rows.length) {
    const first = rows[0];
    const last = rows.at(-1)!;
    const a = num(first[valueAt]);
    const b = num(last[valueAt]);
    if (a !== 0)
      sentences.push(
        `From ${label(first)} to ${label(last)}: ${show(a, pct)} to ${show(b, pct)} (${b >= a ? '+' : ''}${fmtNumber(((b - a) / a) * 100, 1)}%).`,
      );
  }
  return sentences.join(' ');
}

/** The most groups a ranking names one by one; the table lists the rest. */
const RANKED_NAMES = 10;

/**
 * The rows of a ranking in order with their places and values, ties said as ties (one place, "tied at"):
 * "1. THEFT, 3,470; 2. BATTERY, 2,948; 3. ASSAULT and ROBBERY, tied at 1,838". `value`: what is said of a row
 * (a comparison says both periods: rows tied in this period are then each said, at the same place).
 */
function ranked(rows: Cell[][], valueAt: number, label: (row: Cell[]) => string, pct: boolean, value?: (row: Cell[]) => string): string {
  const runs: { place: number; rows: Cell[][] }[] = [];
  for (const [i, row] of rows.entries()) {
    const last = runs.at(-1);
    if (last && row[valueAt] !== null && last.rows[0][valueAt] !== null && num(last.rows[0][valueAt]) === num(row[valueAt]))
      last.rows.push(row);
    else runs.push({ place: i + 1, rows: [row] });
  }
  const said: string[] = [];
  let named = 0;
  for (const run of runs) {
    if (named >= RANKED_NAMES) break;
    const who = run.rows.map(label);
    if (value) said.push(...run.rows.map((row) => `${run.place}. ${label(row)}${run.rows.length > 1 ? ' (tied)' : ''}, ${value(row)}`));
    else
      said.push(
        run.rows.length > 1
          ? `${run.place}. ${joinWords(who)}, tied at ${show(run.rows[0][valueAt], pct)}`
          : `${run.place}. ${who[0]}, ${show(run.rows[0][valueAt], pct)}`,
      );
    named += run.rows.length;
  }
  const rest = rows.length - named;
  return `${said.join('; ')}${rest > 0 ? `; and ${fmtInt(rest)} more in the table` : ''}`;
}

/** A group of two axes in a list, where commas part the groups: "April / THEFT". */
const listLabel = (plan: QueryPlan) => (row: Cell[]) =>
  row
    .slice(0, plan.groupBy.length)
    .map((v, i) => labelOf(plan.groupBy[i], v))
    .join(' / ');

/**
 * A grouped comparison. Without a cut: the totals of both periods (when every group is in the rows) and the
 * groups that rose and fell the most. With a top/bottom N: the rule (the N of this period, with the same
 * groups in the other) and every group with both values and the change.
 */
function describeComparison(plan: QueryPlan, r: PlanRows, ctx: NarrationContext): string {
  const labels = plan.groupBy.length;
  const pct = plan.measure.kind === 'share';
  const label = (row: Cell[]) =>
    row
      .slice(0, labels)
      .map((v, i) => labelOf(plan.groupBy[i], v))
      .join(', ');
  const [pa, pb] = [periodLabel(plan.filters.time!), periodLabel(plan.compareWith!)];
  if (!r.rows.length) return `No ${subject(plan, ctx)} are recorded in either period, ${where(plan, ctx)}.`;
  // the change as the database computed it: percent for counts, percentage points for a share
  const change = (row: Cell[]) => {
    const c = row[labels + 2];
    if (c === null) return '';
    const v = num(c);
    return pct ? ` (${v >= 0 ? '+' : ''}${fmtNumber(v, 2)} points)` : ` (${v >= 0 ? '+' : ''}${fmtNumber(v, 1)}%)`;
  };
  const noun = groupsNoun(plan);
  if (isSeriesAgainstYear(plan)) return describeSeriesAgainstYear(plan, r, pb, pct);
  if (plan.top) {
    const rule = `${capital(topPhrase(plan))} of ${pa} (ranked by ${pa}), each beside the same ${plan.top.n === 1 ? noun.one : noun.many} in ${pb}`;
    const both = (row: Cell[]) => `${show(row[labels], pct)} in ${pa} against ${show(row[labels + 1], pct)} in ${pb}${change(row)}`;
    const tied = r.rows.length > plan.top.n ? ` (${fmtInt(r.rows.length)} rows: a tie at place ${plan.top.n})` : '';
    return `${rule}${tied}: ${ranked(r.rows, labels, listLabel(plan), pct, both)}.${unequalPeriods(plan)}`;
  }
  const sentences: string[] = [];
  const complete = r.rows.length === r.rowCount;
  // a change is told in time order: from the compared period when it came first ("2021 against 2019"), else
  // from the thread's own period ("2021 versus 2022": from 2021 to 2022)
  const forward = plan.compareWith!.from > plan.filters.time!.from;
  const [first, then] = forward ? [0, 1] : [1, 0];
  const [p1, p2] = forward ? [pa, pb] : [pb, pa];
  if (plan.measure.kind === 'count' && complete) {
    const [ta, tb] = [0, 1].map((k) => r.rows.reduce((x, row) => x + num(row[labels + k]), 0));
    const [t1, t2] = forward ? [ta, tb] : [tb, ta];
    const total = t1 === 0 ? '' : ` (${t2 >= t1 ? '+' : ''}${fmtNumber(((t2 - t1) / t1) * 100, 1)}%)`;
    sentences.push(`${pa}: ${show(ta)} in all; ${pb}: ${show(tb)}${total}.`);
  } else sentences.push(`${capital(many(noun, r.rowCount))}, each in ${pa} and in ${pb}.`);
  const valued = r.rows.filter((row) => row[labels] !== null && row[labels + 1] !== null);
  const moves = valued.map((row) => ({ row, delta: num(row[labels + then]) - num(row[labels + first]) }));
  if (!moves.length) return sentences.join(' ');
  const up = moves.reduce((m, x) => (x.delta > m.delta ? x : m), moves[0]);
  const down = moves.reduce((m, x) => (x.delta < m.delta ? x : m), moves[0]);
  const tied = (v: number) => moves.filter((x) => x.delta === v).length;
  const move = (word: string, x: (typeof moves)[number]) =>
    `The largest ${word}${complete ? '' : ' in the rows shown'}: ${label(x.row)}, ${show(x.row[labels + first], pct)} in ${p1} to ${show(x.row[labels + then], pct)} in ${p2}${tied(x.delta) > 1 ? `, tied with ${fmtInt(tied(x.delta) - 1)} more` : ''}.`;
  if (up.delta > 0) sentences.push(move('rise', up));
  if (down.delta < 0) sentences.push(move('fall', down));
  if (up.delta <= 0 && down.delta >= 0) sentences.push(`Every ${noun.one} had the same in both.`);
  return `${sentences.join(' ')}${unequalPeriods(plan)}`;
}

/** Each year of a series beside one year ("April of each year" against April 2018): above, below, the extremes. */
function describeSeriesAgainstYear(plan: QueryPlan, r: PlanRows, pb: string, pct: boolean): string {
  const months = plan.filters.months
    ? `${joinWords(
        plan.filters.months.map((m) => titleCase(monthName(m))),
        'or',
      )} `
    : '';
  const base = r.rows[0][2];
  const diffs = r.rows.filter((row) => row[0] !== null && row[1] !== null).map((row) => ({ year: row[0], d: num(row[1]) - num(base) }));
  const above = diffs.filter((x) => x.d > 0).length;
  const below = diffs.filter((x) => x.d < 0).length;
  const best = diffs.reduce((m, x) => (x.d > m.d ? x : m), diffs[0]);
  const worst = diffs.reduce((m, x) => (x.d < m.d ? x : m), diffs[0]);
  const row = (y: Cell) => r.rows.find((x) => x[0] === y)!;
  const say = (y: Cell) => `${String(y)} with ${show(row(y)[1], pct)}`;
  return `Each year beside ${months}${pb}: ${show(base, pct)}. ${fmtInt(above)} ${above === 1 ? 'year' : 'years'} above it, ${fmtInt(below)} below. Highest: ${say(best.year)}; lowest: ${say(worst.year)}.`;
}

/**
 * Totals of two periods of different lengths (every year on record against 2018, a year against a month) are
 * not alike: said, so a change of +2,600% is read as what it is. A share or an average is a rate: no note.
 */
function unequalPeriods(plan: QueryPlan): string {
  if (plan.measure.kind !== 'count' && plan.measure.kind !== 'distinct') return '';
  const days = (t: { from: string; to: string }) => (Date.parse(t.to) - Date.parse(t.from)) / 86_400_000;
  const [a, b] = [plan.filters.time!, plan.compareWith!];
  if (Math.abs(days(a) - days(b)) <= 3) return '';
  const [la, lb] = [periodLabel(a), periodLabel(b)];
  return ` ${la} is ${days(a) > days(b) ? 'longer' : 'shorter'} than ${lb}: the change compares totals of periods of different lengths, not rates.`;
}

const many = (noun: { one: string; many: string }, n: number) => `${fmtInt(n)} ${n === 1 ? noun.one : noun.many}`;
