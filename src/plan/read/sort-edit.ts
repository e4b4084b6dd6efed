// "sort ascending", "fewest first", "alphabetically", "in order of district", "reverse the order": how a
// grouped answer lists its groups (the plan's order), every group kept. A cut stays what it was: the top 5
// are the most; the other end is "bottom 5". A single number has nothing to sort, and says so.
import { isOrderedAxis, listOrder } from '../compile.js';
import type { QueryPlan } from '../query-plan.js';
import type { Piece, SortTo } from './pieces.js';
import type { Work } from './work.js';

type Dim = Extract<Piece, { kind: 'dim' }>;

/** The listing orders said, "most first" among them (a ranking word that only orders). */
function saidOrders(work: Work): { piece: Piece; to: SortTo }[] {
  const sorts = work.of('sort').map((p) => ({ piece: p as Piece, to: p.to }));
  const mostFirst = work
    .of('rank')
    .filter((r) => r.orderOnly)
    .map((p) => ({ piece: p as Piece, to: 'measure' as const }));
  return [...sorts, ...mostFirst].sort((a, b) => a.piece.start - b.piece.start);
}

/**
 * The grouping words that only name the order ("in order of district"): not a new grouping. Returned to be
 * left out of the edit's groupings; one the answer is not grouped by is dropped.
 */
export function orderDims(work: Work, dims: Dim[], last: QueryPlan): Dim[] {
  const axisSorts = work.of('sort').filter((s) => s.to === 'axis');
  const named = dims.filter((d) => axisSorts.some((s) => s.end === d.start));
  for (const d of named) if (!last.groupBy.includes(d.dim)) work.drop(d, `the answer is not grouped by ${d.text}`);
  return named;
}

/** Sets the plan's order from the orders said; drops each one that cannot apply, with the reason. */
export function applySort(work: Work, plan: QueryPlan): void {
  const said = saidOrders(work);
  if (!said.length) return;
  for (const s of said.slice(1)) if (s.to !== said[0].to) work.drop(s.piece, 'two orders at once');
  const { piece, to } = said[0];
  if (!plan.groupBy.length) {
    work.drop(piece, 'there is nothing to sort: the answer is a single number, not a list of groups');
    return;
  }
  if (plan.none) {
    work.drop(piece, 'the groups with none are listed in their own order');
    return;
  }
  const current = listOrder(plan, isOrderedAxis(plan.groupBy[0]));
  if (plan.top) {
    // a cut is its ranking: "most first" of a top 5 is what it is; the fewest are another cut
    const own = plan.top.order === 'desc' ? 'measure' : 'measure_asc';
    if (to === own) return;
    const other = plan.top.order === 'desc' ? 'bottom' : 'top';
    work.drop(
      piece,
      `a ${plan.top.order === 'desc' ? 'top' : 'bottom'} ${plan.top.n} is listed by its ranking; ask for the ${other} ${plan.top.n} for the other end`,
    );
    return;
  }
  if (to !== 'reverse') {
    plan.order = to;
    return;
  }
  if (current === 'axis') {
    work.drop(piece, 'a listing along its own order cannot be reversed yet; say "most first" or "fewest first"');
    return;
  }
  plan.order = current === 'measure' ? 'measure_asc' : 'measure';
}
