// Node 6, synthesize: a plan's answer is told from the plan; a free-SQL
// result from our facts over all its rows, of which the LLM only picks the ones
// that answer the question (it writes no sentence a person reads). The thread
// remembers the question and its SQL for follow-ups.
import { makeAnswer, WHOLE_TABLE_ROWS } from '../../../core/answer.js';
import { describeError } from '../../../core/errors.js';
import { chooseChart } from '../../../charts/choose-chart.js';
import { renderPrompt } from '../../../llm/prompts.js';
import { humanize, TIME_COLUMN } from '../../../core/result-shape.js';
import type { QueryResult } from '../../../core/result-shape.js';
import type { SqlState } from '../state.js';
import { suggestFollowUps } from '../../../plan/follow-ups.js';
import { syntheticData, SYNTHETIC_CRIMES_NOTE } from '../../../db/freshness.js';
import { narratePlan } from '../../../plan/narrate.js';
import { wholeResultFacts } from '../narration-facts.js';
import { defaultFacts, resultFacts, tellFacts } from '../result-facts.js';
import { ordersRows } from '../../../db/sql-order.js';
import { z } from 'zod';
import { lastAnswerPlan, narrationContext } from '../plan-path.js';
import { planKey } from '../../../plan/plan-key.js';
import { shownResult, shownValue } from '../../../core/inert-text.js';
import { groupFacts } from '../../../plan/facts.js';
import type { QueryPlan } from '../../../plan/query-plan.js';
import { queryPool } from './query-pool.js';
import { measure, measureSync } from '../../../core/answer-cost.js';
import { checkRestatement, literalCheck } from '../restatement.js';
import { readerEdit, readerPartial } from '../model-reading.js';
import { resolvedQuestion } from '../../../plan/read/describe.js';
import { runSql } from '../execute.js';
import type { PlanContext } from '../plan-types.js';
import { checkSql } from '../../../db/sql-guard.js';

/** The relations a query reads (its FROM, through CTEs and subqueries), as the guard parsed them; [] if it cannot say. */
async function tablesRead(sql: string): Promise<string[]> {
  try {
    const verdict = await checkSql(sql);
    return verdict.ok ? verdict.tables : [];
  } catch {
    return [];
  }
}

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

/** The model's reply to the narration prompt: the ids of the facts that answer the question, most important first. */
const FactPick = z.object({ facts: z.array(z.string().max(40)).min(1).max(8) });
/** The most facts told of one result. */
const MOST_FACTS = 4;

/**
 * The narration of a free-SQL result. The model writes none of it: it picks which of our facts (result-facts.ts,
 * numbers from the database over every row) answer the question, and in what order; we tell them. With no model,
 * or a pick that names no fact, the shape of the result picks.
 */
async function narration(state: SqlState, result: QueryResult): Promise<{ text: string; note?: string }> {
  const facts = resultFacts(result, { whole: await factsOverAll(state, result), ordered: await ordersRows(state.sql!) });
  const plain = tellFacts(defaultFacts(facts));
  const llm = state.deps.llm;
  if (!llm || facts.length <= 1) return { text: plain };
  try {
    const { value, usage } = await llm.chatJson({
      system: 'You choose which computed facts answer a question. You never write sentences.',
      user: renderPrompt('sql-narrate', { question: state.question, facts: facts.map((f) => `${f.id}: ${f.sentence}`).join('\n') }),
      schema: FactPick,
    });
    state.tokens += usage.promptTokens + usage.completionTokens;
    state.stepTokens = usage.promptTokens + usage.completionTokens;
    const picked = [...new Set(value.facts)].flatMap((id) => facts.filter((f) => f.id === id)).slice(0, MOST_FACTS);
    if (!picked.length) return { text: plain, note: 'the LLM picked none of the computed facts; the deterministic narration is shown' };
    return { text: tellFacts(picked) };
  } catch (error) {
    return { text: plain, note: `the LLM narration failed (${describeError(error)}); deterministic narration used` };
  }
}

export async function synthesizeNode(state: SqlState): Promise<'end'> {
  state.progress?.('Writing the answer');
  // names and cells a model or the data wrote are shown only when inert: in the narration, the table and the chart
  const result = shownResult(state.result!);
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
  const ctx = await state.loadPlanContext();
  const told = state.plan
    ? measureSync('narration', () => narratePlan(state.plan!, result, narrationContext(ctx, state.choices), facts))
    : undefined;
  const { text, note } = told ? { text: told.narration, note: undefined } : await measure('narration', () => narration(state, result));
  if (note) state.stepNote = note;
  const restatementNote = (await checkModelRestatement(state, state.result!, ctx)) ?? freeSqlChangeNote(state, ctx);
  const resolved = state.resolvedQuestion ?? (state.fragment ? undefined : state.question);
  await state.deps.memory.update(state.threadId, (s) => {
    s.pending = undefined;
    // a free-SQL answer to a fragment the model did not restate: kept in the words typed after the question it edited
    const question = resolved ?? `${s.history.at(-1)?.question ?? ''} (then: ${state.question})`.trim();
    s.history.push({
      question,
      ...(question !== state.question ? { asked: state.question } : {}),
      // the model is shown crimes: a follow-up edits the query it wrote, not the one moved onto a rollup
      sql: state.asWritten ?? state.sql,
      ...(state.plan ? { plan: state.plan } : {}),
    });
  });
  // a short result (an axis of 24 hours, 12 months, 22 districts) is kept whole, so no channel cuts it
  const display = result.rowCount <= WHOLE_TABLE_ROWS ? Math.max(state.deps.displayRows, result.rowCount) : state.deps.displayRows;
  state.answer = makeAnswer({
    kind: 'result',
    route: 'sql',
    trace: state.trace,
    // a free-SQL narration's facts ("Incidents: 12.") do not say what was counted, so the question it answered, in full
    // words (the asker's, or a restatement read back into ours), heads it
    headline: told?.headline ?? clip(shownValue(resolved ?? state.question)),
    narration: text,
    sql: [state.sql!],
    table: {
      columns: result.columns.map(humanize),
      // years, months and hours are labels: as text, so no renderer formats them as quantities
      rows: result.rows
        .slice(0, display)
        .map((row) => row.map((c, i) => (typeof c === 'number' && TIME_COLUMN.test(result.columns[i]) ? String(c) : c))),
      rowCount: result.rowCount,
      truncated: result.rowCount > display,
    },
    // the groups with none are all 0: a list, not a chart
    chart: state.plan?.none ? undefined : chooseChart(result, clip(told?.headline ?? state.question)),
    assumptions: state.assumptions,
    notes: [
      ...(note ? [note] : []),
      ...(state.modelChanged ? [state.modelChanged] : []),
      ...(restatementNote ? [restatementNote] : []),
      ...((await syntheticData(state.deps.pool)).crimes ? [SYNTHETIC_CRIMES_NOTE] : []),
    ],
    ...(state.understood ? { understood: state.understood } : {}),
    ...(state.verifiedBy ? { verified: `Verified answer: this question's query was checked by ${state.verifiedBy}` } : {}),
    ...(state.plan ? { followUps: measureSync('compiling', () => suggestFollowUps(state.plan!, ctx, state.choices)) } : {}),
    ...(resolved
      ? {
          resolved: {
            question: resolved,
            ...(state.plan ? { plan: state.plan, planKey: planKey(state.plan, state.choices) } : {}),
            ...(state.asWritten ? { sql: state.asWritten } : {}),
          },
        }
      : {}),
    sources: {
      ...(resolved ? { question: shownValue(resolved) } : {}),
      ...(state.understood?.length ? { understood: state.understood } : {}),
      sql: state.sql!,
      tables: await tablesRead(state.sql!),
      freshness: `crimes through ${ctx.latestDate}`,
      rowsReturned: result.rowCount,
      ranOn: new Date().toISOString().slice(0, 10),
    },
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
  if (check.ok && check.words) {
    state.resolvedQuestion = check.words;
    return undefined;
  }
  if (check.ok) {
    // the years and types match, but the reader cannot say it in our words: the model's are not shown
    state.resolvedQuestion = undefined;
    return undefined;
  }
  state.stepNote = `${state.stepNote ? `${state.stepNote}; ` : ''}restatement not used: ${check.why}`;
  state.resolvedQuestion = undefined;
  // the why is ours (years, months and crime types as the data and the query write them), never the model's words
  return `The model's restatement of this follow-up did not match its query (${check.why}), so the question is kept in your words.`;
}

/**
 * A question the model answered with free SQL (words the plan cannot say, "with a getaway car") must still read what
 * the reader read in the person's words (the month, the crime type), in our words for the reader's reading: for a
 * fragment its edit of the last plan (both ways: the slots it kept are the person's too), for a question on its own
 * the part it placed (one way: the query may pin what the words left open). A query for May when the person said
 * April is said so, with or without a restatement from the model.
 */
function freeSqlChangeNote(state: SqlState, ctx: PlanContext): string | undefined {
  if (state.plan || !state.sql) return undefined;
  const last = state.fragment ? lastAnswerPlan(state.thread.history) : undefined;
  const read = state.fragment ? last && readerEdit(state.question, last, ctx) : readerPartial(state.question, ctx);
  if (!read) return undefined;
  const sql = state.asWritten ?? state.sql;
  const check = literalCheck({ restated: resolvedQuestion(read, ctx), sql, ctx }, 'what I read in your words', Boolean(state.fragment));
  if (check.ok) return undefined;
  state.stepNote = `${state.stepNote ? `${state.stepNote}; ` : ''}the query differs from the reading: ${check.why}`;
  return `The model's query differs from what I read in your words (${check.why}). Check that this is the question you meant.`;
}
