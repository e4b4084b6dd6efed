// The rule syntax's help (fixtures/help): the page of examples that /backtest help shows, and the one line of the
// right form shown after a syntax error (the part the error is in, else the whole request's form).
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../core/paths.js';

export const RULE_SYNTAX_HELP = readFileSync(fixturePath('help', 'backtest-rule-syntax.md'), 'utf8').trim();

const FORMS = JSON.parse(readFileSync(fixturePath('help', 'backtest-rule-forms.json'), 'utf8')) as {
  request: string;
  parts: Record<string, string>;
};

/** The whole request's form in one line. */
export const RULE_SYNTAX_FORM = FORMS.request;

const KEY = /\b(buy|sell|kpi|capital|sizing|costs|slippage|walk-?forward):|\b(strategy)\s+[A-Za-z0-9_]+/gi;

/** One line of the right form for an error at `position` (1-based) of `input`. */
export function ruleFormAt(input: string, position: number, detail: string): string {
  let key: string | undefined;
  for (const m of input.slice(0, Math.max(0, position - 1)).matchAll(KEY))
    key = (m[1] ?? m[2]).toLowerCase().replace('walkforward', 'walk-forward');
  if (!key && /\b(date|window)\b/.test(detail)) key = 'window';
  return (key && FORMS.parts[key]) ?? FORMS.request;
}
