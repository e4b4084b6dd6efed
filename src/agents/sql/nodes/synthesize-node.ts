// Node 6, synthesize: the LLM narrates the rows, every number of its text
// checked against them; the deterministic narrator speaks when there is no LLM,
// when it fails, or when its numbers do not check out. The thread remembers
// the question and its SQL for follow-ups.
import { makeAnswer } from '../../../core/answer.js';
import { describeError } from '../../../core/errors.js';
import { chooseChart } from '../../../charts/choose-chart.js';
import { renderPrompt } from '../../../llm/prompts.js';
import { humanize, narrate, TIME_COLUMN, uncheckedNumbers } from '../narrator.js';
import type { QueryResult } from '../execute.js';
import type { SqlState } from '../state.js';
import { suggestFollowUps } from '../../../plan/follow-ups.js';
import { syntheticData, SYNTHETIC_CRIMES_NOTE } from '../../../db/freshness.js';
import { narratePlan } from '../../../plan/narrate.js';
import { narrationProblem } from '../inert-narration.js';
import { narrationFacts } from '../narration-facts.js';
import { narrationContext } from '../plan-path.js';

const clip = (title: string) => (title.length > 80 ? `${title.slice(0, 77)}...` : title);

async function narration(state: SqlState, result: QueryResult): Promise<{ text: string; note?: string }> {
  const plain = narrate(result);
  const llm = state.deps.llm;
  if (!llm || result.rowCount === 0) return { text: plain };
  try {
    const { text, usage } = await llm.chatText({
      system: 'You report query results faithfully and briefly.',
      user: renderPrompt('sql-narrate', {
        question: state.question, columns: result.columns.join(', '), rows: narrationFacts(result),
      }),
    });
    state.tokens += usage.promptTokens + usage.completionTokens;
    state.stepTokens = usage.promptTokens + usage.completionTokens;
    const problem = narrationProblem(text);
    if (problem) return { text: plain, note: `the LLM narration was not shown (${problem}); deterministic narration used` };
    const bad = uncheckedNumbers(text, result, state.question);
    if (bad.length) return { text: plain, note: `the LLM narration used numbers not in the result (${bad.join(', ')}); replaced by the deterministic one` };
    return { text: text.trim() };
  } catch (error) {
    return { text: plain, note: `the LLM narration failed (${describeError(error)}); deterministic narration used` };
  }
}

export async function synthesizeNode(state: SqlState): Promise<'end'> {
  state.progress?.('Writing the answer');
  const result = state.result!;
  // a plan's answer is told from the plan: exact, no model
  const told = state.plan ? narratePlan(state.plan, result, narrationContext(await state.loadPlanContext(), state.choices)) : undefined;
  const { text, note } = told ? { text: told.narration, note: undefined } : await narration(state, result);
  if (note) state.stepNote = note;
  const offline = state.offline;
  await state.deps.memory.update(state.threadId, (s) => {
    s.pending = undefined;
    s.history.push({
      question: state.question, sql: state.sql, ...(state.plan ? { plan: state.plan } : {}),
      ...(offline ? { verifiedId: offline.verifiedId, slots: offline.slots, basis: offline.basis } : {}),
    });
  });
  const display = state.deps.displayRows;
  state.answer = makeAnswer({
    kind: 'result', route: 'sql', trace: state.trace,
    headline: told?.headline ?? text.split(/(?<=\.)\s/)[0],
    narration: text,
    sql: [state.sql!],
    table: {
      columns: result.columns.map(humanize),
      // years, months and hours are labels: as text, so no renderer formats them as quantities
      rows: result.rows.slice(0, display).map((row) => row.map((c, i) => (typeof c === 'number' && TIME_COLUMN.test(result.columns[i]) ? String(c) : c))),
      rowCount: result.rowCount,
      truncated: result.rowCount > display,
    },
    chart: chooseChart(result, clip(told?.headline ?? state.question)),
    assumptions: state.assumptions,
    notes: [...(note ? [note] : []), ...((await syntheticData(state.deps.pool)).crimes ? [SYNTHETIC_CRIMES_NOTE] : [])],
    ...(state.understood ? { understood: state.understood } : {}),
    ...(state.verifiedBy ? { verified: `Verified answer: this question's query was checked by ${state.verifiedBy}` } : {}),
    ...(state.plan ? { followUps: suggestFollowUps(state.plan, Number((await state.loadPlanContext()).earliestDate.slice(0, 4))) } : {}),
  });
  return 'end';
}
