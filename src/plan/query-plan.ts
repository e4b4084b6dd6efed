// The QueryPlan: the one representation of a question about the crime data
// (../shared/design/QUERY_PLAN.md). The offline reader fills it from words,
// the LLM fills it through structured output, one compiler turns it into SQL,
// the narrator and the "understood as" line are written from it, and a
// follow-up is an edit of the thread's last plan. Small and closed: what it
// cannot say goes to free SQL (with an LLM) or gets an honest refusal.
import { z } from 'zod';

/** What a result can be grouped by. Calendar and cyclic ones are compiled complete (empty members as 0). */
export const DIMENSIONS = [
  'year',
  'month',
  'month_of_year',
  'weekday',
  'hour',
  'date',
  'day_of_year',
  'community_area',
  'district',
  'ward',
  'beat',
  'block',
  'type',
  'location',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Groups an average or a percentile is taken over ("per day", "per block"). */
export const PER_GROUPS = ['day', 'month', 'year', 'block', 'community_area', 'district', 'ward', 'beat'] as const;
export type PerGroup = (typeof PER_GROUPS)[number];

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');

/** A half-open range of days [from, to): a year is 2019-01-01..2020-01-01. Relative phrases are resolved against the data's latest date when read. */
export const TimeRange = z.object({
  from: isoDate,
  to: isoDate,
  /** how the question said it ("2019", "last year", "the last 90 days"), for the "understood as" line */
  said: z.string().optional(),
});
export type TimeRange = z.infer<typeof TimeRange>;

export const Filters = z
  .object({
    /** exact primary_type values */
    types: z.array(z.string()).min(1).optional(),
    /** the types are left out rather than kept: every other type ("excluding thefts", "not theft") */
    exceptTypes: z.literal(true).optional(),
    /** a category of types: violent comes from the glossary choice, property is fixed */
    category: z.enum(['violent', 'property']).optional(),
    /** words the description contains (case-insensitive) */
    descriptions: z.array(z.string()).min(1).optional(),
    /** exact location_description values */
    locations: z.array(z.string()).min(1).optional(),
    /** the locations are left out rather than kept, with the incidents of no recorded location ("not on the street") */
    exceptLocations: z.literal(true).optional(),
    time: TimeRange.optional(),
    /** ISO weekdays, 1 = Monday */
    weekdays: z.array(z.number().int().min(1).max(7)).min(1).optional(),
    /** the glossary's weekend (its choice says whether Friday evening counts) */
    weekend: z.boolean().optional(),
    /** hours [from, to), wrapping past midnight when from > to ("after 10pm" = 22..24) */
    hours: z.object({ from: z.number().int().min(0).max(23), to: z.number().int().min(1).max(24) }).optional(),
    /** the glossary's night (its choice gives the hours) */
    night: z.boolean().optional(),
    /** months of the year, 1 = January (summer = 6, 7, 8) */
    months: z.array(z.number().int().min(1).max(12)).min(1).optional(),
    areas: z.array(z.number().int().min(1).max(77)).min(1).optional(),
    districts: z.array(z.number().int().min(1).max(31)).min(1).optional(),
    wards: z.array(z.number().int().min(1).max(50)).min(1).optional(),
    beats: z.array(z.number().int().min(100).max(2600)).min(1).optional(),
    /** exact block values such as 052XX W HURON ST */
    blocks: z.array(z.string()).min(1).optional(),
    arrest: z.boolean().optional(),
    domestic: z.boolean().optional(),
  })
  .strict();
export type Filters = z.infer<typeof Filters>;

/** The part a share is taken of: "share of thefts that led to an arrest" = part {arrest: true}. */
const SharePart = Filters.pick({
  types: true,
  exceptTypes: true,
  category: true,
  locations: true,
  arrest: true,
  domestic: true,
  night: true,
  weekend: true,
});

export const Measure = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('count') }),
  z.object({ kind: z.literal('distinct'), of: z.enum(['block', 'beat', 'community_area', 'district', 'ward', 'type', 'location']) }),
  /** percent of the matching incidents that also match `part` */
  z.object({ kind: z.literal('share'), part: SharePart }),
  /** mean of per-group counts; per block follows the glossary choice (blocks with incidents, or every block) */
  z.object({ kind: z.literal('average_per'), per: z.enum(PER_GROUPS) }),
  /** a percentile of per-group counts (median = 0.5) */
  z.object({ kind: z.literal('percentile_per'), per: z.enum(PER_GROUPS), p: z.number().gt(0).lt(1) }),
  /**
   * the average time between consecutive matching incidents on the same block, in days or hours, over every
   * such pair ("average days between consecutive crimes on the same block")
   */
  z.object({ kind: z.literal('average_gap'), unit: z.enum(['day', 'hour']) }),
]);
export type Measure = z.infer<typeof Measure>;

export const QueryPlan = z
  .object({
    measure: Measure,
    filters: Filters.default({}),
    groupBy: z.array(z.enum(DIMENSIONS)).max(2).default([]),
    /** the first n groups by the measure (desc: the most), ties at the cut by label; the top 1 comes with every group tied with it */
    top: z.object({ n: z.number().int().min(1).max(1000), order: z.enum(['desc', 'asc']) }).optional(),
    /**
     * how the groups are listed when no top is asked: by the measure, most first (a ranking: "most first", "which
     * districts had the most"), by the measure fewest first ("sort ascending", "lowest first"; every group, no cut), or
     * along the axis (time, cycles, names: "alphabetically"). Default: time and cycles along the axis, counts by the
     * measure most first, shares along the axis (a table of rates is read per group).
     */
    order: z.enum(['measure', 'measure_asc', 'axis']).optional(),
    /** the same measure over a second period, side by side with the change in percent (per group when grouped) */
    compareWith: TimeRange.optional(),
    /** the same plan with these filters in place of its own, side by side ("battery per year" then "compare with assault") */
    versus: Filters.pick({ types: true, locations: true, areas: true, districts: true, wards: true, beats: true, blocks: true })
      .strict()
      .optional(),
    /**
     * a count per group shown as each group's percent of the total over every group in scope ("what percent of
     * each", "as a percentage" of a ranking of types or places); a ranking still goes by the count
     */
    ofTotal: z.literal(true).optional(),
    /** only the groups with none: the empty members of a complete axis ("which community areas had no homicides?") */
    none: z.literal(true).optional(),
    chart: z.enum(['auto', 'line', 'bar', 'none']).default('auto'),
  })
  .strict();
export type QueryPlan = z.infer<typeof QueryPlan>;
/** What a caller writes: defaults may be left out. */
export type QueryPlanInput = z.input<typeof QueryPlan>;

export const parsePlan = (input: unknown): QueryPlan => QueryPlan.parse(input);
