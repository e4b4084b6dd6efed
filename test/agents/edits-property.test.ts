// Property test of the edit (issue 32): random questions, each followed by one random edit said as a
// fragment a person types (a period, a bare month, a step back, a type, a place, a flag, a grouping, a
// ranking, a comparison, "in all of Chicago"). What the person means after the edit is kept in a small
// model of its own (Ask below, not a QueryPlan), written out as SQL by hand here, never through our
// compiler, and the desk's answer must give the same rows.
import { describe, expect, it } from 'vitest';
import { Random } from '../../src/ingest/generate/random.js';
import { runSql } from '../../src/agents/sql/execute.js';
import { scoreResult } from '../../src/core/result-match.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';

const TYPES = [
  ['THEFT', 'thefts'],
  ['BATTERY', 'batteries'],
  ['NARCOTICS', 'narcotics offenses'],
  ['BURGLARY', 'burglaries'],
  ['ASSAULT', 'assaults'],
  ['CRIMINAL DAMAGE', 'criminal damage incidents'],
] as const;
const AREAS = [
  [25, 'Austin'],
  [68, 'Englewood'],
  [8, 'Near North Side'],
] as const;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

type Place = { kind: 'district'; n: number } | { kind: 'ward'; n: number } | { kind: 'area'; n: number; name: string };

/** What the person means: one subject, one period, one place, one flag, one grouping, a cut, a comparison. */
interface Ask {
  type?: (typeof TYPES)[number];
  /** undefined: every year */
  year?: number;
  month?: number;
  place?: Place;
  arrest?: boolean;
  group?: 'month' | 'district' | 'year';
  top?: number;
  compare?: number;
}

const placeWords = (p: Place) => (p.kind === 'area' ? p.name : `${p.kind} ${p.n}`);
const periodWords = (a: Ask) => (a.month ? `${MONTHS[a.month - 1]} ${a.year}` : `${a.year}`);

function question(a: Ask): string {
  const what = `${a.type ? a.type[1] : 'crimes'}${a.arrest ? ' with an arrest' : ''}`;
  const by = a.group ? ` by ${a.group}` : '';
  return `How many ${what} were reported${by} in ${periodWords(a)}${a.place ? ` in ${placeWords(a.place)}` : ''}?`;
}

interface Edit {
  say: string;
  after: Ask;
}

/** One edit a person could make here, and what they mean by it. */
function randomEdit(r: Random, a: Ask): Edit | undefined {
  const pick = <T>(xs: readonly T[]) => xs[r.int(0, xs.length - 1)];
  switch (r.int(0, 9)) {
    case 0: {
      const y = pick([2016, 2017, 2018, 2020, 2021].filter((x) => x !== a.year));
      // another year moves the part of the year said ("December 2017" then "what about 2016" is December 2016, as
      // the blind held-out sets read it); a whole year stays whole; a grouping by year over one year is no grouping
      return {
        say: pick([`and in ${y}?`, `what about ${y}`, `${y} instead`]),
        after: { ...a, year: y, compare: undefined },
      };
    }
    case 1: {
      if (a.year === undefined || a.group === 'year' || a.compare) return undefined;
      const m = r.int(1, 12);
      // a bare month takes the thread's year; a by-month answer narrows to that month
      return {
        say: pick([`and ${MONTHS[m - 1]}?`, `what about ${MONTHS[m - 1].toLowerCase()}`]),
        after: { ...a, month: m, group: a.group === 'month' ? undefined : a.group, top: a.group === 'month' ? undefined : a.top },
      };
    }
    case 2:
      if (a.year === undefined || a.compare) return undefined;
      return { say: pick(['and the year before?', 'what about last year?', 'the previous year']), after: { ...a, year: a.year - 1 } };
    case 3: {
      const t = pick(TYPES.filter((x) => x !== a.type));
      return { say: pick([`what about ${t[1]}?`, `only ${t[1]}`, `and ${t[1]}?`]), after: { ...a, type: t } };
    }
    case 4: {
      const p: Place = r.chance(0.5)
        ? { kind: 'district', n: pick([3, 7, 11, 25]) }
        : { kind: 'area', ...(([n, name]) => ({ n, name }))(pick(AREAS)) };
      // naming one district under a by-district answer narrows it to that district's number
      const narrows = p.kind === 'district' && a.group === 'district';
      return { say: `in ${placeWords(p)}?`, after: { ...a, place: p, ...(narrows ? { group: undefined, top: undefined } : {}) } };
    }
    case 5:
      return { say: pick(['only arrests', 'just the ones with an arrest']), after: { ...a, arrest: true } };
    case 6: {
      const g = pick(['month', 'district', 'year'] as const);
      if (g === a.group || (g === 'year' && a.month) || a.compare) return undefined;
      // a grouping over what the question pins widens it: by month over one month is the whole year,
      // by district in district 7 is every district, by year over one year every year
      const after: Ask = { ...a, group: g, top: undefined };
      if (g === 'month') after.month = undefined;
      if (g === 'district' && a.place?.kind === 'district') after.place = undefined;
      if (g === 'year') after.year = undefined;
      return { say: pick([`by ${g}`, `by ${g} instead`, `and by ${g}?`].filter((s) => !s.startsWith('and') || g !== 'year')), after };
    }
    case 7:
      if (a.group !== 'district' || a.compare) return undefined;
      return { say: pick(['top 3', 'top 3 districts', 'which 3 districts had the most?']), after: { ...a, top: 3 } };
    case 8: {
      if (a.year === undefined || a.month || a.top || a.group === 'year') return undefined;
      const y = pick([2015, 2016, 2017].filter((x) => x !== a.year));
      return { say: pick([`compare with ${y}`, `compared to ${y}?`]), after: { ...a, compare: y } };
    }
    default:
      if (!a.place) return undefined;
      return { say: pick(['and in all of Chicago?', 'citywide', 'across the city']), after: { ...a, place: undefined } };
  }
}

/** The person's meaning as SQL, written here by hand. */
function sqlOf(a: Ask): string {
  const where: string[] = [];
  if (a.type) where.push(`primary_type = '${a.type[0]}'`);
  if (a.arrest) where.push('arrest');
  if (a.place) where.push(`${a.place.kind === 'area' ? 'community_area' : a.place.kind} = ${a.place.n}`);
  const period = (y: number) =>
    a.month ? `date >= make_date(${y}, ${a.month}, 1) AND date < make_date(${y}, ${a.month}, 1) + interval '1 month'` : `year = ${y}`;
  const w = (extra: string[]) => [...where, ...extra].join(' AND ') || 'true';
  if (a.compare !== undefined) {
    const [x, y] = [period(a.year!), `year = ${a.compare}`];
    const change = (p: string, q: string) => `round(100.0 * (${p} - ${q}) / nullif(${q}, 0), 1)`;
    if (a.group === 'month')
      return `SELECT to_char(make_date(2000, m, 1), 'FMMonth') AS month, coalesce(a, 0), coalesce(b, 0), ${change('coalesce(a, 0)', 'coalesce(b, 0)')}
              FROM generate_series(1, 12) m LEFT JOIN (SELECT extract(month FROM date)::int AS m,
                count(*) FILTER (WHERE ${x}) AS a, count(*) FILTER (WHERE ${y}) AS b FROM crimes WHERE ${w([`(${x} OR ${y})`])} GROUP BY 1) c USING (m) ORDER BY m`;
    if (a.group === 'district')
      return `SELECT district, a, b, ${change('a', 'b')} FROM (SELECT district, count(*) FILTER (WHERE ${x}) AS a, count(*) FILTER (WHERE ${y}) AS b
              FROM crimes WHERE ${w([`(${x} OR ${y})`, 'district IS NOT NULL'])} GROUP BY 1) c ORDER BY a DESC, district`;
    return `SELECT a, b, ${change('a', 'b')} FROM (SELECT count(*) FILTER (WHERE ${x}) AS a, count(*) FILTER (WHERE ${y}) AS b FROM crimes WHERE ${w([`(${x} OR ${y})`])}) c`;
  }
  const time = a.year === undefined ? [] : [period(a.year)];
  if (a.group === 'month') {
    const oneMonth = a.month !== undefined;
    const first = oneMonth ? a.month! : 1;
    const last = oneMonth ? a.month! : 12;
    return `SELECT to_char(make_date(${a.year}, m, 1), 'FMMonth'), coalesce(n, 0) FROM generate_series(${first}, ${last}) m
            LEFT JOIN (SELECT extract(month FROM date)::int AS m, count(*) AS n FROM crimes WHERE ${w(time)} GROUP BY 1) c USING (m) ORDER BY m`;
  }
  if (a.group === 'year')
    return `SELECT y, coalesce(n, 0) FROM generate_series((SELECT min(year) FROM crimes), (SELECT max(year) FROM crimes)) y
            LEFT JOIN (SELECT year AS y, count(*) AS n FROM crimes WHERE ${w(time)} GROUP BY 1) c USING (y) ORDER BY y`;
  if (a.group === 'district')
    return `SELECT district, count(*) AS n FROM crimes WHERE ${w([...time, 'district IS NOT NULL'])} GROUP BY 1 ORDER BY n DESC, district${a.top ? ` LIMIT ${a.top}` : ''}`;
  return `SELECT count(*) FROM crimes WHERE ${w(time)}`;
}

function randomAsk(r: Random): Ask {
  const a: Ask = { year: r.int(2015, 2021) };
  if (r.chance(0.7)) a.type = TYPES[r.int(0, TYPES.length - 1)];
  if (r.chance(0.25)) a.month = r.int(1, 12);
  if (r.chance(0.35))
    a.place = r.chance(0.5) ? { kind: 'district', n: [3, 7, 11][r.int(0, 2)] } : { kind: 'area', n: AREAS[0][0], name: AREAS[0][1] };
  if (r.chance(0.15)) a.arrest = true;
  if (r.chance(0.4)) a.group = a.month ? 'district' : r.chance(0.5) ? 'month' : 'district';
  if (a.group === 'district' && a.place?.kind === 'district') delete a.place;
  return a;
}

describe('a random question and a random edit said as a fragment', () => {
  const data = crimeDatabase(20_000);

  it('answers what a person means: the same rows as the meaning written out by hand (160 cases)', async () => {
    const { desk, memory } = testDesk(data.db);
    const r = new Random(32);
    const wrong: string[] = [];
    let checked = 0;
    try {
      while (checked < 160) {
        const base = randomAsk(r);
        const edit = randomEdit(r, base);
        if (!edit) continue;
        const threadId = `prop-${checked}`;
        const first = await desk.answer({ platform: 'cli', threadId, text: question(base) });
        if (first.kind !== 'result') {
          wrong.push(`"${question(base)}": ${first.kind}`);
          checked++;
          continue;
        }
        const answer = await desk.answer({ platform: 'cli', threadId, text: edit.say });
        const gold = await runSql(data.db.pool, sqlOf(edit.after), 10_000, 10_000);
        const shown = answer.kind === 'result' && answer.table ? answer.table : undefined;
        const full = shown?.truncated && answer.kind === 'result' ? await runSql(data.db.pool, answer.sql[0], 10_000, 10_000) : shown;
        if (!full || !scoreResult(sqlOf(edit.after), gold, full).relaxed)
          wrong.push(
            `"${question(base)}" -> "${edit.say}": ${answer.kind === 'result' ? `${answer.headline} ${JSON.stringify(answer.table?.rows.slice(0, 3))}` : answer.kind === 'refusal' ? answer.reason : answer.kind} | meant ${JSON.stringify(edit.after)}`,
          );
        checked++;
      }
    } finally {
      await memory.close();
    }
    expect(wrong).toEqual([]);
  }, 240_000);
});
