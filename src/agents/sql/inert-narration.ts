// What a model's narration may not carry into a channel: the one inertness
// check (src/core/inert-text.ts), and a length cap. A model steered by text in
// the question or in the data put "<!channel> [Click here to verify your
// account](http://…)" into answers; such a narration is not shown, the
// deterministic one is.
import { inertProblem } from '../../core/inert-text.js';

/** The longest narration shown; a model's filler beyond it is no answer. */
const NARRATION_MAX_CHARS = 1_200;

/** Why the narration cannot be shown, or undefined when it can. */
export function narrationProblem(text: string): string | undefined {
  const t = text.trim();
  if (!t) return 'it was empty';
  if (t.length > NARRATION_MAX_CHARS)
    return `it was ${t.length.toLocaleString('en-US')} characters long (at most ${NARRATION_MAX_CHARS.toLocaleString('en-US')})`;
  return inertProblem(t);
}
