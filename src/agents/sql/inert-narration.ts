// What a model's narration may not carry into a channel. A model steered by
// text in the question or in the data (a crime description is anyone's to
// write) put "<!channel> [Click here to verify your account](http://…)" into
// answers. A narration with a link, a mention, markup that changes meaning or
// an instruction to the reader is not shown, nor a reply that is JSON or SQL
// instead of sentences (a confused model echoing its other task): the
// deterministic one is.

const LINK_OR_MENTION = /https?:\/\/|\bwww\.|\]\(|<[!@#][^>]*>|<[^>|]+\|[^>]*>|(^|\s)@(channel|here|everyone|[A-Za-z0-9_.-]+\b)/i;
const MARKUP = /[*_~`]{2,}|^\s*[#>]|<\/?[a-z][^>]*>/im;
/** A JSON object or array, or a query: a model that answered the narration prompt with data or SQL, not sentences. */
const NOT_PROSE = /^\s*[{[]|\bselect\b[\s\S]*\bfrom\b/i;
const INSTRUCTION = /\b(click|tap|log ?in|sign ?in|re-?authenticate|verify (your|the) account|password|credentials|visit|go to|contact (us|support)|call us|download|install)\b/i;

/** The longest narration shown; a model's filler beyond it is no answer. */
export const NARRATION_MAX_CHARS = 1_200;

/** Why the narration cannot be shown, or undefined when it can. */
export function narrationProblem(text: string): string | undefined {
  const t = text.trim();
  if (!t) return 'it was empty';
  if (t.length > NARRATION_MAX_CHARS) return `it was ${t.length.toLocaleString('en-US')} characters long (at most ${NARRATION_MAX_CHARS.toLocaleString('en-US')})`;
  if (LINK_OR_MENTION.test(t)) return 'it contained a link or a mention';
  if (MARKUP.test(t)) return 'it contained markup';
  if (INSTRUCTION.test(t)) return 'it told the reader to do something';
  if (NOT_PROSE.test(t)) return 'it was data or SQL, not sentences';
  return undefined;
}
