// The words of two sides side by side (versus.ts): the headline restates the
// plan and the side it is set beside, the narration each side's total and its
// highest group, ties said as ties.
import type { Cell } from '../core/answer.js';
import { fmtInt } from '../core/format.js';
import type { QueryPlan } from './query-plan.js';
import { sideWords, versusKeys, versusSides } from './versus.js';

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const num = (v: Cell) => (typeof v === 'number' ? v : Number(v ?? 0));

/** "beside assaults", "beside district 11": the comparison as the "understood as" line and the headline say it. */
export function versusPhrase(plan: QueryPlan, areaNames: ReadonlyMap<number, string>): string {
  const [, b] = versusSides(plan);
  return `beside ${sideWords(b.filters, versusKeys(plan.versus!), areaNames)}`;
}

/** `head`: the first side's title as narrate.ts writes it ("Batteries by year from 2010 to 2015, all of Chicago"). */
export function narrateVersus(
  plan: QueryPlan,
  result: { columns: string[]; rows: Cell[][]; rowCount?: number },
  areaNames: ReadonlyMap<number, string>,
  head: string,
  label: (v: Cell) => string,
): { headline: string; narration: string } {
  const keys = versusKeys(plan.versus!);
  const names = versusSides(plan).map((p) => sideWords(p.filters, keys, areaNames));
  const headline = `${head}, ${versusPhrase(plan, areaNames)}`;
  const grouped = plan.groupBy.length > 0;
  // totals and peaks are claims over every group: not made from the rows kept of a longer result
  const kept = result.rows.length;
  if (result.rowCount !== undefined && result.rowCount > kept)
    return { headline, narration: `${headline}. ${fmtInt(result.rowCount)} groups; the table shows the first ${fmtInt(kept)}.` };
  const at = grouped ? [1, 2] : [0, 1];
  if (plan.measure.kind === 'share')
    return {
      headline,
      narration: `${headline}. ${at.map((col, i) => shareSaid(result.rows, col, capital(names[i]), grouped, label)).join('. ')}.`,
    };
  const told = at.map((col, i) => {
    const total = result.rows.reduce((sum, row) => sum + num(row[col]), 0);
    if (!grouped) return `${capital(names[i])}: ${fmtInt(total)}`;
    const high = Math.max(...result.rows.map((row) => num(row[col])));
    const tops = result.rows.filter((row) => num(row[col]) === high).map((row) => label(row[0]));
    const named = tops.length > 3 ? `${tops.slice(0, 3).join(', ')} and ${tops.length - 3} more` : tops.join(' and ');
    const most = high > 0 ? `, the most (${fmtInt(high)}${tops.length > 1 ? ` each, tied` : ''}) in ${named}` : '';
    return `${capital(names[i])}: ${fmtInt(total)} in all${most}`;
  });
  return { headline, narration: `${headline}. ${told.join('. ')}.` };
}

/** A side of two shares: its share, or its highest group's (a share has no total over groups). */
function shareSaid(rows: Cell[][], col: number, name: string, grouped: boolean, label: (v: Cell) => string): string {
  const pct = (v: number) => `${v.toFixed(2)}%`;
  const known = rows.filter((row) => row[col] !== null && row[col] !== undefined);
  if (!known.length) return `${name}: no incidents`;
  if (!grouped) return `${name}: ${pct(num(known[0][col]))}`;
  const high = Math.max(...known.map((row) => num(row[col])));
  const tops = known.filter((row) => num(row[col]) === high).map((row) => label(row[0]));
  const named = tops.length > 3 ? `${tops.slice(0, 3).join(', ')} and ${tops.length - 3} more` : tops.join(' and ');
  return `${name}: the highest share (${pct(high)}${tops.length > 1 ? ' each, tied' : ''}) in ${named}`;
}
