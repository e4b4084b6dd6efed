import { describe, expect, it } from 'vitest';
import { BLOCKS_PER_MESSAGE, SECTION_LIMIT, chunkText, renderAnswerMessages } from '../../../src/channels/slack/render-blocks.js';
import { makeAnswer } from '../../../src/core/answer.js';

const textsOf = (blocks: Record<string, unknown>[]) => blocks.map((b) => (b.text as { text?: string } | undefined)?.text ?? '');

describe('Block Kit rendering within Slack limits', () => {
  it('splits long text at line ends into sections of at most 3,000 characters', () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');
    const pieces = chunkText(long, SECTION_LIMIT);
    expect(pieces.every((p) => p.length <= SECTION_LIMIT)).toBe(true);
    expect(pieces.join('\n')).toBe(long);
  });

  it('never sends a section over 3,000 characters or a message over 50 blocks', () => {
    const narration = Array.from({ length: 8_000 }, (_, i) => `Sentence ${i} about the data.`).join('\n');
    const answer = makeAnswer({
      kind: 'result',
      route: 'sql',
      trace: [],
      headline: 'A long answer',
      narration,
      sql: ['SELECT 1'],
      assumptions: [],
      notes: [],
      table: { columns: ['a'], rows: [[1]], rowCount: 1, truncated: false },
    });
    const messages = renderAnswerMessages(answer);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(m.blocks.length).toBeLessThanOrEqual(BLOCKS_PER_MESSAGE);
      for (const t of textsOf(m.blocks)) expect(t.length).toBeLessThanOrEqual(SECTION_LIMIT);
    }
    expect(messages[1].text).toBe('A long answer (continued)');
    // with feedback buttons, they are on the first message (the one the answer is known by), still within 50 blocks
    const rated = renderAnswerMessages(answer, { feedback: true });
    expect(rated[0].blocks.length).toBeLessThanOrEqual(BLOCKS_PER_MESSAGE);
    expect(rated[0].blocks.at(-1)!.type).toBe('context_actions');
    expect(rated.slice(1).some((m) => m.blocks.some((b) => b.type === 'context_actions'))).toBe(false);
    expect(rated.flatMap((m) => m.blocks).length).toBe(messages.flatMap((m) => m.blocks).length + 1);
  });

  it('the narration is a markdown block (its data kept as text); classic blocks and a long narration keep mrkdwn sections', () => {
    const answer = (narration: string) =>
      makeAnswer({
        kind: 'result',
        route: 'sql',
        trace: [],
        headline: 'Thefts in 2019',
        narration: `Thefts in 2019. ${narration}`,
        sql: ['SELECT 1'],
        assumptions: [],
        notes: [],
      });
    const hostile = 'Most were at [0000X W MADISON ST](https://evil.example) *on* @channel <@U1>.';
    const [native] = renderAnswerMessages(answer(hostile));
    const markdown = native.blocks.find((b) => b.type === 'markdown')!;
    expect(markdown.text).toBe('Most were at \\[0000X W MADISON ST\\](https:\u2060//evil.example) \\*on\\* @\u2060channel \\<@U1\\>.');
    // the headline stays the bold section a stream replaces with its streamed headline
    expect(native.blocks.find((b) => b.block_id === 'headline')!.type).toBe('section');
    const [classic] = renderAnswerMessages(answer(hostile), { classic: true });
    expect(classic.blocks.some((b) => b.type === 'markdown')).toBe(false);
    expect(textsOf(classic.blocks)).toContain('Most were at [0000X W MADISON ST](https://evil.example) *on* @channel &lt;@U1&gt;.');
    const [long] = renderAnswerMessages(answer('x '.repeat(4_000)));
    expect(long.blocks.some((b) => b.type === 'markdown')).toBe(false);
  });

  it('shortens long SQL with a button for the full text, and escapes &, < and >', () => {
    const sql = Array.from({ length: 20 }, (_, i) => `  AND x${i} < 5`).join('\n');
    const [m] = renderAnswerMessages(
      makeAnswer({ kind: 'result', route: 'sql', trace: [], headline: 'h', narration: 'h', sql: [sql], assumptions: [], notes: [] }),
    );
    const json = JSON.stringify(m.blocks);
    expect(json).toContain('x7 &lt; 5');
    expect(json).not.toContain('x8 &lt; 5\\n');
    expect(json).toContain('"action_id":"show_sql"');
    expect(json).toContain('Full SQL (20 lines)');
  });

  it('SQL longer than a button can carry (2,000 characters) is shown whole, in as many sections as it takes, with no button', () => {
    const sql = Array.from({ length: 12 }, (_, i) => `  AND column_${i} IN (${'1, '.repeat(100)}1)`).join('\n');
    expect(sql.length).toBeGreaterThan(2_000);
    const [m] = renderAnswerMessages(
      makeAnswer({ kind: 'result', route: 'sql', trace: [], headline: 'h', narration: 'h', sql: [sql], assumptions: [], notes: [] }),
    );
    expect(JSON.stringify(m.blocks)).not.toContain('show_sql');
    const code = textsOf(m.blocks)
      .filter((t) => t.startsWith('```'))
      .map((t) => t.slice(3, -3));
    expect(code.join('\n')).toBe(sql);
  });

  it('cuts escaped text only between entities: a cap never leaves "&am"', () => {
    const [m] = renderAnswerMessages(
      makeAnswer({ kind: 'error', route: 'sql', trace: [], message: `${'x'.repeat(2_997)}&&&&`, retryable: false }),
    );
    expect(m.text).toBe(`${'x'.repeat(2_997)}…`);
    const pieces = chunkText(`${'y'.repeat(2_998)}&amp;&amp;`, SECTION_LIMIT);
    expect(pieces).toEqual([`${'y'.repeat(2_998)}`, '&amp;&amp;']);
  });

  it('renders a clarifying question as buttons carrying the term and option', () => {
    const [m] = renderAnswerMessages(
      makeAnswer({
        kind: 'clarify',
        route: 'sql',
        trace: [],
        term: 'night',
        question: 'What counts as night?',
        options: [
          { id: '22-06', label: '22:00-06:00' },
          { id: '20-06', label: '20:00-06:00' },
        ],
      }),
    );
    const actions = m.blocks.find((b) => b.type === 'actions') as unknown as { elements: { action_id: string; value: string }[] };
    expect(actions.elements.map((e) => [e.action_id, JSON.parse(e.value)])).toEqual([
      ['clarify:22-06', { term: 'night', option: '22-06' }],
      ['clarify:20-06', { term: 'night', option: '20-06' }],
    ]);
  });
});

// What an attacker can put in the data (a crime description), the question or
// the model's narration: Slack's link and mention syntax, and words Slack would
// otherwise turn into mentions and links by itself.
const HOSTILE = '<!channel> <http://evil.example|click here> <@U0123> & @here #general http://evil.example [click](http://evil.example)';
const ESCAPED =
  '&lt;!channel&gt; &lt;http://evil.example|click here&gt; &lt;@U0123&gt; &amp; @here #general http://evil.example [click](http://evil.example)';

/** Every mrkdwn text object in the blocks. */
function mrkdwnTexts(node: unknown): { text: string; verbatim?: boolean }[] {
  if (Array.isArray(node)) return node.flatMap(mrkdwnTexts);
  if (!node || typeof node !== 'object') return [];
  const o = node as Record<string, unknown>;
  const own = o.type === 'mrkdwn' ? [o as { text: string; verbatim?: boolean }] : [];
  return [...own, ...Object.values(o).flatMap(mrkdwnTexts)];
}

describe('data, user and model text stays inert in Slack', () => {
  const answers = [
    makeAnswer({
      kind: 'result',
      route: 'sql',
      trace: [],
      headline: `Top: ${HOSTILE}`,
      narration: `Top: ${HOSTILE}\nMore: ${HOSTILE}`,
      sql: ['SELECT 1'],
      assumptions: [HOSTILE],
      notes: [HOSTILE],
      freshness: HOSTILE,
      table: {
        columns: ['description', HOSTILE],
        rows: [
          [HOSTILE, 1],
          ['``` closes the block? ' + HOSTILE, 2],
        ],
        rowCount: 2,
        truncated: false,
      },
      extraTables: [{ title: HOSTILE, table: { columns: ['a'], rows: [[HOSTILE]], rowCount: 1, truncated: false } }],
    }),
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
    makeAnswer({ kind: 'error', route: 'sql', trace: [], message: HOSTILE, retryable: false }),
  ];

  it.each(answers.map((a) => [a.kind, a] as const))(
    '%s: &, < and > escaped everywhere, the notification text included; Slack does not link or mention by itself',
    (_kind, answer) => {
      for (const m of renderAnswerMessages(answer)) {
        const texts = [m.text, ...mrkdwnTexts(m.blocks).map((t) => t.text)];
        for (const t of texts) {
          expect(t).not.toMatch(/<[!@#a-z]/i);
          expect(t).not.toMatch(/&(?!amp;|lt;|gt;)/);
        }
        expect(texts.join('\n')).toContain(ESCAPED);
        expect(mrkdwnTexts(m.blocks).length).toBeGreaterThan(0);
        for (const t of mrkdwnTexts(m.blocks)) expect(t.verbatim).toBe(true);
      }
    },
  );

  it('a table cell in a data_table is plain text, shown as written (raw_text: no mrkdwn, no mentions)', () => {
    const [m] = renderAnswerMessages(answers[0]);
    const table = m.blocks.find((b) => b.type === 'data_table') as { rows: { type: string; text: string }[][] } | undefined;
    expect(table).toBeDefined();
    const cells = table!.rows.flat();
    expect(cells.every((c) => c.type === 'raw_text' || c.type === 'raw_number')).toBe(true);
    expect(cells.some((c) => c.text.includes('closes the block?') && c.text.includes('```'))).toBe(true);
  });

  it("a cell with ``` cannot end the table's code block early (classic blocks)", () => {
    const [m] = renderAnswerMessages(answers[0], { classic: true });
    const code = mrkdwnTexts(m.blocks)
      .map((t) => t.text)
      .filter((t) => t.startsWith('```'));
    expect(code.length).toBeGreaterThan(0);
    for (const t of code) expect(t.slice(3, -3)).not.toContain('```');
    expect(code[0]).toContain('`\u200B`\u200B` closes the block?');
  });
});
