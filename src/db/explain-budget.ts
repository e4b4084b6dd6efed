// What one model-written query may make PostgreSQL hold, judged from its
// EXPLAIN before it runs. work_mem bounds sorts and hashes but not an
// aggregate's state: array_agg over crimes x generate_series(1, 2000) grew one
// backend to 3.7 GB (string_agg 2.3 GB), and on a login that may not set
// temp_file_limit a sort of such a product wrote 4 GB of temp files before the
// statement timeout. So a plan is refused when a step is estimated at more
// rows than any answer needs, when a collecting aggregate would take more than
// a million values (also as a window function: a WindowAgg, not an Aggregate),
// or when a sort, hash or materialisation would hold more than its byte
// budget. The estimates are PostgreSQL's own (ANALYZE keeps them
// honest); our compiled SQL is not judged, only the model's. (This is
// PostgreSQL's execution plan, not our query plan of src/plan.)

export interface ExplainBudget {
  /** the most rows any one step of the plan may be estimated at */
  rows: number;
  /** the most values array_agg, string_agg, json(b)_agg, *_object_agg or xmlagg may collect */
  collected: number;
  /** the most bytes (rows x width) a Sort, Hash or Materialize step may hold */
  heldBytes: number;
}

export const DEFAULT_EXPLAIN_BUDGET: ExplainBudget = { rows: 100_000_000, collected: 1_000_000, heldBytes: 2 * 1024 ** 3 };

interface PlanNode {
  'Node Type': string;
  'Plan Rows': number;
  'Plan Width': number;
  Output?: string[];
  Plans?: PlanNode[];
}

const COLLECTING = /\b(array_agg|string_agg|json_agg|jsonb_agg|json_object_agg|jsonb_object_agg|xmlagg)\s*\(/i;
/** a collecting aggregate in a WindowAgg's output, `string_agg(description, ','::text) OVER (?)` (or next to a window call) */
const collectingWindow = (output: string) => COLLECTING.test(output) && /\bOVER\b/.test(output);
const HOLDING = new Set(['Sort', 'Incremental Sort', 'Hash', 'Materialize']);

const about = (n: number) =>
  n >= 1e9 ? `${(n / 1e9).toFixed(1)} billion` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} million` : Math.round(n).toLocaleString('en-US');

/** Why the plan (EXPLAIN (VERBOSE, FORMAT JSON)'s output) is over budget, or undefined. */
export function explainBudgetProblem(explained: unknown, budget: ExplainBudget = DEFAULT_EXPLAIN_BUDGET): string | undefined {
  const root = (explained as { Plan?: PlanNode }[] | undefined)?.[0]?.Plan;
  if (!root) return undefined;
  const walk = (node: PlanNode): string | undefined => {
    if (node['Plan Rows'] > budget.rows) {
      return `one step of it would make about ${about(node['Plan Rows'])} rows (a join without a condition, or a series multiplied into the data?)`;
    }
    const input = Math.max(0, ...(node.Plans ?? []).map((p) => p['Plan Rows']));
    if (node['Node Type'] === 'Aggregate' && (node.Output ?? []).some((o) => COLLECTING.test(o)) && input > budget.collected) {
      return `it would collect about ${about(input)} values into one list (at most ${about(budget.collected)}): count or group them instead`;
    }
    // a collecting aggregate as a window function keeps its frame's values, a whole partition with the usual frame
    // (string_agg(…) OVER (ORDER BY id) grew one backend to a gigabyte); the plan does not show the frame, so every
    // window of a collecting aggregate counts the rows it reads, like the Aggregate above
    if (node['Node Type'] === 'WindowAgg' && (node.Output ?? []).some(collectingWindow) && input > budget.collected) {
      return `it would collect up to about ${about(input)} values into a list as a window function (at most ${about(budget.collected)}): count them, or use lag() and lead() for neighbouring rows`;
    }
    if (HOLDING.has(node['Node Type']) && node['Plan Rows'] * node['Plan Width'] > budget.heldBytes) {
      return `one step of it would hold about ${about(node['Plan Rows'] * node['Plan Width'])} bytes (${about(node['Plan Rows'])} rows): narrow it to fewer rows or columns`;
    }
    for (const child of node.Plans ?? []) {
      const problem = walk(child);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(root);
}
