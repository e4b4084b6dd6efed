// A plan that did not come from the reader (the model filled it, or a button
// carried it back) is checked like a person's words: its values are resolved
// against the data's vocabulary, as the reader resolves words. A crime type
// spelled another way ("theft", "Thefts") becomes the data's value (THEFT);
// one the data does not have is refused with the nearest real ones, never
// answered as zero. Free text in a plan (descriptions, blocks) must be inert,
// and the model's own words for a period ("said") are dropped: the narrator
// names the period itself, so no model string reaches a headline unchecked.
import { closest } from '../../core/suggest.js';
import type { Filters, QueryPlan, TimeRange } from '../../plan/query-plan.js';
import { semanticModel } from '../../plan/read/model.js';
import { narrationProblem } from './inert-narration.js';
import { inertProblem, shownValue } from '../../core/inert-text.js';
import type { SchemaInfo } from './schema.js';

export type PlanCheck = { ok: true; plan: QueryPlan } | { ok: false; problem: string };

/** A block as the portal writes it: "052XX W HURON ST". */
const BLOCK = /^\d{3}XX [NSEW] [A-Z0-9][A-Z0-9 .'&/-]{0,40}$/;
/** Words a description may contain: letters, digits, spaces and a little punctuation. */
const DESCRIPTION = /^[A-Za-z0-9 ,.'()/&-]{1,60}$/;

/**
 * A model's value as a refusal may quote it: plain words that pass the inertness check; anything else is
 * "a value" (a refusal is our words around checked values, never the model's text).
 */
const quoted = (v: string, what: string) => (/^[A-Za-z][A-Za-z0-9 ,'/&().-]{0,39}$/.test(v) && !inertProblem(v) ? `"${v}"` : what);

const known = (schema: SchemaInfo | undefined, column: string) =>
  schema?.tables.flatMap((t) => t.columns).find((c) => c.table === 'crimes' && c.name === column)?.values ?? [];

function resolveTypes(values: string[], schema: SchemaInfo | undefined): string[] | string {
  const model = semanticModel();
  const data = known(schema, 'primary_type');
  const all = [...new Set([...data, ...Object.keys(model.types).filter((k) => !k.startsWith('_'))])];
  const out: string[] = [];
  for (const v of values) {
    const upper = v.trim().toUpperCase();
    const byWord = Object.entries(model.types).find(
      ([k, t]) => !k.startsWith('_') && typeof t !== 'string' && [t.one, t.many, ...t.words].includes(v.trim().toLowerCase()),
    )?.[0];
    const hit = all.find((t) => t === upper) ?? byWord;
    if (!hit || (data.length && !data.includes(hit))) {
      return `${quoted(v, 'a value the model gave')} is not a crime type in the data (the nearest: ${closest(v, data.length ? data : all)
        .map(shownValue)
        .join(', ')})`;
    }
    out.push(hit);
  }
  return [...new Set(out)];
}

function resolveLocations(values: string[], schema: SchemaInfo | undefined): string[] | string {
  const model = semanticModel();
  const all = [...new Set([...known(schema, 'location_description'), ...Object.keys(model.locations).filter((k) => !k.startsWith('_'))])];
  const out: string[] = [];
  for (const v of values) {
    const hit = all.find((l) => l === v.trim().toUpperCase());
    if (!hit)
      return `${quoted(v, 'a value the model gave')} is not a location description I know in the data (the nearest: ${closest(v, all).map(shownValue).join(', ')})`;
    out.push(hit);
  }
  return out;
}

const withoutSaid = (r: TimeRange | undefined): TimeRange | undefined => (r ? { from: r.from, to: r.to } : undefined);

/** A real calendar day (2019-02-30 is none), as YYYY-MM-DD. */
const realDay = (d: string) => {
  const t = Date.parse(`${d}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === d;
};

/** Why a period cannot be asked, or undefined: both days real, the first before the second. */
function periodProblem(r: TimeRange | undefined): string | undefined {
  if (!r) return undefined;
  for (const d of [r.from, r.to]) if (!realDay(d)) return `"${d}" is not a day of the calendar`;
  return r.from < r.to ? undefined : `the period ${r.from} to ${r.to} ends before it starts`;
}

function checkFilters(f: Filters, schema: SchemaInfo | undefined): Filters | string {
  const out: Filters = { ...f };
  if (f.types) {
    const types = resolveTypes(f.types, schema);
    if (typeof types === 'string') return types;
    out.types = types;
  }
  if (f.locations) {
    const locations = resolveLocations(f.locations, schema);
    if (typeof locations === 'string') return locations;
    out.locations = locations;
  }
  for (const d of f.descriptions ?? []) {
    if (!DESCRIPTION.test(d) || narrationProblem(d)) return 'the description words the model gave are not plain words';
  }
  for (const b of f.blocks ?? []) {
    if (!BLOCK.test(b) || inertProblem(b))
      return `${quoted(b, 'a value the model gave')} is not a block as the data writes it (e.g. 052XX W HURON ST)`;
  }
  const period = periodProblem(f.time);
  if (period) return period;
  if (f.time) out.time = withoutSaid(f.time);
  return out;
}

export function checkPlan(plan: QueryPlan, schema: SchemaInfo | undefined): PlanCheck {
  const filters = checkFilters(plan.filters, schema);
  if (typeof filters === 'string') return { ok: false, problem: filters };
  let measure = plan.measure;
  if (measure.kind === 'share') {
    const part = checkFilters(measure.part, schema);
    if (typeof part === 'string') return { ok: false, problem: part };
    measure = { ...measure, part };
  }
  const compared = periodProblem(plan.compareWith);
  if (compared) return { ok: false, problem: compared };
  // the other side of a side by side is words of the model too: its types, locations and blocks checked the same way
  const versus = plan.versus ? checkFilters(plan.versus, schema) : undefined;
  if (typeof versus === 'string') return { ok: false, problem: versus };
  return {
    ok: true,
    plan: {
      ...plan,
      filters,
      measure,
      ...(plan.compareWith ? { compareWith: withoutSaid(plan.compareWith) } : {}),
      ...(versus ? { versus } : {}),
    },
  };
}
