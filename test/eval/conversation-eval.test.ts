import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EDIT_KINDS, evaluateConversations, loadConversations } from '../../src/eval/conversation-eval.js';
import type { Answer } from '../../src/core/answer.js';
import { fixturePath } from '../../src/core/paths.js';
import { checkSql } from '../../src/db/sql-guard.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';

/** The score the offline reader reached on this test's generated data, recorded: a change that answers fewer turns right fails. */
const recorded = JSON.parse(readFileSync(fixturePath('benchmarks', 'conversations-score.json'), 'utf8')) as {
  offline_turns_right_min: number;
};

describe('the conversation benchmark file', () => {
  const conversations = loadConversations();
  const turns = conversations.flatMap((c) => c.turns);

  it('has at least 60 conversations and 250 turns, every edit kind 8 times or more, 16+ ambiguous openings', () => {
    expect(conversations.length).toBeGreaterThanOrEqual(60);
    expect(turns.length).toBeGreaterThanOrEqual(250);
    for (const kind of EDIT_KINDS) expect(turns.filter((t) => t.edit === kind).length, kind).toBeGreaterThanOrEqual(8);
    expect(conversations.filter((c) => c.turns[0].clarify).length).toBeGreaterThanOrEqual(16);
  });

  it('has gold queries written against crimes that pass the SQL guard, never our compiler output', async () => {
    for (const [i, t] of turns.entries()) {
      expect(await checkSql(t.sql), `${i}: ${t.sql}`).toMatchObject({ ok: true });
      // the compiler's own shapes (rollups, its CTE names) would make the gold our answer
      expect(t.sql, t.say).not.toMatch(/crimes_by_|\baxis1\b|\bcounts AS\b/);
    }
  });
});

describe('the conversation benchmark, offline, on generated data', () => {
  const data = crimeDatabase(20_000);

  it(`answers at least ${recorded.offline_turns_right_min} turns right, and every phase is reported`, async () => {
    const { desk, memory } = testDesk(data.db);
    try {
      const report = await evaluateConversations({ desk, pool: data.db.pool, statementTimeoutMs: 10_000 }, loadConversations());
      console.log(report.lines.join('\n'));
      const all = report.byPhase.find((t) => t.name === 'all')!;
      expect(all.turns).toBe(loadConversations().flatMap((c) => c.turns).length);
      expect(all.right).toBeGreaterThanOrEqual(recorded.offline_turns_right_min);
      expect(report.byPhase.map((t) => t.name)).toEqual(['first', 'first, ambiguous', 'follow-up', 'all']);
      for (const t of [...report.byPhase, ...report.byEdit]) expect(t.turns).toBe(t.right + t.wrong + t.refused + t.asked + t.errors);
    } finally {
      await memory.close();
    }
  }, 300_000);

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
