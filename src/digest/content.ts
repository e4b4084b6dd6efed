// What a digest says. The crime digest covers the whole days of the schedule's
// period (a week for a weekly digest), moved back to end at the latest data
// when the data stops earlier, and compares them with the days before and the
// same days a year earlier: totals, the top types and the biggest movers, the
// community areas that moved most, the arrest rate. Each of those is a query
// plan, compiled (from the rollups where one holds it) and told by the plan
// narrator, as a question's answer is. Saved questions and backtest
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
import type { Cell } from '../core/answer.js';
import { parsePlan, type QueryPlan, type QueryPlanInput, type TimeRange } from '../plan/query-plan.js';
import { compilePlan, periodLabel } from '../plan/compile.js';
import { narratePlan, type NarrationContext, type PlanRows } from '../plan/narrate.js';
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

/** The calendar day of an instant in a time zone, YYYY-MM-DD (en-CA writes dates that way). */
const dayIn = (timeZone: string) => (d: Date) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);

const DAY_MS = 86_400_000;
/** A YYYY-MM-DD day moved by whole days, or by whole years (Feb 29 becomes Mar 1 in a common year). */
const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const addYears = (day: string, years: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
};

/**
 * The whole days a period covers, as the plans count them: the days before the day of its end (in the
 * subscription's time zone), as many as the period is long (a weekly digest that fires on Monday is Monday to
 * Sunday; a daily one, the day before), moved back to end with the latest data when the data stops earlier.
 */
function periodDays(period: Period, timeZone: string, latestDay: string): { days: TimeRange; movedBack: boolean } {
  const length = Math.max(1, Math.round((period.end.getTime() - period.start.getTime()) / DAY_MS));
  const scheduled = dayIn(timeZone)(period.end);
  const to = scheduled <= addDays(latestDay, 1) ? scheduled : addDays(latestDay, 1);
  return { days: { from: addDays(to, -length), to }, movedBack: to !== scheduled };
}

/** Runs a plan as the compiler writes it (from a rollup where one holds it): its SQL and rows. */
async function runPlan(pool: pg.Pool, plan: QueryPlanInput): Promise<{ plan: QueryPlan; sql: string; rows: PlanRows }> {
  const parsed = parsePlan(plan);
  const { sql } = compilePlan(parsed);
  const res = await pool.query({ text: sql, rowMode: 'array' });
  const rows = res.rows as Cell[][];
  return { plan: parsed, sql, rows: { columns: res.fields.map((f) => f.name), rows, rowCount: rows.length } };
}

/**
 * The crime digest of a period: five query plans, compiled (so they count from the rollups) and told by the plan
 * narrator; the digest adds the most common types and the headline. Its label is in the subscription's own time
 * zone: an evening schedule's period ends after midnight UTC, and a UTC label was a day off from the schedule.
 */
export async function crimeDigest(pool: pg.Pool, period: Period, timeZone = 'America/Chicago'): Promise<Answer> {
  const started = performance.now();
  const { rows: latestRows } = await pool.query<{ latest: Date | null }>(
    `SELECT max(date) AT TIME ZONE 'America/Chicago' AS latest FROM crimes`,
  );
  const latest = latestRows[0].latest;
  if (!latest) {
    return makeAnswer({ kind: 'error', route: 'sql', trace: [], retryable: true, message: 'The crime digest has no data to report yet.' });
  }
  // the data's dates are Chicago's local time: its latest day is Chicago's day of that instant
  const { days, movedBack } = periodDays(period, timeZone, dayIn('America/Chicago')(latest));
  const length = Math.round((Date.parse(days.to) - Date.parse(days.from)) / DAY_MS);
  const before: TimeRange = { from: addDays(days.from, -length), to: days.from };
  const yearEarlier: TimeRange = { from: addYears(days.from, -1), to: addYears(days.to, -1) };
  const time = days;
  const [vsBefore, vsYear, arrests, types, areas] = await Promise.all([
    runPlan(pool, { measure: { kind: 'count' }, filters: { time }, compareWith: before, chart: 'none' }),
    runPlan(pool, { measure: { kind: 'count' }, filters: { time }, compareWith: yearEarlier, chart: 'none' }),
    runPlan(pool, { measure: { kind: 'share', part: { arrest: true } }, filters: { time }, chart: 'none' }),
    runPlan(pool, { measure: { kind: 'count' }, filters: { time }, groupBy: ['type'], compareWith: before, chart: 'none' }),
    runPlan(pool, { measure: { kind: 'count' }, filters: { time }, groupBy: ['community_area'], compareWith: before, chart: 'none' }),
  ]);
  const { rows: names } = await pool.query<{ community_area: number; name: string }>('SELECT community_area, name FROM community_areas');
  const ctx: NarrationContext = { areaNames: new Map(names.map((r) => [r.community_area, r.name])), choices: {} };
  const tell = (r: Awaited<ReturnType<typeof runPlan>>) => narratePlan(r.plan, r.rows, ctx).narration;

  const [, cur, , prev] = vsBefore.rows.rows[0].map(Number);
  // the types, most common first (the compiler orders a grouped comparison by this period's count)
  const byType = types.rows.rows.map(([type, now, then]) => ({ type: String(type), cur: Number(now), prev: Number(then) }));
  const label = periodLabel(days);
  const common = byType.filter((t) => t.cur > 0).slice(0, 3);
  const narration = [
    tell(vsBefore),
    tell(vsYear),
    common.length ? `Most common: ${common.map((t) => `${t.type} (${n(t.cur)})`).join(', ')}.` : '',
    `By type: ${tell(types)}`,
    `By community area: ${tell(areas)}`,
    Number(arrests.rows.rows[0]?.[2] ?? 0) > 0 ? tell(arrests) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const top = byType.slice(0, 8);
  return makeAnswer({
    kind: 'result',
    route: 'sql',
    trace: [{ node: 'digest', ms: Math.round(performance.now() - started) }],
    headline: `Crime digest, ${label}: ${n(cur)} crimes (${change(cur, prev)})`,
    narration,
    sql: [vsBefore, vsYear, arrests, types, areas].map((r) => r.sql),
    table: {
      columns: ['primary type', 'this period', 'period before', 'change'],
      rows: top.map((t) => [t.type, t.cur, t.prev, signed(t.cur - t.prev)]),
      rowCount: byType.length,
      truncated: byType.length > top.length,
    },
    chart: top.length
      ? {
          kind: 'grouped-bar',
          title: `Crimes by type, ${label} vs the period before`,
          labels: top.map((t) => t.type),
          series: [
            { name: 'this period', values: top.map((t) => t.cur), axis: 'left', fill: false },
            { name: 'period before', values: top.map((t) => t.prev), axis: 'left', fill: false },
          ],
        }
      : undefined,
    assumptions: [
      `period: ${label} (${timeZone})${movedBack ? ', moved back to the latest data' : ''}`,
      "whole days of the data's own (Chicago) calendar",
    ],
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
