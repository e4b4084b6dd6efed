// The inertness check on a big table: its verdicts are cached (per string, and
// per distinct cell of a table), and a cache must never let through what the
// check stops. Every hostile string of the corpus, repeated down a table with
// more distinct values than the shared cache once held, is withheld in every
// row it appears in; every harmless one is shown in every row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../../src/core/paths.js';
import { inertProblem, shownResult } from '../../src/core/inert-text.js';
import { skeleton, withoutInvisibles } from '../../src/core/text-skeleton.js';

const corpus = JSON.parse(readFileSync(fixturePath('security', 'inert-corpus.json'), 'utf8')) as { hostile: string[]; harmless: string[] };
const WITHHELD = /a value not shown/;

describe('the inertness check on a big table', () => {
  // 6,000 distinct company names, then the corpus down the note column, three times over
  const rows = Array.from({ length: 6_000 }, (_, i) => {
    const all = [...corpus.hostile, ...corpus.harmless];
    return [String(600000 + i), `Company ${i} Co., Ltd.`, i / 7, all[i % all.length]];
  });
  const shown = shownResult({ columns: ['code', 'name', 'sharpe', 'note'], rows });

  it('withholds a hostile cell in every row it repeats in', () => {
    const hostile = new Set(corpus.hostile);
    let withheld = 0;
    rows.forEach((row, i) => {
      if (!hostile.has(row[3] as string)) return;
      expect(shown.rows[i][3], `row ${i}: ${JSON.stringify(row[3])}`).toMatch(WITHHELD);
      withheld++;
    });
    // every hostile string appears more than once, so the repeats were served from the caches
    expect(withheld).toBeGreaterThanOrEqual(corpus.hostile.length * 2);
  });

  it('shows a harmless cell, and the names and numbers, in every row', () => {
    const harmless = new Set(corpus.harmless);
    rows.forEach((row, i) => {
      if (harmless.has(row[3] as string)) expect(shown.rows[i][3]).toBe(withoutInvisibles(row[3] as string));
      expect(shown.rows[i].slice(0, 3)).toEqual(row.slice(0, 3));
    });
  });

  it('gives a hostile string the same verdict on its first and its later readings', () => {
    for (const text of corpus.hostile) {
      const first = inertProblem(text);
      expect(first, JSON.stringify(text)).toBeDefined();
      expect(inertProblem(text)).toBe(first);
    }
  });

  it('reads an ASCII string as its own skeleton, and folds look-alikes as before', () => {
    for (let c = 0; c < 128; c++) expect(skeleton(`a${String.fromCharCode(c)}b`)).toBe(`a${String.fromCharCode(c)}b`);
    expect(skeleton('еvil．com')).toBe('evil.com');
    expect(skeleton('ｗｗｗ')).toBe('www');
  });
});
