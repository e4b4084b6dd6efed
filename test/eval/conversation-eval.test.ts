import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { CONVERSATION_FILES, conversationFile, evaluateConversations, loadConversations } from '../../src/eval/conversation-eval.js';
import type { Answer } from '../../src/core/answer.js';
import { fixturePath } from '../../src/core/paths.js';
import { checkSql } from '../../src/db/sql-guard.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { tempDir } from '../helpers/files.js';

/** The score the offline reader reached on this test's generated data, recorded per file: a change that answers fewer turns right fails. */
const recorded = (file: string) =>
  (
    JSON.parse(readFileSync(fixturePath('benchmarks', file.replace('.jsonl', '-score.json')), 'utf8')) as {
      offline_turns_right_min: number;
    }
  ).offline_turns_right_min;

/**
 * A held-out set's shape: how many conversations (exactly, or at least), at least how many turns, 3 to 6 turns each,
 * and every edit kind it was written to cover present at least once.
 */
function heldOutSet(file: string, want: { conversations?: number; atLeast?: number; turns?: number; kinds: string[] }) {
  const conversations = loadConversations(conversationFile(file));
  const turns = conversations.flatMap((c) => c.turns);
  if (want.conversations !== undefined) expect(conversations.length).toBe(want.conversations);
  if (want.atLeast !== undefined) expect(conversations.length).toBeGreaterThanOrEqual(want.atLeast);
  expect(turns.length).toBeGreaterThanOrEqual(want.turns ?? 0);
  for (const c of conversations) expect(c.turns.length, c.id).toBeGreaterThanOrEqual(3);
  for (const c of conversations) expect(c.turns.length, c.id).toBeLessThanOrEqual(6);
  for (const kind of want.kinds)
    expect(
      turns.some((t) => t.edit === kind),
      kind,
    ).toBe(true);
  return { conversations, turns };
}

describe('the conversation benchmark files', () => {
  it('the original set: at least 60 conversations and 250 turns, each of its edit kinds 8 times or more, 16+ ambiguous openings', () => {
    const conversations = loadConversations(conversationFile('conversations.jsonl'));
    const turns = conversations.flatMap((c) => c.turns);
    expect(conversations.length).toBeGreaterThanOrEqual(60);
    expect(turns.length).toBeGreaterThanOrEqual(250);
    for (const kind of new Set(turns.map((t) => t.edit)))
      expect(turns.filter((t) => t.edit === kind).length, kind).toBeGreaterThanOrEqual(8);
    expect(conversations.filter((c) => c.turns[0].clarify).length).toBeGreaterThanOrEqual(16);
  });

  it('the held-out set: at least 40 conversations of 3 to 6 turns, comparisons after a count, a series, a ranking and a grouping', () => {
    const { conversations } = heldOutSet('conversations-heldout.jsonl', {
      atLeast: 40,
      kinds: [
        'comparison',
        'comparison_series',
        'comparison_ranking',
        'comparison_grouped',
        'remove_period',
        'remove_filter',
        'share',
        'fewest',
      ],
    });
    // an ambiguous term brought in by a follow-up is asked about there
    expect(conversations.some((c) => c.turns.slice(1).some((t) => t.clarify))).toBe(true);
  });

  it('the second held-out set: 45 conversations of 3 to 6 turns, 190+ turns, every kind of follow-up edit it was written to cover', () => {
    const { turns } = heldOutSet('conversations-heldout2.jsonl', {
      conversations: 45,
      turns: 190,
      kinds: [
        'period',
        'month',
        'relative_period',
        'period_set',
        'type',
        'place',
        'flag',
        'grouping',
        'widen',
        'ranking',
        'fewest',
        'measure',
        'share',
        'remove_period',
        'remove_filter',
        'comparison',
        'comparison_series',
        'comparison_ranking',
        'comparison_grouped',
      ],
    });
    // relative periods are written against the data's last year, never a calendar date
    expect(turns.some((t) => t.sql.includes('(SELECT max(year) FROM crimes)'))).toBe(true);
  });

  it('the third held-out set: 32 conversations of 3 to 6 turns, office sentences and terse fragments, relative periods on the last year', () => {
    const { turns } = heldOutSet('conversations-heldout3.jsonl', {
      conversations: 32,
      turns: 125,
      kinds: [
        'period',
        'relative_period',
        'type',
        'place',
        'flag',
        'grouping',
        'widen',
        'ranking',
        'fewest',
        'measure',
        'remove_period',
        'remove_filter',
        'comparison',
        'comparison_series',
        'comparison_ranking',
      ],
    });
    // both voices: whole casual sentences, and fragments of a word or two
    expect(turns.filter((t) => t.say.split(' ').length >= 6).length).toBeGreaterThanOrEqual(40);
    expect(turns.filter((t) => t.say.split(' ').length <= 2).length).toBeGreaterThanOrEqual(20);
    expect(turns.some((t) => t.sql.includes('(SELECT max(year) FROM crimes)'))).toBe(true);
  });

  it('the fourth held-out set: 28 conversations of 3 to 6 turns in four voices, each kind of follow-up it was written for', () => {
    const { conversations, turns } = heldOutSet('conversations-heldout4.jsonl', {
      conversations: 28,
      turns: 110,
      kinds: [
        'period',
        'month',
        'relative_period',
        'type',
        'place',
        'flag',
        'grouping',
        'ranking',
        'fewest',
        'measure',
        'share',
        'remove_scope',
        'remove_filter',
        'comparison',
        'comparison_series',
        'comparison_grouped',
      ],
    });
    // a journalist, a district analyst, a hurried Slack user and a manager: each writes several threads
    for (const voice of ['journalist', 'district analyst', 'hurried slack', 'manager'])
      expect(conversations.filter((c) => c.title.startsWith(`${voice}:`)).length, voice).toBeGreaterThanOrEqual(6);
    // the hurried user's fragments, all lowercase
    expect(turns.filter((t) => t.say.split(' ').length <= 3 && t.say === t.say.toLowerCase()).length).toBeGreaterThanOrEqual(15);
    // relative periods are written against the data's last year; 'last year' and 'this year' are left out while their reading is settled
    expect(turns.some((t) => t.sql.includes('(SELECT max(year) FROM crimes)'))).toBe(true);
    expect(turns.filter((t) => /\b(last|this) year\b/i.test(t.say))).toEqual([]);
  });

  it('the sixth and seventh held-out sets: 40 threads each in five voices, every kind of edit the writers were asked to cover', () => {
    const kinds = ['period', 'month', 'relative_period', 'type', 'place', 'flag', 'grouping', 'ranking', 'fewest', 'comparison'];
    kinds.push('comparison_series', 'share', 'remove_filter', 'remove_period', 'measure', 'widen');
    heldOutSet('conversations-heldout6.jsonl', { conversations: 40, turns: 170, kinds });
    heldOutSet('conversations-heldout7.jsonl', { conversations: 40, turns: 160, kinds });
  });

  it.each(CONVERSATION_FILES)(
    '%s: gold queries written against crimes that pass the SQL guard, never our compiler output',
    async (file) => {
      for (const [i, t] of loadConversations(conversationFile(file))
        .flatMap((c) => c.turns)
        .entries()) {
        expect(await checkSql(t.sql), `${i}: ${t.sql}`).toMatchObject({ ok: true });
        // the compiler's own shapes (rollups, its CTE names) would make the gold our answer
        expect(t.sql, t.say).not.toMatch(/crimes_by_|\baxis1\b|\bcounts AS\b/);
      }
    },
  );

  it('rejects a clarification on a term the glossary does not have, on any turn', () => {
    const tmp = tempDir();
    try {
      const file = tmp.file('c.jsonl');
      const turn = (say: string, edit: string, extra = {}) => ({ say, edit, sql: 'SELECT 1', ...extra });
      writeFileSync(
        file,
        JSON.stringify({
          id: 'x',
          title: 'x',
          turns: [turn('thefts in 2019', 'first'), turn('at night', 'flag', { clarify: { term: 'night', option: 'noon' } })],
        }) + '\n',
      );
      expect(() => loadConversations(file)).toThrow(/night=noon is not a glossary option/);
    } finally {
      tmp.remove();
    }
  });
});

describe('the conversation benchmarks, offline, on generated data', () => {
  const data = crimeDatabase(20_000);

  it.each(CONVERSATION_FILES)(
    '%s: answers at least its recorded turns right, and every phase is reported',
    async (file) => {
      const { desk, memory } = testDesk(data.db);
      try {
        const conversations = loadConversations(conversationFile(file));
        const report = await evaluateConversations({ desk, pool: data.db.pool, statementTimeoutMs: 10_000 }, conversations);
        console.log(`${file}\n${report.lines.join('\n')}`);
        const all = report.byPhase.find((t) => t.name === 'all')!;
        expect(all.turns).toBe(conversations.flatMap((c) => c.turns).length);
        expect(all.right).toBeGreaterThanOrEqual(recorded(file));
        expect(report.byPhase.map((t) => t.name)).toEqual(['first', 'first, ambiguous', 'follow-up, ambiguous', 'follow-up', 'all']);
        for (const t of [...report.byPhase, ...report.byEdit]) expect(t.turns).toBe(t.right + t.wrong + t.refused + t.asked + t.errors);
      } finally {
        await memory.close();
      }
    },
    300_000,
  );

  it('judges an answer that ignores the edit (the last answer again) as wrong', async () => {
    const { desk, memory } = testDesk(data.db);
    let previous: Answer | undefined;
    // a bot that answers every follow-up with its previous answer: stale SQL shown as the edit
    const stale = {
      answer: async (m: Parameters<typeof desk.answer>[0]) => {
        const fresh = await desk.answer(m);
        const shown = previous && m.threadId === staleThread ? previous : fresh;
        previous = fresh;
        staleThread = m.threadId;
        return shown;
      },
      choose: desk.choose.bind(desk),
    };
    let staleThread = '';
    try {
      const some = loadConversations().slice(0, 12);
      const report = await evaluateConversations({ desk: stale, pool: data.db.pool, statementTimeoutMs: 10_000 }, some);
      const followUps = report.byPhase.find((t) => t.name === 'follow-up')!;
      // most edits change the rows: a stale answer is caught (a few edits leave the numbers as they were)
      expect(followUps.wrong).toBeGreaterThan(followUps.turns * 0.7);
    } finally {
      await memory.close();
    }
  }, 120_000);
});
