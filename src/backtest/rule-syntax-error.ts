/** A rule-syntax command that does not read: what is wrong, and where in the input. */
export class RuleSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly position: number,
    readonly input: string,
  ) {
    super(`${detail} (at position ${position}: "${input.slice(Math.max(0, position - 1), position + 24).trim()}")`);
    this.name = 'RuleSyntaxError';
  }
}
