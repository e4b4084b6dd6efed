import { describe, expect, it } from 'vitest';
import { BLOCKS_PER_MESSAGE, SECTION_LIMIT, chunkText, renderAnswerMessages } from '../../../src/channels/slack/render-blocks.js';
import { makeAnswer } from '../../../src/core/answer.js';

const textsOf = (blocks: Record<string, unknown>[]) => blocks.map((b) => ((b.text as { text?: string } | undefined)?.text ?? ''));

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
      kind: 'result', route: 'sql', trace: [], headline: 'A long answer', narration, sql: ['SELECT 1'], assumptions: [], notes: [],
      table: { columns: ['a'], rows: [[1]], rowCount: 1, truncated: false },
    });
    const messages = renderAnswerMessages(answer);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) {
      expect(m.blocks.length).toBeLessThanOrEqual(BLOCKS_PER_MESSAGE);
      for (const t of textsOf(m.blocks)) expect(t.length).toBeLessThanOrEqual(SECTION_LIMIT);
    }
    expect(messages[1].text).toBe('A long answer (continued)');
  });

  it('shortens long SQL with a button for the full text, and escapes &, < and >', () => {
    const sql = Array.from({ length: 20 }, (_, i) => `  AND x${i} < 5`).join('\n');
    const [m] = renderAnswerMessages(makeAnswer({ kind: 'result', route: 'sql', trace: [], headline: 'h', narration: 'h', sql: [sql], assumptions: [], notes: [] }));
    const json = JSON.stringify(m.blocks);
    expect(json).toContain('x7 &lt; 5');
    expect(json).not.toContain('x8 &lt; 5\\n');
    expect(json).toContain('"action_id":"show_sql"');
    expect(json).toContain('Full SQL (20 lines)');
  });

  it('renders a clarifying question as buttons carrying the term and option', () => {
    const [m] = renderAnswerMessages(makeAnswer({
      kind: 'clarify', route: 'sql', trace: [], term: 'night', question: 'What counts as night?',
      options: [{ id: '22-06', label: '22:00-06:00' }, { id: '20-06', label: '20:00-06:00' }],
    }));
    const actions = m.blocks.find((b) => b.type === 'actions') as unknown as { elements: { action_id: string; value: string }[] };
    expect(actions.elements.map((e) => [e.action_id, JSON.parse(e.value)])).toEqual([
      ['clarify:22-06', { term: 'night', option: '22-06' }],
      ['clarify:20-06', { term: 'night', option: '20-06' }],
    ]);
  });
});
