// Adaptive Cards: text from the data, the user or the model never becomes a
// link, in the card or in the message text above it.
import { describe, expect, it } from 'vitest';
import { answerCard, answerSummary, CARD_BYTES_LIMIT, inertMarkdown } from '../../../src/channels/teams/render-card.js';
import { makeAnswer, type Answer } from '../../../src/core/answer.js';
import { answerMessageEntity, citationCard, citedSource } from '../../../src/channels/teams/citation.js';

const HOSTILE = '[click here](http://evil.example) **urgent** <a href="http://evil.example">x</a> _x_ [ref][1]\n\n[1]: javascript:alert(1)';

type Node = Record<string, unknown>;
/** Every object in the card, depth first. */
function nodes(node: unknown): Node[] {
  if (Array.isArray(node)) return node.flatMap(nodes);
  if (!node || typeof node !== 'object') return [];
  return [node as Node, ...Object.values(node).flatMap(nodes)];
}

const result = makeAnswer({
  kind: 'result',
  route: 'sql',
  trace: [],
  headline: HOSTILE,
  narration: `${HOSTILE} and more: ${HOSTILE}`,
  sql: ['SELECT 1'],
  assumptions: [HOSTILE],
  notes: [HOSTILE],
  freshness: HOSTILE,
  table: { columns: ['description', HOSTILE], rows: [[HOSTILE, 1]], rowCount: 1, truncated: false },
  extraTables: [{ title: HOSTILE, table: { columns: ['a'], rows: [[HOSTILE]], rowCount: 1, truncated: false } }],
});
const answers = [
  result,
  makeAnswer({
    kind: 'clarify',
    route: 'sql',
    trace: [],
    term: 'night',
    question: HOSTILE,
    options: [
      { id: 'a', label: 'A', description: HOSTILE },
      { id: 'b', label: 'B' },
    ],
  }),
  makeAnswer({ kind: 'refusal', route: 'reject', trace: [], reason: HOSTILE, alternatives: [HOSTILE] }),
  makeAnswer({ kind: 'error', route: 'sql', trace: [], message: HOSTILE, retryable: true }),
];

describe('Adaptive Card text is plain text', () => {
  it.each(answers.map((a) => [a.kind, a] as const))(
    '%s: no markdown TextBlock anywhere; the text is shown exactly as written',
    (_kind, answer) => {
      const all = nodes(answerCard(answer));
      expect(all.filter((n) => n.type === 'TextBlock')).toEqual([]);
      const runs = all.filter((n) => n.type === 'TextRun').map((n) => n.text as string);
      expect(runs.some((t) => t.includes(HOSTILE))).toBe(true);
      // a TextRun has no markdown: the only things with a url in the card are the bot's own
      expect(all.filter((n) => 'url' in n || 'selectAction' in n)).toEqual([]);
    },
  );

  it('keeps the table, its cells in TextRuns, and the run and block styles', () => {
    const all = nodes(answerCard(result));
    const table = all.find((n) => n.type === 'Table') as { rows: { cells: { items: Node[] }[] }[] };
    expect(table.rows[1].cells[0].items[0]).toEqual({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: HOSTILE }] });
    expect(table.rows[0].cells[1].items[0]).toEqual({
      type: 'RichTextBlock',
      inlines: [{ type: 'TextRun', text: HOSTILE, weight: 'Bolder' }],
    });
    expect(all).toContainEqual({
      type: 'RichTextBlock',
      inlines: [{ type: 'TextRun', text: '1 of 1 rows', size: 'Small', isSubtle: true }],
      spacing: 'None',
    });
  });
});

describe('the message text above the card', () => {
  it.each(answers.map((a) => [a.kind, a] as const))(
    '%s: link, tag, definition and URL syntax broken by invisible characters only',
    (_kind, answer) => {
      const summary = answerSummary(answer);
      expect(summary).not.toMatch(/\]\(|\]:|<[a-z/!?]|:\/\//i);
      expect(summary.replaceAll('\u200B', '')).toBe(HOSTILE);
    },
  );

  it('leaves ordinary text alone', () => {
    expect(inertMarkdown('Thefts: 1,234 (up 5% from 2018) <= 2019 [approx]')).toBe('Thefts: 1,234 (up 5% from 2018) <= 2019 [approx]');
  });
});

describe('a card Teams would refuse for its size', () => {
  it('leaves out the last extra tables until it fits, and says which', () => {
    const wide = (title: string) => ({
      title,
      table: {
        columns: Array.from({ length: 8 }, (_, i) => `column ${i}`),
        rows: Array.from({ length: 10 }, (_, r) => Array.from({ length: 8 }, (_, c) => `value ${r}.${c}`)),
        rowCount: 10,
        truncated: false,
      },
    });
    const base = {
      kind: 'result' as const,
      route: 'backtest' as const,
      trace: [],
      headline: 'Best pair',
      narration: 'Best pair.',
      sql: ['SELECT 1'],
      assumptions: [],
      notes: [],
    };
    const big = makeAnswer({ ...base, extraTables: ['Grid', 'Costs', 'Trades', 'Market'].map(wide) });
    const card = answerCard(big);
    expect(Buffer.byteLength(JSON.stringify(card))).toBeLessThanOrEqual(CARD_BYTES_LIMIT);
    const texts = nodes(card)
      .filter((n) => n.type === 'TextRun')
      .map((n) => n.text);
    expect(texts).toContain('Grid');
    expect(texts).not.toContain('Market');
    const note = texts.find((t) => String(t).startsWith('Left out to fit in a Teams message: '));
    expect(note).toMatch(/Market\.$/);
    // a card that fits keeps everything, with no note
    const small = answerCard(makeAnswer({ ...base, extraTables: [wide('Grid')] }));
    expect(nodes(small).some((n) => String(n.text).startsWith('Left out'))).toBe(false);
  });
});

describe("an answer's citation (Teams' AI citations)", () => {
  const base = {
    kind: 'result' as const,
    route: 'sql' as const,
    trace: [],
    headline: 'Thefts in 2019: 2,239 [2]',
    narration: 'Thefts in 2019: 2,239.',
    sql: ['WITH t AS (SELECT * FROM crimes_by_month) SELECT sum(n) FROM t JOIN areas a ON true'],
    assumptions: [],
    notes: [],
    freshness: 'crimes through 2025-09-30',
    resolved: { question: 'How many thefts were reported in 2019?' },
  };

  it('the text and the headline say [1] only when the message carries the citation; the answer\'s own "[2]" refers to nothing', () => {
    const answer = makeAnswer(base);
    expect(answerSummary(answer)).toBe('Thefts in 2019: 2,239 [2]');
    expect(answerSummary(answer, true)).toBe('Thefts in 2019: 2,239 [\u200B2] [1]');
    const runs = (extras: { citation?: boolean }) =>
      nodes(answerCard(answer, undefined, extras))
        .filter((n) => n.type === 'TextRun')
        .map((n) => n.text);
    expect(runs({})).not.toContain(' [1]');
    expect(runs({ citation: true })).toContain(' [1]');
    // nothing to cite (help, a refusal): no mark
    const help = makeAnswer({ ...base, route: 'help', sql: [] });
    expect(answerSummary(help, true)).toBe('Thefts in 2019: 2,239 [2]');
    expect(nodes(answerCard(help, undefined, { citation: true })).some((n) => n.text === ' [1]')).toBe(false);
  });

  it('without `sources`, the claim has the resolved question, the SQL, the tables it read (not its CTEs) and the freshness', () => {
    const source = citedSource(makeAnswer(base))!;
    expect(source).toMatchObject({
      question: 'How many thefts were reported in 2019?',
      sql: base.sql,
      tables: ['areas', 'crimes_by_month'],
      freshness: 'crimes through 2025-09-30',
    });
    const entity = answerMessageEntity(makeAnswer(base)) as unknown as {
      additionalType: string[];
      citation: { appearance: Record<string, string> }[];
    };
    expect(entity.additionalType).toEqual(['AIGeneratedContent']);
    expect(entity.citation[0].appearance.abstract).toBe(
      'How many thefts were reported in 2019? · Ran on areas, crimes_by_month · data: crimes through 2025-09-30',
    );
    expect(entity.citation[0].appearance.text).toContain('FROM crimes_by_month');
  });

  it("with the answer's `sources`, the claim is theirs: the tables the guard parsed, the rows, the day it ran", () => {
    const answer = {
      ...makeAnswer(base),
      sources: {
        question: 'How many thefts were reported in 2019?',
        sql: 'SELECT count(*) FROM crimes',
        tables: ['crimes'],
        freshness: 'crimes through 2025-09-30',
        rowsReturned: 1,
        ranOn: '2025-10-01',
      },
    } as Answer;
    const source = citedSource(answer)!;
    expect(source).toMatchObject({ sql: ['SELECT count(*) FROM crimes'], tables: ['crimes'], rows: 1, ranOn: '2025-10-01' });
    const text = JSON.stringify(citationCard(source));
    expect(text).toContain('crimes (2025-10-01)');
    expect(text).toContain('1 row');
  });
});
