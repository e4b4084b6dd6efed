// Every example on the help page (fixtures/help/backtest-rule-syntax.md) is a
// command that reads: a trader copies a line and changes the ticker, so a line
// that does not parse would be the first thing they meet.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRuleSyntax } from '../../src/backtest/rule-syntax.js';
import { checkSpec } from '../../src/backtest/spec.js';
import { readRankingOptions } from '../../src/agents/backtest/ranking-options.js';

const page = readFileSync(new URL('../../fixtures/help/backtest-rule-syntax.md', import.meta.url), 'utf8');
const examples = [...page.matchAll(/^• `([^`]+)`/gm)].map((m) => m[1]).filter((line) => !line.startsWith('rerun'));

describe('the backtest help page', () => {
  it('has examples for every task, portfolios and exits included', () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(examples.some((e) => e.startsWith('portfolio '))).toBe(true);
    expect(examples.some((e) => /\bstop: \d+%/.test(e))).toBe(true);
  });

  it.each(examples)('reads %s', (line) => {
    const { text } = readRankingOptions(line);
    const { spec } = parseRuleSyntax(text);
    expect(checkSpec(spec)).toEqual([]);
  });
});
