// The plan's parts in words, one table for both who put plans into words: the
// narrator (headlines, "understood as") and the describer (the question the
// reader reads back). Month and weekday names come from the semantic model.
import type { Dimension } from './query-plan.js';
import { semanticModel } from './read/model.js';

/** one / many ("which blocks"), the "by ..." of a grouping, and the word a headline uses ("by hour of the day"). */
export const DIMENSION_WORDS: Record<Dimension, { one: string; many: string; by: string; narrated: string }> = {
  year: { one: 'year', many: 'years', by: 'by year', narrated: 'year' },
  month: { one: 'month', many: 'months', by: 'by month', narrated: 'month' },
  month_of_year: { one: 'month', many: 'months', by: 'by month of the year', narrated: 'month of the year' },
  weekday: { one: 'day of the week', many: 'days of the week', by: 'by day of the week', narrated: 'day of the week' },
  hour: { one: 'hour', many: 'hours', by: 'by hour', narrated: 'hour of the day' },
  date: { one: 'date', many: 'dates', by: 'by day', narrated: 'day' },
  day_of_year: { one: 'day of the year', many: 'days of the year', by: 'by day of the year', narrated: 'day of the year' },
  community_area: { one: 'community area', many: 'community areas', by: 'by community area', narrated: 'community area' },
  district: { one: 'district', many: 'districts', by: 'by district', narrated: 'district' },
  ward: { one: 'ward', many: 'wards', by: 'by ward', narrated: 'ward' },
  beat: { one: 'beat', many: 'beats', by: 'by beat', narrated: 'beat' },
  block: { one: 'block', many: 'blocks', by: 'by block', narrated: 'block' },
  type: { one: 'crime type', many: 'crime types', by: 'by crime type', narrated: 'crime type' },
  location: { one: 'location', many: 'locations', by: 'by location', narrated: 'location' },
};

/** The unit of an average or a percentile "per ...". */
export const PER_WORDS: Record<string, string> = {
  day: 'day',
  month: 'month',
  year: 'year',
  block: 'block',
  community_area: 'community area',
  district: 'district',
  ward: 'ward',
  beat: 'beat',
};

/** "january" for 1 (lower case: the reader's own words). */
export const monthName = (m: number): string => semanticModel().months[String(m)][0];
/** "mondays" for 1 (ISO weekday; lower case). */
export const weekdaysName = (d: number): string => semanticModel().weekdays[String(d)][1];

/** A plan's top in words, as the "understood as" chips and the reader's phrases say it: "top 5", "the most". */
export function topWords(top: { n: number; order: 'desc' | 'asc' }): string {
  if (top.n === 1) return top.order === 'desc' ? 'the most' : 'the fewest';
  return `${top.order === 'desc' ? 'top' : 'bottom'} ${top.n}`;
}
