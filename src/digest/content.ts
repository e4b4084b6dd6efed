// What a digest says. The crime digest covers the schedule's period (a week
// for a weekly digest), moved back to end at the latest data when the data
// stops earlier, and compares it with the period before and the same period a
// year earlier: totals, the top types and the biggest movers, the community
// areas that changed most, the arrest rate. Saved questions and backtest
// watches re-run through the agents; the accuracy digest runs the multi-turn
// benchmark through the desk as it is configured. Every post names its period
// and the data freshness.
import type pg from 'pg';
import type { Answer } from '../core/answer.js';
import { makeAnswer } from '../core/answer.js';
import { fmtPercent } from '../core/format.js';
import type { DataDesk } from '../agents/desk.js';
import { runBacktest, type BacktestDeps } from '../agents/backtest/agent.js';
import { KPI_NAMES } from '../backtest/kpis.js';
import { fmtKpi, KPI_LABELS } from '../agents/backtest/narrate.js';
import type { Subscription } from './subscriptions.js';
import { scopeOf } from '../knowledge/scope.js';
import { evaluateConversations, loadConversations } from '../eval/conversation-eval.js';

const n = (x: number) => x.toLocaleString('en-US');
const change = (now: number, before: number) =>
  before === 0 ? (now === 0 ? 'no change' : 'new') : `${now >= before ? 'up' : 'down'} ${fmtPercent(Math.abs(now / before - 1), 1)}`;
const signed = (x: number) => `${x > 0 ? '+' : ''}${n(x)}`;

export interface Period {
  start: Date;
  end: Date;
}

/** Local (Chicago) timestamp text of an instant, as the crimes table stores dates. */
const LOCAL = (param: string) => `(${param}::timestamptz AT TIME ZONE 'America/Chicago')`;

/** The calendar day of an instant in a time zone, YYYY-MM-DD (en-CA writes dates that way). */
const dayIn = (timeZone: string) => (d: Date) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);

/**
 * The crime digest of a period. Its label is in the subscription's own time zone: an evening schedule's
 * period ends after midnight UTC, and a UTC label was a day off from the schedule people set.
 */
export async function crimeDigest(pool: pg.Pool, period: Period, timeZone = 'America/Chicago'): Promise<Answer> {
  const started = performance.now();
  const lengthMs = period.end.getTime() - period.start.getTime();
  const latest = (await pool.query<{ latest: Date | null }>(`SELECT max(date) AT TIME ZONE 'America/Chicago' AS latest FROM crimes`))
    .rows[0].latest;
  if (!latest) {
    return makeAnswer({ kind: 'error', route: 'sql', trace: [], retryable: true, message: 'The crime digest has no data to report yet.' });
  }
  // the period, moved back to end at the latest data if the data stops earlier
  const end = new Date(Math.min(period.end.getTime(), latest.getTime() + 1));
  const start = new Date(end.getTime() - lengthMs);
  const params = [start.toISOString(), end.toISOString(), lengthMs / 1000];
  const windows = `
    WITH w AS (
      SELECT ${LOCAL('$1')} AS cur_start, ${LOCAL('$2')} AS cur_end,
             ${LOCAL('$1')} - make_interval(secs => $3) AS prev_start,
             ${LOCAL('$1')} - interval '1 year' AS ly_start, ${LOCAL('$2')} - interval '1 year' AS ly_end
    ), tagged AS (
      SELECT c.primary_type, c.community_area, c.arrest,
             CASE WHEN c.date >= w.cur_start AND c.date < w.cur_end THEN 'cur'
                  WHEN c.date >= w.prev_start AND c.date < w.cur_start THEN 'prev'
                  WHEN c.date >= w.ly_start AND c.date < w.ly_end THEN 'ly' END AS win
      FROM crimes c, w
      WHERE (c.date >= w.prev_start AND c.date < w.cur_end) OR (c.date >= w.ly_start AND c.date < w.ly_end)
    )`;
  const totalsSql = `${windows}
    SELECT count(*) FILTER (WHERE win = 'cur') AS cur, count(*) FILTER (WHERE win = 'prev') AS prev, count(*) FILTER (WHERE win = 'ly') AS ly,
           round(100.0 * avg(arrest::int) FILTER (WHERE win = 'cur'), 2) AS arrest_pct
    FROM tagged`;
  const typesSql = `${windows}
    SELECT primary_type, count(*) FILTER (WHERE win = 'cur') AS cur, count(*) FILTER (WHERE win = 'prev') AS prev
    FROM tagged WHERE win IN ('cur', 'prev') GROUP BY primary_type ORDER BY cur DESC, primary_type`;
  const areasSql = `${windows}
    SELECT a.name, count(*) FILTER (WHERE win = 'cur') - count(*) FILTER (WHERE win = 'prev') AS delta
    FROM tagged t JOIN community_areas a USING (community_area) WHERE win IN ('cur', 'prev')
    GROUP BY a.name ORDER BY abs(count(*) FILTER (WHERE win = 'cur') - count(*) FILTER (WHERE win = 'prev')) DESC, a.name LIMIT 3`;
  const totals = (await pool.query<{ cur: number; prev: number; ly: number; arrest_pct: string | null }>(totalsSql, params)).rows[0];
  const types = (await pool.query<{ primary_type: string; cur: number; prev: number }>(typesSql, params)).rows;
  const areas = (await pool.query<{ name: string; delta: number }>(areasSql, params)).rows;

  const day = dayIn(timeZone);
  const label = `${day(start)} to ${day(new Date(end.getTime() - 1))}`;
  const movers = [...types]
    .sort((a, b) => Math.abs(b.cur - b.prev) - Math.abs(a.cur - a.prev) || a.primary_type.localeCompare(b.primary_type))
    .slice(0, 2);
  const narration = [
    `${n(totals.cur)} crimes from ${label}, ${change(totals.cur, totals.prev)} on the period before (${n(totals.prev)}) and ${change(totals.cur, totals.ly)} on the same period a year earlier (${n(totals.ly)}).`,
    types.length
      ? `Most common: ${types
          .slice(0, 3)
          .map((t) => `${t.primary_type} (${n(t.cur)})`)
          .join(', ')}.`
      : '',
    movers.length ? `Biggest movers: ${movers.map((t) => `${t.primary_type} ${signed(t.cur - t.prev)}`).join(', ')}.` : '',
    areas.length ? `Community areas that changed most: ${areas.map((a) => `${a.name} ${signed(a.delta)}`).join(', ')}.` : '',
    totals.arrest_pct !== null ? `Arrest rate: ${Number(totals.arrest_pct).toFixed(2)}%.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const top = types.slice(0, 8);
  return makeAnswer({
    kind: 'result',
    route: 'sql',
    trace: [{ node: 'digest', ms: Math.round(performance.now() - started) }],
    headline: `Crime digest, ${label}: ${n(totals.cur)} crimes (${change(totals.cur, totals.prev)})`,
    narration,
    sql: [totalsSql, typesSql, areasSql].map((s) =>
      s
        .replace(/\$1/g, `'${params[0]}'`)
        .replace(/\$2/g, `'${params[1]}'`)
        .replace(/\$3/g, String(params[2]))
        .replace(/\n\s+/g, '\n  ')
        .trim(),
    ),
    table: {
      columns: ['primary type', 'this period', 'period before', 'change'],
      rows: top.map((t) => [t.primary_type, t.cur, t.prev, signed(t.cur - t.prev)]),
      rowCount: types.length,
      truncated: types.length > top.length,
    },
    chart: top.length
      ? {
          kind: 'grouped-bar',
          title: `Crimes by type, ${label} vs the period before`,
          labels: top.map((t) => t.primary_type),
          series: [
            { name: 'this period', values: top.map((t) => t.cur), axis: 'left', fill: false },
            { name: 'period before', values: top.map((t) => t.prev), axis: 'left', fill: false },
          ],
        }
      : undefined,
    assumptions: [`period: ${label} (${timeZone})${end.getTime() < period.end.getTime() ? ', moved back to the latest data' : ''}`],
    notes: [],
    freshness: `data through ${latest.toISOString().slice(0, 16).replace('T', ' ')}`,
  });
}

export async function questionDigest(desk: DataDesk, sub: Subscription, period: Period): Promise<Answer> {
  const answer = await desk.answer({ platform: sub.platform, threadId: `digest:${sub.id}`, channel: sub.channel, text: sub.topic ?? '' });
  if (answer.kind !== 'result') return answer;
  return {
    ...answer,
    headline: `Saved question "${sub.topic}": ${answer.headline}`,
    notes: [
      ...answer.notes,
      `Digest for ${dayIn(sub.timezone)(period.start)} to ${dayIn(sub.timezone)(new Date(period.end.getTime() - 1))}.`,
    ],
  };
}

/** A saved strategy re-run; returns the answer and the KPIs to remember for next time. */
export async function backtestWatch(
  deps: BacktestDeps,
  sub: Subscription,
): Promise<{ answer: Answer; state?: Record<string, number | null> }> {
  // its runs are the workspace's, as a /backtest there would keep them
  const outcome = await runBacktest(sub.topic ?? '', { ...deps, workspace: scopeOf(sub.platform, sub.workspace) });
  if (outcome.answer.kind !== 'result' || !outcome.result) return { answer: outcome.answer };
  const best = outcome.result.candidates[outcome.result.ranking[0]];
  const before = (sub.last_state ?? {}) as Record<string, number | null>;
  const changes = KPI_NAMES.filter((k) => typeof before[k] === 'number' && best.kpis[k] !== null && before[k] !== best.kpis[k]).map(
    (k) => `${KPI_LABELS[k]} ${fmtKpi(k, before[k] as number)} → ${fmtKpi(k, best.kpis[k])}`,
  );
  const note = Object.keys(before).length
    ? changes.length
      ? `Since last time: ${changes.join('; ')}.`
      : 'No change since last time.'
    : 'First run of this watch.';
  return {
    answer: { ...outcome.answer, headline: `Backtest watch: ${outcome.answer.headline}`, notes: [...outcome.answer.notes, note] },
    state: { ...best.kpis },
  };
}

/**
 * The multi-turn benchmark's score (fixtures/benchmarks/conversations.jsonl) through the desk as configured
 * (offline, or with its model): how often the bot answers an edit as a person meant it, per phase, with
 * the edit kinds it misses most.
 */
export async function accuracyDigest(desk: DataDesk, pool: pg.Pool, statementTimeoutMs: number, model?: string): Promise<Answer> {
  const started = performance.now();
  const conversations = loadConversations();
  const report = await evaluateConversations({ desk, pool, statementTimeoutMs }, conversations, model);
  const all = report.byPhase.find((t) => t.name === 'all')!;
  const pct = (right: number, turns: number) => (turns ? fmtPercent(right / turns, 1) : 'n/a');
  const worst = report.byEdit
    .filter((t) => t.right < t.turns)
    .sort((a, b) => a.right / a.turns - b.right / b.turns)
    .slice(0, 3)
    .map((t) => `${t.name.replace(/_/g, ' ')} ${t.right} of ${t.turns}`);
  return makeAnswer({
    kind: 'result',
    route: 'sql',
    trace: [{ node: 'accuracy digest', ms: Math.round(performance.now() - started) }],
    headline: `Multi-turn accuracy: ${n(all.right)} of ${n(all.turns)} turns right (${pct(all.right, all.turns)})`,
    narration:
      `${n(report.wholeRight)} of ${n(conversations.length)} conversations were right at every turn. ` +
      (worst.length ? `Edits missed most: ${worst.join('; ')}.` : 'Every edit kind was answered right.'),
    sql: [],
    table: {
      columns: ['phase', 'turns', 'right', 'right %', 'wrong', 'refused'],
      rows: report.byPhase.map((t) => [t.name, t.turns, t.right, pct(t.right, t.turns), t.wrong, t.refused]),
      rowCount: report.byPhase.length,
      truncated: false,
    },
    assumptions: [model ? `through the model ${model}` : 'offline: the query plan reader, no model'],
    notes: ['Each turn is judged against a gold SQL written by hand for what a person means at that point of the thread.'],
  });
}
