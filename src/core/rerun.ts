// Re-running an answer on today's data, for any channel: a "Re-run" control
// under a plan answer carries the resolved plan and the original's numbers
// (its headline figures, its row count, the day it ran and the data's last
// day then). The desk answers the plan again (as a follow-up button's) and
// says what changed since: "Re-run on 2026-12-02: 2,189 (was 2,180 on
// 2026-11-20: +9, new rows loaded since)". The numbers ride in the control's
// value, so the comparison needs no stored delivery (those are kept 3 days).
import { z } from 'zod';
import type { Answer } from './answer.js';

/** What an answer said, to compare a re-run with. */
export const rerunBaselineSchema = z.object({
  /** the headline's figures as shown ("2,180", "12.5%") */
  figures: z.array(z.string().max(40)).max(6),
  rows: z.number().int().nonnegative(),
  /** the day it ran, YYYY-MM-DD */
  on: z.string().max(10),
  /** the data's last day then, YYYY-MM-DD */
  through: z.string().max(10).optional(),
});
export type RerunBaseline = z.infer<typeof rerunBaselineSchema>;

const FIGURE = /-?\d[\d,]*(?:\.\d+)?%?/g;
const DAY = /\d{4}-\d{2}-\d{2}/;

/** The figures a headline states after its last colon ("Thefts in 2019, all of Chicago: 2,239" -> ["2,239"]). */
function headlineFigures(headline: string): string[] {
  const colon = headline.lastIndexOf(': ');
  return colon < 0 ? [] : (headline.slice(colon + 2).match(FIGURE) ?? []).slice(0, 6);
}

/** A plan answer's baseline, or undefined when it cannot be re-run (no plan, no sources: free SQL, a backtest). */
function rerunBaselineOf(answer: Answer): { plan: Record<string, unknown>; baseline: RerunBaseline } | undefined {
  if (answer.kind !== 'result' || answer.route !== 'sql' || !answer.resolved?.plan || !answer.sources) return undefined;
  const through = DAY.exec(answer.sources.freshness ?? '')?.[0];
  return {
    plan: answer.resolved.plan,
    baseline: {
      figures: headlineFigures(answer.headline),
      rows: answer.sources.rowsReturned,
      on: answer.sources.ranOn,
      ...(through ? { through } : {}),
    },
  };
}

/** A re-run control's value: the plan and the baseline, as one string; undefined when it does not fit `limit`. */
export function encodeRerun(answer: Answer, limit = Infinity): string | undefined {
  const of = rerunBaselineOf(answer);
  if (!of) return undefined;
  const value = JSON.stringify({ p: of.plan, b: of.baseline });
  return value.length <= limit ? value : undefined;
}

export function decodeRerun(value: string): { plan: Record<string, unknown>; baseline: RerunBaseline } | undefined {
  try {
    const v = JSON.parse(value) as { p?: unknown; b?: unknown };
    const baseline = rerunBaselineSchema.safeParse(v.b);
    if (!baseline.success || !v.p || typeof v.p !== 'object' || Array.isArray(v.p)) return undefined;
    return { plan: v.p as Record<string, unknown>, baseline: baseline.data };
  } catch {
    return undefined;
  }
}

const numberOf = (figure: string) => Number(figure.replace(/[,%]/g, ''));
const signed = (n: number, percent: boolean) => {
  const rounded = Math.round(n * 100) / 100;
  return `${rounded > 0 ? '+' : ''}${rounded.toLocaleString('en-US')}${percent ? ' points' : ''}`;
};

/** What changed between the baseline and the re-run's answer, in one sentence. */
export function rerunNote(baseline: RerunBaseline, answer: Answer, today = new Date().toISOString().slice(0, 10)): string {
  if (answer.kind !== 'result') return `Re-run on ${today}: no answer this time (was answered on ${baseline.on}).`;
  const figures = headlineFigures(answer.headline);
  const rows = answer.sources?.rowsReturned ?? answer.table?.rowCount ?? 0;
  const through = DAY.exec(answer.sources?.freshness ?? '')?.[0];
  const comparable = figures.length > 0 && figures.length === baseline.figures.length;
  const deltas = comparable ? figures.map((f, i) => numberOf(f) - numberOf(baseline.figures[i])) : [];
  const changed = comparable ? deltas.some((d) => d !== 0) || rows !== baseline.rows : rows !== baseline.rows;
  const why =
    through && baseline.through && through > baseline.through
      ? `new rows loaded since (data through ${through}, was ${baseline.through})`
      : changed
        ? `the data through ${through ?? baseline.through ?? 'the same day'} changed since (rows corrected or reloaded)`
        : 'the same data';
  const rowWords = (n: number) => `${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}`;
  const now = comparable ? figures.join(', ') : rowWords(rows);
  const was = comparable ? baseline.figures.join(', ') : rowWords(baseline.rows);
  const delta = comparable
    ? deltas.every((d) => d === 0)
      ? 'no change'
      : deltas.map((d, i) => signed(d, figures[i].endsWith('%'))).join(', ')
    : rows === baseline.rows
      ? 'no change'
      : signed(rows - baseline.rows, false);
  const rowChange = comparable && rows !== baseline.rows ? `; ${rowWords(rows)}, was ${rowWords(baseline.rows)}` : '';
  return `Re-run on ${today}: ${now} (was ${was} on ${baseline.on}: ${delta}, ${why})${rowChange}.`;
}

/** The re-run's answer with what changed since said first among its notes. */
export function withRerunNote(answer: Answer, baseline: RerunBaseline, today?: string): Answer {
  if (answer.kind !== 'result') return answer;
  return { ...answer, notes: [rerunNote(baseline, answer, today), ...answer.notes] };
}
