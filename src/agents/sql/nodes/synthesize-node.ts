// Node 6, synthesize: the LLM narrates the rows, every number of its text
// checked against them; the deterministic narrator speaks when there is no LLM,
// when it fails, or when its numbers do not check out. The thread remembers
// the question and its SQL for follow-ups.
import { makeAnswer, WHOLE_TABLE_ROWS } from '../../../core/answer.js';
import { describeError } from '../../../core/errors.js';
import { chooseChart } from '../../../charts/choose-chart.js';
import { renderPrompt } from '../../../llm/prompts.js';
import { narrate, uncheckedNumbers } from '../narrator.js';
import { humanize, TIME_COLUMN } from '../../../core/result-shape.js';
import type { QueryResult } from '../../../core/result-shape.js';
import type { SqlState } from '../state.js';
import { suggestFollowUps } from '../../../plan/follow-ups.js';
import { syntheticData, SYNTHETIC_CRIMES_NOTE } from '../../../db/freshness.js';
import { narratePlan } from '../../../plan/narrate.js';
import { narrationProblem } from '../inert-narration.js';
import { narrationFacts, wholeResultFacts } from '../narration-facts.js';
import { narrationContext } from '../plan-path.js';
import { planKey } from '../../../plan/plan-key.js';
import { shownValue } from '../../../core/inert-text.js';
import { groupFacts } from '../../../plan/facts.js';
import type { QueryPlan } from '../../../plan/query-plan.js';
import { queryPool } from './query-pool.js';
import { checkRestatement } from '../restatement.js';
import { runSql } from '../execute.js';
import type { PlanContext } from '../plan-types.js';

/** The value of the last group a top/bottom-N cut keeps (null when there is no cut). */
function cutValue(plan: QueryPlan, result: QueryResult): number | null {
  const v = plan.top ? result.rows.at(-1)?.[plan.groupBy.length] : null;
  return typeof v === 'number' ? v : v === null || v === undefined ? null : Number(v);
}

const clip = (title: string) => (title.length > 80 ? `${title.slice(0, 77)}...` : title);

/** For a result longer than the rows kept: its totals and extremes over every row, by the database (undefined if that fails). */
async function factsOverAll(state: SqlState, result: QueryResult) {
  if (!result.truncated) return undefined;
  try {
    return await wholeResultFacts(queryPool(state)!, state.sql!, result, state.deps.statementTimeoutMs);
  } catch (error) {
    state.deps.logger.warn(
      `sql agent: the facts over all rows could not be computed (${describeError(error)}); the prompt says they cover the rows kept`,
    );
    return undefined;
  }
}

async function narration(state: SqlState, result: QueryResult): Promise<{ text: string; note?: string }> {
  const plain = narrate(result);
  const llm = state.deps.llm;
  if (!llm || result.rowCount === 0) return { text: plain };
  try {
    const { text, usage } = await llm.chatText({
      system: 'You report query results faithfully and briefly.',
      user: renderPrompt('sql-narrate', {
        question: state.question,
        columns: result.columns.join(', '),
        rows: narrationFacts(result, await factsOverAll(state, result)),
      }),
    });
    state.tokens += usage.promptTokens + usage.completionTokens;
    state.stepTokens = usage.promptTokens + usage.completionTokens;
    const problem = narrationProblem(text);
    if (problem) return { text: plain, note: `the LLM narration was not shown (${problem}); deterministic narration used` };
    const bad = uncheckedNumbers(text, result, state.question);
    if (bad.length)
      return {
        text: plain,
        note: `the LLM narration used numbers not in the result (${bad.join(', ')}); replaced by the deterministic one`,
      };
    return { text: text.trim() };
  } catch (error) {
    return { text: plain, note: `the LLM narration failed (${describeError(error)}); deterministic narration used` };
  }
}

export async function synthesizeNode(state: SqlState): Promise<'end'> {
  state.progress?.('Writing the answer');
  const result = state.result!;
  // a plan's answer is told from the plan: exact, no model; its claims over the groups come from the database, over all of them
  // (when every group is in the rows kept and no cut hides any, the narrator computes the same facts from them)
  const grouped =
    state.plan?.groupBy.length &&
    !state.plan.compareWith &&
    state.plan.measure.kind !== 'average_per' &&
    state.plan.measure.kind !== 'percentile_per';
  const facts =
    grouped && (result.truncated || state.plan!.top || state.plan!.none)
      ? await groupFacts(queryPool(state)!, state.plan!, state.choices, cutValue(state.plan!, result), state.deps.statementTimeoutMs)
      : undefined;
  const told = state.plan
    ? narratePlan(state.plan, result, narrationContext(await state.loadPlanContext(), state.choices), facts)
    : undefined;
  const { text, note } = told ? { text: told.narration, note: undefined } : await narration(state, result);
  if (note) state.stepNote = note;
  const ctx = await state.loadPlanContext();
  const restatementNote = await checkModelRestatement(state, result, ctx);
  const resolved = state.resolvedQuestion ?? (state.fragment ? undefined : state.question);
  await state.deps.memory.update(state.threadId, (s) => {
    s.pending = undefined;
    // a free-SQL answer to a fragment the model did not restate: kept in the words typed after the question it edited
    const question = resolved ?? `${s.history.at(-1)?.question ?? ''} (then: ${state.question})`.trim();
    s.history.push({
      question,
      ...(question !== state.question ? { asked: state.question } : {}),
      sql: state.sql,
      ...(state.plan ? { plan: state.plan } : {}),
    });
  });
  // a short result (an axis of 24 hours, 12 months, 22 districts) is kept whole, so no channel cuts it
  const display = result.rowCount <= WHOLE_TABLE_ROWS ? Math.max(state.deps.displayRows, result.rowCount) : state.deps.displayRows;
  state.answer = makeAnswer({
    kind: 'result',
    route: 'sql',
    trace: state.trace,
    // a model's narration opens with what it counted; the deterministic one of free SQL ("Incidents: 12.") does not, so
    // the question it answered, in full words, heads it
    headline: told?.headline ?? (text === narrate(result) ? clip(resolved ?? state.question) : text.split(/(?<=\.)\s/)[0]),
    narration: text,
    sql: [state.sql!],
    table: {
      columns: result.columns.map(humanize),
      // years, months and hours are labels: as text, so no renderer formats them as quantities
      // a text cell that carries a link or an instruction (the data is anyone's to write) is withheld, in every channel
      rows: result.rows
        .slice(0, display)
        .map((row) =>
          row.map((c, i) =>
            typeof c === 'number' && TIME_COLUMN.test(result.columns[i]) ? String(c) : typeof c === 'string' ? shownValue(c) : c,
          ),
        ),
      rowCount: result.rowCount,
      truncated: result.rowCount > display,
    },
    // the groups with none are all 0: a list, not a chart
    chart: state.plan?.none ? undefined : chooseChart(result, clip(told?.headline ?? state.question)),
    assumptions: state.assumptions,
    notes: [
      ...(note ? [note] : []),
      ...(restatementNote ? [restatementNote] : []),
      ...((await syntheticData(state.deps.pool)).crimes ? [SYNTHETIC_CRIMES_NOTE] : []),
    ],
    ...(state.understood ? { understood: state.understood } : {}),
    ...(state.verifiedBy ? { verified: `Verified answer: this question's query was checked by ${state.verifiedBy}` } : {}),
    ...(state.plan ? { followUps: suggestFollowUps(state.plan, ctx, state.choices) } : {}),
    ...(resolved
      ? { resolved: { question: resolved, ...(state.plan ? { plan: state.plan, planKey: planKey(state.plan, state.choices) } : {}) } }
      : {}),
  });
  return 'end';
}

/**
 * A fragment the model answered with free SQL comes with the edited question in its words: checked against
 * the query before it is stored, shown or fed to the next turn (restatement.ts). One that does not match is
 * dropped: the thread keeps the question in the words typed, and the answer says so.
 */
async function checkModelRestatement(state: SqlState, result: QueryResult, ctx: PlanContext): Promise<string | undefined> {
  if (!state.fragment || state.plan || !state.resolvedQuestion || !state.sql) return undefined;
  const check = await checkRestatement({
    restated: state.resolvedQuestion,
    sql: state.sql,
    result,
    ctx,
    choices: state.choices,
    run: (sql) => runSql(state.deps.reader ?? state.deps.pool, sql, state.deps.statementTimeoutMs, 1_000),
  });
  if (check.ok) return undefined;
  state.stepNote = `${state.stepNote ? `${state.stepNote}; ` : ''}restatement not used: ${check.why}`;
  state.resolvedQuestion = undefined;
  return "The model's restatement of this follow-up did not match its query, so the question is kept in your words.";
}
