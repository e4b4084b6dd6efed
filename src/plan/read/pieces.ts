// What a span of words means: the pieces the scanner finds and the
// assembler turns into a QueryPlan (or an edit of one).
import type { Dimension, TimeRange } from '../query-plan.js';

type Flag = 'arrest' | 'domestic';
/** A slot of a plan a follow-up can take away ("drop the year filter", "without the arrest filter"). */
export type RemovableSlot = 'time' | 'place' | 'type' | 'arrest' | 'domestic' | 'night' | 'weekend' | 'location';
export type PlaceKind = 'areas' | 'districts' | 'wards' | 'beats' | 'blocks';
/** A step of whole years or months from a reference period. */
export interface PeriodStep {
  unit: 'year' | 'month';
  by: number;
  /** "the 3 years before that": the |by| units right before the reference period's start, however long that period is */
  adjoining?: boolean;
}
type MeasureCue = 'count' | 'distinct' | 'share' | 'average' | 'median' | 'percentile';

export type Meaning =
  /** a crime type (or a kind within one, with description words) */
  /** negated: said as left out ("excluding thefts", "not theft") */
  | { kind: 'type'; types: string[]; descriptions?: string[]; label: string; negated?: boolean }
  | { kind: 'category'; category: 'violent' | 'property'; label: string }
  /** crimes, incidents: every type */
  | { kind: 'all' }
  /** negated: said as left out ("not on the street", "excluding the street") */
  | { kind: 'location'; location: string; label: string; negated?: boolean }
  /** arrest or domestic; noun: the word names what is counted ("arrests") */
  | { kind: 'flag'; flag: Flag; value: boolean; noun?: boolean }
  /** step: the period was said as a step from another ("last year", "the year before", "next month") */
  | { kind: 'time'; range: TimeRange; step?: PeriodStep }
  | { kind: 'months'; months: number[]; label: string }
  | { kind: 'weekdays'; days: number[]; label: string }
  | { kind: 'weekend' }
  | { kind: 'hours'; from: number; to: number; label: string }
  | { kind: 'night' }
  | { kind: 'place'; place: PlaceKind; value: number | string; label: string }
  /** arrestRate: "arrest rate", a share whose part is an arrest; p: the percentile */
  | { kind: 'measure'; measure: MeasureCue; p?: number; arrestRate?: boolean; subject?: boolean }
  /**
   * A grouping word. by: said as "by X", "per X", "each X", "monthly" (never a single winner);
   * per: can be the group an average is taken over; plural: the noun is plural (undefined: unknown);
   * weak: a vague time word ("trend") that gives way to a stronger one; calendar: "day" (the calendar_day term)
   */
  | { kind: 'dim'; dim: Dimension; by: boolean; per: boolean; plural?: boolean; weak?: boolean; calendar?: boolean }
  /** most/least; common: "most common" (of types, when nothing else is ranked); orderOnly: "most first" */
  | { kind: 'rank'; order: 'desc' | 'asc'; common?: boolean; orderOnly?: boolean }
  /** "sort ascending", "alphabetically", "reverse the order": how every group of a grouped answer is listed */
  | { kind: 'sort'; to: SortTo }
  | { kind: 'number'; n: number }
  | { kind: 'compare' }
  /** "changed": fine along a time grouping or a comparison */
  | { kind: 'change' }
  /** "distribution", "ranked": fine when there is a grouping */
  | { kind: 'grouping' }
  /** "had no homicides", "which districts had none": only the groups with none */
  | { kind: 'none' }
  | { kind: 'allPlaces' }
  | { kind: 'allTime' }
  /** "the whole year": the thread's period widened to its calendar year */
  | { kind: 'wholeYear' }
  /** "same months", "the same period": the thread's months and days, in the year said */
  | { kind: 'samePeriod' }
  /** "drop the year filter", "without the arrest filter": that slot of the last plan taken away */
  | { kind: 'remove'; slot: RemovableSlot }
  /** what about, instead, also, only */
  | { kind: 'followUp'; also?: boolean; opener?: boolean; back?: boolean }
  /** near, around, involving, except: the words that follow cannot be placed either */
  | { kind: 'relation' }
  /** words that look like a filter the plan cannot hold ("at least 50", "district 99") */
  | { kind: 'invalid' };

/** A listing order said on its own: the plan's orders, or the other way round of the last answer's. */
export type SortTo = 'measure' | 'measure_asc' | 'axis' | 'reverse';

export type Piece = Meaning & {
  /** first word, and one past the last word, of the span */
  start: number;
  end: number;
  /** the span as written */
  text: string;
};

/** What is counted; types left out ("excluding thefts") are a filter, not the subject. */
export const isSubject = (p: Meaning): boolean =>
  (p.kind === 'type' && !p.negated) ||
  p.kind === 'category' ||
  p.kind === 'all' ||
  (p.kind === 'flag' && p.noun === true) ||
  (p.kind === 'measure' && p.subject === true);
