// The thread's glossary choices, shared by the plan path and the model path:
// what a term means here (the thread's click, else the workspace default), how
// the answer's footer says it, and the clarifying question when nothing is chosen.
import { makeAnswer } from '../../core/answer.js';
import { glossary, option, type GlossaryTerm } from '../../knowledge/glossary.js';
import type { SqlState } from './state.js';

export const glossaryTerm = (id: string): GlossaryTerm => glossary().find((t) => t.id === id)!;

/** The option a term means in this thread, if one was chosen here or by the workspace. */
export function chosenOption(state: SqlState, termId: string): string | undefined {
  return state.thread.clarifications[termId] ?? state.deps.glossaryDefaults[termId];
}

/** "night: 22:00-06:00", with "(workspace default)" when the thread did not choose it itself. */
function assumptionFor(state: SqlState, termId: string, optionId: string): string {
  return `${glossaryTerm(termId).label}: ${option(termId, optionId)!.label}${state.thread.clarifications[termId] ? '' : ' (workspace default)'}`;
}

/** Records the term as chosen for this answer and says so in the footer. */
export function applyChoice(state: SqlState, termId: string, optionId: string): void {
  state.choices[termId] = optionId;
  const said = assumptionFor(state, termId, optionId);
  if (!state.assumptions.includes(said)) state.assumptions.push(said);
}

/** Ends the answer with the clarifying question; the waiting question is kept for the click. */
export async function askAbout(state: SqlState, term: GlossaryTerm): Promise<void> {
  await state.deps.memory.update(state.threadId, (s) => (s.pending = { question: state.question, term: term.id }));
  state.answer = makeAnswer({
    kind: 'clarify',
    route: 'sql',
    trace: state.trace,
    term: term.id,
    termLabel: term.label,
    question: term.question ?? `What does "${term.label}" mean here?`,
    options: term.options!.map((o) => ({ id: o.id, label: o.label, description: o.description })),
  });
}
