// The rule syntax's help text (fixtures/help), shown by /backtest help and
// after a syntax error.
import { readFileSync } from 'node:fs';
import { fixturePath } from '../../core/paths.js';

export const RULE_SYNTAX_HELP = readFileSync(fixturePath('help', 'backtest-rule-syntax.md'), 'utf8').trim();
