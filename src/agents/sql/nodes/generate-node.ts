// Node 3, generate: first the clarifications (an ambiguous term with no choice
// in the thread or the workspace defaults ends the graph with a question),
// then one SELECT — from the LLM, or, without one (or with the LLM down on the
// first attempt), from a verified query that covers the question exactly.
import { makeAnswer } from '../../../core/answer.js';
import { LlmError } from '../../../llm/client.js';
import { isAmbiguous, termsIn } from '../../../knowledge/glossary.js';
import { applyChoice, askAbout, chosenOption } from '../glossary-choices.js';
import { generateOffline, generateWithLlm } from '../generate.js';
import type { SqlNodeName, SqlState } from '../state.js';
import { adoptPlan, planFromWords, planTerms, unreadRefusal } from '../plan-path.js';

/**
 * Settles every ambiguous term of the question; false when the user must be asked first. Asking is only
 * worth it when an answer can follow (a model is configured): offline, a question the reader could not
 * read would be asked about and then refused, the worst outcome there is.
 */
async function settleTerms(state: SqlState, mayAsk: boolean): Promise<boolean> {
  for (const term of termsIn(state.question).filter(isAmbiguous)) {
    const chosen = chosenOption(state, term.id);
    if (chosen) applyChoice(state, term.id, chosen);
    else if (mayAsk) {
      await askAbout(state, term);
      return false;
    }
  }
  return true;
}

export async function generateNode(state: SqlState): Promise<SqlNodeName | 'end'> {
  if (state.attempt === 0) {
    // a question someone vouched for, in the same words: its query, as verified (it runs as the reader, like model SQL)
    const pair = await state.deps.verified?.match(state.question);
    if (pair) {
      state.attempt = 1;
      state.stepNote = `verified pair #${pair.id}`;
      state.candidate = pair.sql;
      state.verifiedBy = pair.source === 'fixture' ? 'the examples Data Desk ships with' : pair.added_by ?? 'a curator';
      return 'validate';
    }
    // then the query plan: exact, no model; a model only for what the plan cannot say
    const outcome = await planFromWords(state, await state.loadPlanContext());
    if (outcome.kind === 'asked') return 'end';
    if (outcome.kind === 'compiled') {
      state.attempt = 1;
      state.stepNote = 'offline: query plan';
      state.candidate = state.ownSql = outcome.sql;
      return 'validate';
    }
    state.unread = outcome;
    if (!(await settleTerms(state, Boolean(state.deps.llm)))) return 'end';
  }
  state.attempt++;
  state.progress?.(state.attempt === 1 ? 'Writing the query' : `Rewriting the query (attempt ${state.attempt})`);
  const { deps, schema } = state;
  let llmDown: LlmError | undefined;
  if (deps.llm && !state.llmUnavailable) {
    try {
      const ctx = await state.loadPlanContext();
      const generated = await generateWithLlm(deps.llm, {
        question: state.question, schema: schema!, choices: state.choices, history: state.thread.history, previous: state.previous,
        dataFrom: ctx.earliestDate, dataTo: ctx.latestDate, curated: await deps.verified?.similar(state.question),
      });
      state.tokens += generated.tokens;
      state.stepTokens = generated.tokens;
      if (generated.answer.kind === 'plan') {
        // the model filled the plan: our compiler writes the SQL, and our narrator tells it
        const outcome = await adoptPlan(state, generated.answer.plan, planTerms(generated.answer.plan), ctx);
        if (outcome.kind === 'unread') state.answer = unreadRefusal(state, outcome, 'The model read it into a query I cannot run that way.');
        if (outcome.kind !== 'compiled') return 'end';
        state.stepNote = `attempt ${state.attempt}: llm: query plan`;
        state.candidate = state.ownSql = outcome.sql;
        return 'validate';
      }
      state.stepNote = `attempt ${state.attempt}: llm: free SQL`;
      state.plan = state.understood = state.ownSql = undefined;
      state.candidate = generated.answer.sql;
      return 'validate';
    } catch (error) {
      if (!(error instanceof LlmError) || state.attempt > 1) throw error;
      llmDown = error;
      state.llmUnavailable = true;
    }
  }
  state.stepNote = 'offline: verified queries';
  const offline = generateOffline(state.question, schema!, state.choices, state.thread.history);
  if ('reason' in offline) {
    if (llmDown) throw llmDown;
    state.answer = state.unread
      ? unreadRefusal(state, state.unread, 'No LLM is configured, and the rest needs one.')
      : makeAnswer({
        kind: 'refusal', route: 'sql', trace: state.trace,
        reason: `No LLM is configured, and this question needs one: ${offline.reason}.`,
        alternatives: ['Configure an LLM (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL) for free-form questions'],
      });
    return 'end';
  }
  if (llmDown) state.assumptions.push(`the LLM was unavailable (${llmDown.message}); answered from a verified query`);
  state.assumptions.push(...offline.assumptions);
  state.offline = offline;
  state.candidate = state.ownSql = offline.sql;
  return 'validate';
}
