// The crime digest through the query plans: compiled (so it counts from the
// rollups where one holds the plan) and told by the plan narrator; its numbers are
// the ones a direct count over crimes gives for the same whole days.
import { describe, expect, it } from 'vitest';
import { crimeDigest } from '../../src/digest/content.js';
import { crimeDatabase } from '../helpers/crime-data.js';

const data = crimeDatabase(5_000);

/** The weekly period that a Monday 09:00 (Chicago) schedule closes on `monday`. */
const weekBefore = (monday: string) => ({
  start: new Date(Date.parse(`${monday}T15:00:00Z`) - 7 * 86_400_000),
  end: new Date(`${monday}T15:00:00Z`),
});

describe('the crime digest', () => {
  it('counts whole days from the rollups, with the numbers a direct count over crimes gives', async () => {
    const { db } = data;
    // a Monday inside the generated data, so the period is not moved back
    const { rows } = await db.pool.query<{ monday: string }>(
      `SELECT to_char(date_trunc('week', max(date)) - interval '7 days', 'YYYY-MM-DD') AS monday FROM crimes`,
    );
    const monday = rows[0].monday;
    const answer = await crimeDigest(db.pool, weekBefore(monday), 'America/Chicago');
    if (answer.kind !== 'result') throw new Error(`not a result: ${JSON.stringify(answer)}`);
    const from = new Date(Date.parse(`${monday}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
    const count = async (a: string, b: string) =>
      Number((await db.pool.query(`SELECT count(*) AS n FROM crimes WHERE date >= $1 AND date < $2`, [a, b])).rows[0].n);
    const week = await count(from, monday);
    expect(week).toBeGreaterThan(0);
    const last = new Date(Date.parse(`${monday}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(answer.headline).toMatch(new RegExp(`^Crime digest, ${from} to ${last}: ${week.toLocaleString('en-US')} crimes \\((up|down) `));
    // the types table: this week's and the week before's counts per type, as crimes has them
    const before = new Date(Date.parse(`${from}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
    const { rows: types } = await db.pool.query<{ primary_type: string; cur: string; prev: string }>(
      `SELECT primary_type, count(*) FILTER (WHERE date >= $2) AS cur, count(*) FILTER (WHERE date < $2) AS prev
       FROM crimes WHERE date >= $1 AND date < $3 GROUP BY primary_type ORDER BY 2 DESC, 1 LIMIT 8`,
      [before, from, monday],
    );
    expect(answer.table!.rows.map((r) => r.slice(0, 3))).toEqual(types.map((t) => [t.primary_type, Number(t.cur), Number(t.prev)]));
    // every statement is the compiler's: the two totals over every type from the hourly rollup (no type column, so
    // fewer rows than the daily one), the arrest share and the types count from the daily rollup; no rollup holds
    // community areas by day, so that one reads crimes' days through the date index
    expect(answer.sql.map((sql) => /\bFROM (crimes\w*)/.exec(sql)?.[1])).toEqual([
      'crimes_by_hour',
      'crimes_by_hour',
      'crimes_by_day',
      'crimes_by_day',
      'crimes',
    ]);
    // told by the plan narrator: the comparison with the week before and the year before, and the largest moves
    expect(answer.narration).toContain(`That is `);
    expect(answer.narration).toMatch(/By type: .*The largest (rise|fall): /);
    expect(answer.narration).toMatch(/By community area: /);
  });

  it("names the period's whole days in the subscription's own time zone (an evening schedule ends after midnight UTC)", async () => {
    const { db } = data;
    // daily 21:00 America/Chicago: the period ends at 21:00 on 2019-03-02 (03:00Z on the 3rd); in Berlin that is the 3rd
    const period = { start: new Date('2019-03-02T03:00:00Z'), end: new Date('2019-03-03T03:00:00Z') };
    const answer = await crimeDigest(db.pool, period, 'America/Chicago');
    expect(answer.kind === 'result' && answer.assumptions[0]).toMatch(/^period: 2019-03-01 \(America\/Chicago\)/);
    const berlin = await crimeDigest(db.pool, period, 'Europe/Berlin');
    expect(berlin.kind === 'result' && berlin.assumptions[0]).toMatch(/^period: 2019-03-02 \(Europe\/Berlin\)/);
  });
});
