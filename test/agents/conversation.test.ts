// A person who keeps talking in one thread gets the answers a fresh thread
// would give (issue 20): every benchmark question that reads as complete on
// its own is asked fresh and after random histories drawn from the benchmark
// and the follow-up buttons' phrases, and the answers are identical (rows,
// headline, narration, "understood as"). And the resolved plan is the unit of
// feedback: a 👍 on a follow-up vouches for what it answered, never for the
// fragment's words.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../../src/core/paths.js';
import type { Answer } from '../../src/core/answer.js';
import { glossary } from '../../src/knowledge/glossary.js';
import { VerifiedStore } from '../../src/verified/verified-store.js';
import { downVotes, recordFeedback } from '../../src/feedback/feedback.js';
import { readQuestion } from '../../src/plan/reader.js';
import type { Jobs } from '../../src/jobs/runtime.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { testJobs } from '../helpers/jobs.js';
import { pollUntil } from '../helpers/wait.js';

const jsonl = <T>(name: string): T[] => {
  const file = fixturePath('benchmarks', name);
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as T)
    : [];
};
const BENCHMARK = [...jsonl<{ question: string }>('crime-100.jsonl'), ...jsonl<{ question: string }>('crime-chat-40.jsonl')].map(
  (q) => q.question,
);
/** What people type after an answer: the follow-up buttons' phrases and the usual edits. */
const FRAGMENTS = [
  'only arrests',
  'and in 2021?',
  'by month',
  'top 10',
  'compare with 2018',
  'what about burglaries?',
  'by year',
  'in englewood?',
  'citywide',
  'by district instead',
];

/** Every ambiguous term settled by the workspace, so no question stops to ask and histories differ only in what was asked. */
const DEFAULTS = Object.fromEntries(
  glossary()
    .filter((t) => t.options?.length)
    .map((t) => [t.id, t.options![0].id]),
);

/** A small deterministic generator (mulberry32), so a failing history can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What a person compares: the numbers and the words. */
const seen = (a: Answer) =>
  a.kind === 'result'
    ? {
        kind: a.kind,
        headline: a.headline,
        narration: a.narration,
        understood: a.understood,
        rows: a.table?.rows,
        rowCount: a.table?.rowCount,
      }
    : { kind: a.kind, text: a.kind === 'refusal' ? a.reason : a.kind === 'error' ? a.message : a.question };

const data = crimeDatabase(6_000);

describe('a complete question inherits nothing from its thread', () => {
  it('every complete benchmark question gets the same answer fresh and after random histories', async () => {
    const { desk } = testDesk(data.db, { glossaryDefaults: DEFAULTS });
    const ctx = await desk.sql.loadPlanContext();
    // the benchmark's questions are whole questions: every one the reader reads on its own must be answered the same in any thread
    const complete = BENCHMARK.filter((q) => readQuestion(q, ctx).ok);
    expect(complete.length).toBeGreaterThan(60);
    const next = random(20);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
    const differing: string[] = [];
    for (const [i, question] of complete.entries()) {
      const fresh = seen(await desk.answer({ platform: 'cli', threadId: `fresh-${i}`, text: question }));
      const thread = `history-${i}`;
      const history: string[] = [pick(complete)];
      for (let k = 0, n = 1 + Math.floor(next() * 3); k < n; k++) history.push(next() < 0.6 ? pick(FRAGMENTS) : pick(complete));
      for (const h of history) await desk.answer({ platform: 'cli', threadId: thread, text: h });
      const after = seen(await desk.answer({ platform: 'cli', threadId: thread, text: question }));
      if (JSON.stringify(after) !== JSON.stringify(fresh))
        differing.push(
          `${history.join(' / ')} / ${question}\n  fresh: ${JSON.stringify(fresh).slice(0, 200)}\n  after: ${JSON.stringify(after).slice(0, 200)}`,
        );
    }
    expect(differing).toEqual([]);
  }, 240_000);

  it('a fragment edits the last answer and says so in "understood as"', async () => {
    const { desk } = testDesk(data.db);
    const ask = (text: string) => desk.answer({ platform: 'cli', threadId: 'edit', text });
    await ask('How many crimes happened in Englewood in 2022?');
    expect(await ask('only arrests')).toMatchObject({ kind: 'result', understood: ['crimes with an arrest', 'in 2022', 'in Englewood'] });
    // complete: citywide, no arrest filter, whatever came before
    expect(await ask('Compare assaults in 2019 and 2020')).toMatchObject({
      kind: 'result',
      understood: ['assaults', 'in 2020', 'all of Chicago', 'compared with 2019'],
    });
    expect(await ask('Top 5 crime types in 2018')).toMatchObject({
      kind: 'result',
      understood: ['crimes', 'in 2018', 'all of Chicago', 'by crime type', 'top 5'],
    });
  });
});

describe('feedback keeps what was meant', () => {
  let jobs: Jobs;
  let store: VerifiedStore;
  beforeAll(async () => {
    store = new VerifiedStore(data.db.pool);
    const { desk, logger } = testDesk(data.db, { verified: store });
    jobs = await testJobs(data.db, desk, logger);
  });
  afterAll(async () => jobs?.stop());

  const ask = async (key: string, thread: string, text: string) => {
    await jobs.queue.enqueue({
      key,
      message: { platform: 'web', threadId: thread, channel: 'playground', text },
      action: { type: 'answer' },
      reply: { platform: 'web' },
    });
    return pollUntil(async () => (await jobs.deliveries.get(key))?.answer ?? undefined, 20_000, `the answer to ${key}`);
  };

  it('a 👍 on a follow-up verifies the resolved question: the fragment elsewhere is not verified, other words for the same plan are', async () => {
    await ask('c:1', 'web:c-t1', 'How many thefts were reported in 2019?');
    const edited = await ask('c:2', 'web:c-t1', 'compare with 2018');
    expect(edited).toMatchObject({ kind: 'result', resolved: { question: 'How many thefts were reported in 2019 compared with 2018?' } });
    const up = await recordFeedback(data.db.pool, jobs.deliveries, store, {
      deliveryKey: 'c:2',
      platform: 'web',
      userId: 'curator',
      verdict: 'up',
      curator: true,
    });
    expect(up.message).toMatch(/^Thanks: "How many thefts were reported in 2019 compared with 2018\?" is now a verified question/);
    // the same fragment after an unrelated question in a new thread: its own meaning, not verified
    await ask('c:3', 'web:c-t2', 'How many homicides were there in 2020?');
    const elsewhere = await ask('c:4', 'web:c-t2', 'compare with 2018');
    expect(elsewhere).toMatchObject({ kind: 'result', understood: ['homicides', 'in 2020', 'all of Chicago', 'compared with 2018'] });
    expect(elsewhere.kind === 'result' && elsewhere.verified).toBeUndefined();
    // the resolved question in other words, in a thread of its own: verified
    const reworded = await ask('c:5', 'web:c-t3', 'thefts in 2019 vs 2018');
    expect(reworded).toMatchObject({ kind: 'result', verified: expect.stringMatching(/^Verified answer: .*web:curator/) });
    // nothing keeps the fragment's words as a question
    const questions = (await store.list()).map((p) => p.question);
    expect(questions).not.toContain('compare with 2018');
    await recordFeedback(data.db.pool, jobs.deliveries, store, {
      deliveryKey: 'c:4',
      platform: 'web',
      userId: 'someone',
      verdict: 'down',
      curator: false,
    });
    expect((await downVotes(data.db.pool))[0]).toMatchObject({
      question: 'How many homicides were reported in 2020 compared with 2018?',
      asked: 'compare with 2018',
    });
  });

  it("the README's question cannot be hijacked: a combining accent reads as the same plan, and a 👍 keeps the shipped pair", async () => {
    const truth = (await data.db.pool.query(`SELECT count(*)::int AS n FROM crimes WHERE primary_type = 'THEFT' AND year = 2019`)).rows[0]
      .n;
    const accented = await ask('c:8', 'web:c-t6', 'How many thefts\u0301 were reported in 2019?');
    expect(accented).toMatchObject({
      kind: 'result',
      table: { rows: [[truth]] },
      verified: expect.stringMatching(/the examples Data Desk ships with/),
    });
    const up = await recordFeedback(data.db.pool, jobs.deliveries, store, {
      deliveryKey: 'c:8',
      platform: 'web',
      userId: 'attacker',
      verdict: 'up',
      curator: true,
    });
    expect(up.promoted).toBeUndefined();
    expect(up.message).toMatch(/is verified already \(#\d+\); the pair is kept as it is/);
    const again = await ask('c:9', 'web:c-t7', 'How many thefts were reported in 2019?');
    expect(again).toMatchObject({ kind: 'result', table: { rows: [[truth]] } });
  });

  it('a 👍 never replaces a pair: a second curator on the same plan keeps the first', async () => {
    await ask('c:6', 'web:c-t4', 'How many robberies were reported in 2018?');
    const first = await recordFeedback(data.db.pool, jobs.deliveries, store, {
      deliveryKey: 'c:6',
      platform: 'web',
      userId: 'first',
      verdict: 'up',
      curator: true,
    });
    await ask('c:7', 'web:c-t5', 'number of robberies in 2018');
    const second = await recordFeedback(data.db.pool, jobs.deliveries, store, {
      deliveryKey: 'c:7',
      platform: 'web',
      userId: 'second',
      verdict: 'up',
      curator: true,
    });
    expect(second.promoted).toBeUndefined();
    expect(second.message).toMatch(new RegExp(`verified already \\(#${first.promoted}\\)`));
  });
});
