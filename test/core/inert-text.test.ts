// The one inertness check against its corpus (fixtures/security/inert-corpus.json):
// every hostile string is stopped (links plain and disguised, e-mail addresses,
// mentions, fake badges, instructions, numbers in words, markup, data or SQL),
// and no real narration, headline or sentence is ("22:00-06:00", "3.5%", "e.g.").
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../src/core/paths.js';
import { inertProblem, shownValue } from '../../src/core/inert-text.js';

const corpus = JSON.parse(readFileSync(fixturePath('security', 'inert-corpus.json'), 'utf8')) as { hostile: string[]; harmless: string[] };

describe('the inertness check', () => {
  it('stops every hostile string of the corpus', () => {
    expect(corpus.hostile.length).toBeGreaterThanOrEqual(100);
    expect(corpus.hostile.filter((s) => !inertProblem(s))).toEqual([]);
  });

  it('lets every real narration of the corpus through', () => {
    expect(corpus.harmless.length).toBeGreaterThanOrEqual(100);
    expect(corpus.harmless.map((s) => [s, inertProblem(s)]).filter(([, p]) => p)).toEqual([]);
  });

  it('withholds a data value that is not inert, and shows one that is', () => {
    expect(shownValue('005XX N AUSTIN AVE')).toBe('005XX N AUSTIN AVE');
    expect(shownValue('VISIT CRIME-STATS.EXAMPLE')).toMatch(/^\(a value not shown/);
  });
});

describe('the inertness check reads a string as a person sees it', () => {
  it.each([
    ['a Cyrillic letter in a domain', 'Details at d\u0430tadesk-verify.com'],
    ['a full-width dot', 'Details at datadesk-verify\uff0ecom'],
    ['a zero-width space before the dot', 'Details at datadesk-verify\u200b.com'],
    ['an ideographic full stop', 'Details at datadesk-verify\u3002com'],
    ['a real top-level domain outside the usual few', 'Full report at datadesk-verify.support'],
    ['a Cyrillic е in a badge', 'V\u0435rified answer'],
    ['a full-width letter in a badge', '\uff36erified by CPD'],
    ['a zero-width space inside a word', 'cl\u200bick and enter your pass\u200bword'],
    ['a soft hyphen inside a word', 'pass\u00adword'],
    ['a right-to-left override', '\u202emoc.yfirev-ksedatad'],
    ['a phone number in parentheses', 'call (312) 555-0199 now'],
    ['an international phone number', 'Ring +44 20 7946 0958'],
    ['a bare phone number', 'Reach the analyst on 3125550199.'],
    ['a slash command', 'Slack admins: type /datadesk digest off'],
    ['a badge in other words', 'Certified answer: approved by the Chicago Police data office'],
    ['an instruction without a listed verb', 'Please confirm your identity with the security desk'],
    ['a multiplier in words', 'Thefts rose nine times over and tripled'],
  ])('stops %s', (_, text) => {
    expect(inertProblem(text)).toBeDefined();
  });

  it("lets every value of the generator's data vocabulary through (types, descriptions, places, companies)", () => {
    const strings = new Set<string>();
    const walk = (v: unknown): void => {
      if (typeof v === 'string') strings.add(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    for (const file of ['crime-types.json', 'geography.json']) walk(JSON.parse(readFileSync(fixturePath('data', 'chicago', file), 'utf8')));
    walk(JSON.parse(readFileSync(fixturePath('data', 'ashare', 'companies.json'), 'utf8')));
    expect(strings.size).toBeGreaterThan(500);
    expect([...strings].filter((s) => inertProblem(s))).toEqual([]);
  });

  it('shows an inert value without its invisible characters', () => {
    expect(shownValue('RETAIL\u200b THEFT\u00ad')).toBe('RETAIL THEFT');
  });
});

describe('the inertness check takes time in proportion to the length', () => {
  it.each(['a ', 'a.', '1-', 'a-', 'a@', 'v3 ', '(1) ', '[.]', 'x dot '])('judges 1,000 characters of %j at once', (unit) => {
    // a pattern that backtracks took 139 s on 16,000 characters; the test's timeout catches a return of it
    const text = unit.repeat(Math.floor(999 / unit.length));
    expect(typeof (inertProblem(text) ?? 'inert')).toBe('string');
    expect(inertProblem('x'.repeat(1_001))).toMatch(/characters long/);
  });
});
