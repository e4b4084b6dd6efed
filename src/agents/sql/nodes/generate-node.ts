// Node 3, generate. First the query plan: the text is read in its thread (a
// question complete on its own, or a fragment that edits the last answer's
// plan), its glossary terms are settled (or asked about), and our compiler
// writes the SQL; a plan a curator vouched for says so. Only what the plan
// cannot say goes on: a free-SQL pair vouched for in these words (complete
// questions only), else the model (a plan of its own or one SELECT), else,
// with no model, an honest refusal that says what was read.
import { makeAnswer } from '../../../core/answer.js';
import { LlmError } from '../../../llm/client.js';
import { isAmbiguous, termsIn } from '../../../knowledge/glossary.js';
import { applyChoice, askAbout, chosenOption } from '../glossary-choices.js';
import { generateWithLlm } from '../generate.js';
import type { SqlNodeName, SqlState } from '../state.js';
import { adoptPlan, lastAnswerPlan, narrationContext, planFromWords, planTerms, unreadRefusal } from '../plan-path.js';
import { planKey } from '../../../plan/plan-key.js';
import { narrationProblem } from '../inert-narration.js';
import { checkPlan } from '../plan-check.js';
import { modelChangeNote } from '../model-reading.js';

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

/** Who vouched for a pair, as the answer says it. */
const voucher = (pair: { source: string; added_by: string | null }) =>
  pair.source === 'fixture' ? 'the examples Data Desk ships with' : (pair.added_by ?? 'a curator');

/** A compiled plan is our own SQL; a curator's 👍 on the same plan (any wording, any thread) makes it verified. */
async function usePlan(state: SqlState, sql: string, note: string): Promise<'validate'> {
  state.stepNote = note;
  state.candidate = state.ownSql = sql;
  const pair = state.plan ? await state.deps.verified?.matchPlan(planKey(state.plan, state.choices), state.workspace) : undefined;
  if (pair) {
    state.verifiedBy = voucher(pair);
    state.stepNote = `${note}; verified pair #${pair.id}`;
  }
  return 'validate';
}

export async function generateNode(state: SqlState): Promise<SqlNodeName | 'end'> {
  if (state.attempt === 0) {
    const outcome = await planFromWords(state, await state.loadPlanContext());
    if (outcome.kind === 'asked' || outcome.kind === 'told') return 'end';
    if (outcome.kind === 'compiled') {
      state.attempt = 1;
      return usePlan(state, outcome.sql, 'offline: query plan');
    }
    state.unread = outcome;
    // a free-SQL pair someone vouched for, asked in the same words; never for a fragment, whose words mean nothing alone
    const pair = state.fragment ? undefined : await state.deps.verified?.matchQuestion(state.question, state.workspace);
    if (pair) {
      state.attempt = 1;
      state.stepNote = `verified pair #${pair.id}`;
      state.candidate = pair.sql;
      state.resolvedQuestion = pair.question;
      state.verifiedBy = voucher(pair);
      return 'validate';
    }
    if (!(await settleTerms(state, Boolean(state.deps.llm)))) return 'end';
  }
  state.attempt++;
  state.progress?.(state.attempt === 1 ? 'Writing the query' : `Rewriting the query (attempt ${state.attempt})`);
  const { deps, schema } = state;
  if (!deps.llm || state.llmUnavailable) {
    state.answer = state.unread
      ? unreadRefusal(state, state.unread, 'No LLM is configured, and the rest needs one.')
      : makeAnswer({
          kind: 'refusal',
          route: 'sql',
          trace: state.trace,
          reason: 'No LLM is configured, and this question needs one.',
          alternatives: ['Configure an LLM (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL) for free-form questions'],
        });
    return 'end';
  }
  const ctx = await state.loadPlanContext();
  const edits = state.fragment ? state.thread.history.at(-1) : undefined;
  let generated;
  try {
    generated = await generateWithLlm(deps.llm, {
      question: state.question,
      schema: schema!,
      choices: state.choices,
      edits,
      previous: state.previous,
      readContext: ctx,
      dataFrom: ctx.earliestDate,
      dataTo: ctx.latestDate,
      curated: await deps.verified?.similar(state.question, state.workspace),
    });
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    state.llmUnavailable = true;
    throw error;
  }
  state.tokens += generated.tokens;
  state.stepTokens = generated.tokens;
  if (generated.answer.kind === 'plan') {
    // the model filled the plan: its values are checked like a person's words, our compiler writes the SQL, our narrator tells it
    const checked = checkPlan(generated.answer.plan, schema);
    if (!checked.ok) {
      state.answer = unreadRefusal(
        state,
        {
          kind: 'unread',
          understood: state.unread?.understood ?? [],
          unplaced: [],
          suggestion: 'Name the crime type as the data does, e.g. "thefts" or "motor vehicle thefts"',
        },
        `The model read it into a query I cannot run: ${checked.problem}.`,
      );
      return 'end';
    }
    const outcome = await adoptPlan(state, checked.plan, planTerms(checked.plan), ctx);
    if (outcome.kind === 'unread') state.answer = unreadRefusal(state, outcome, 'The model read it into a query I cannot run that way.');
    if (outcome.kind !== 'compiled') return 'end';
    // what the reader was sure of is the person's: a model that changed it is said so
    const last = state.fragment ? lastAnswerPlan(state.thread.history) : undefined;
    if (!state.givenPlan && (!state.fragment || last))
      state.modelChanged = modelChangeNote(state.question, last ?? undefined, outcome.plan, ctx, narrationContext(ctx, state.choices));
    return usePlan(state, outcome.sql, `attempt ${state.attempt}: llm: query plan`);
  }
  // a fragment answered with the edited answer's own query is no edit: never shown as one
  const editedSql = edits?.sql;
  if (state.fragment && editedSql && sameQuery(editedSql, generated.answer.sql)) {
    state.answer = unreadRefusal(
      state,
      {
        kind: 'unread',
        understood: state.unread?.understood ?? [],
        unplaced: [state.question],
        suggestion: 'Ask it as one whole question',
      },
      "The model gave the last answer's query again, unchanged, so this would not be the edit you asked for.",
    );
    return 'end';
  }
  state.stepNote = `attempt ${state.attempt}: llm: free SQL`;
  state.plan = state.understood = state.ownSql = undefined;
  // the question this SQL answers, in full words: as asked, or for a fragment as the model restated it (if inert)
  const restated = generated.answer.question;
  state.resolvedQuestion = !state.fragment ? state.question : restated && !narrationProblem(restated) ? restated : undefined;
  state.candidate = generated.answer.sql;
  return 'validate';
}

/** Two queries the same but for spacing, case outside literals and a trailing semicolon. */
function sameQuery(a: string, b: string): boolean {
  const norm = (q: string) =>
    q
      .replace(/;\s*$/, '')
      .split(/('(?:[^']|'')*')/)
      .map((part, i) => (i % 2 ? part : part.replace(/\s+/g, ' ').toLowerCase()))
      .join('')
      .trim();
  return norm(a) === norm(b);
}
