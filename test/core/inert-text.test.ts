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
