// Feedback that teaches the bot, on real PostgreSQL through the job queue:
// a curator's thumbs-up makes the question and its SQL a verified pair, and
// the same question in other casing and punctuation is then answered with
// that query and says it is verified, and a question like it gets the pair as
// the model's first example; a thumbs-down is listed for curators.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downVotes, recordFeedback } from '../../src/feedback/feedback.js';
import { VerifiedStore } from '../../src/verified/verified-store.js';
import type { Jobs } from '../../src/jobs/runtime.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { testDesk } from '../helpers/desk.js';
import { testJobs } from '../helpers/jobs.js';
import { pollUntil } from '../helpers/wait.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { createLlmClient } from '../../src/llm/client.js';

let db: TestDatabase;
let jobs: Jobs;
let llm: FakeLlm;
let store: VerifiedStore;

/** Asks through the queue as the playground does; the delivery key and the answer. */
async function ask(key: string, text: string) {
  await jobs.queue.enqueue({
    key,
    message: { platform: 'web', threadId: `web:${key}`, channel: 'playground', text },
    action: { type: 'answer' },
    reply: { platform: 'web' },
  });
  return pollUntil(async () => (await jobs.deliveries.get(key))?.answer ?? undefined, 20_000, `the answer to ${key}`);
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  llm = await startFakeLlm();
  store = new VerifiedStore(db.pool);
  const { desk, logger } = testDesk(db, {
    verified: store,
    llm: createLlmClient({ baseUrl: llm.baseUrl, model: 'scripted', maxRetries: 0 }),
  });
  jobs = await testJobs(db, desk, logger);
});
afterAll(async () => {
  await jobs?.stop();
  await llm?.close();
  await db?.drop();
});

describe('feedback', () => {
  it("a curator's thumbs-up makes a verified pair: the same words (any case) get that query, marked verified, without the model", async () => {
    // a question only the model can write SQL for
    llm.script.push(
      { content: JSON.stringify({ sql: "SELECT count(*) AS arrests FROM crimes WHERE arrest AND primary_type = 'NARCOTICS'" }) },
      { content: 'Narcotics arrests counted.' },
    );
    const first = await ask('web:fb:1', 'How often did narcotics cases end in an arrest?');
    expect(first.kind).toBe('result');
    const outsider = await recordFeedback(db.pool, jobs.deliveries, store, {
      deliveryKey: 'web:fb:1',
      platform: 'slack',
      userId: 'U-not-curator',
      verdict: 'up',
      curator: false,
    });
    expect(outsider.promoted).toBeUndefined();
    expect(await store.matchQuestion('how often did narcotics cases end in an arrest')).toBeUndefined();
    const curator = await recordFeedback(db.pool, jobs.deliveries, store, {
      deliveryKey: 'web:fb:1',
      platform: 'slack',
      userId: 'U-curator',
      verdict: 'up',
      curator: true,
    });
    expect(curator.promoted).toMatch(/^\d+$/);
    expect(curator.message).toMatch(/is now a verified question/);
    const requests = llm.requests.length;
    const again = await ask('web:fb:2', 'how often did NARCOTICS cases end in an arrest ??');
    // the SQL came from the pair, not the model (which at most narrates)
    expect(again.trace.find((t) => t.node === 'generate')?.note).toMatch(/^verified pair #\d+$/);
    expect(llm.requests.length - requests).toBeLessThanOrEqual(1);
    expect(again).toMatchObject({
      kind: 'result',
      verified: expect.stringMatching(/^Verified answer: this question's query was checked by slack:U-curator/),
    });
    if (again.kind !== 'result') throw new Error('not a result');
    // the pair keeps the model's count over crimes as written; asked again, it is moved onto a rollup that holds it
    const pair = await db.pool.query(`SELECT sql FROM verified_queries WHERE id = $1`, [curator.promoted]);
    expect(pair.rows[0].sql).toBe("SELECT count(*) AS arrests FROM crimes WHERE arrest AND primary_type = 'NARCOTICS'");
    expect(again.sql[0]).toMatch(
      /^-- answered from crimes_by_\w+ .*\nSELECT coalesce\(sum\(n\), 0\) AS arrests FROM crimes_by_\w+ WHERE arrest AND primary_type = 'NARCOTICS'$/,
    );
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM crimes WHERE arrest AND primary_type = 'NARCOTICS'`);
    expect(again.table!.rows[0][0]).toBe(rows[0].n);

    // a question that resembles it (not the same words) goes to the model with the pair as its first example
    llm.script.push(
      {
        content: JSON.stringify({
          sql: "SELECT count(*) AS arrests FROM crimes WHERE arrest AND primary_type = 'NARCOTICS' AND year = 2019",
        }),
      },
      { content: 'Counted.' },
    );
    const before = llm.requests.length;
    await ask('web:fb:4', 'How often did narcotics cases end in an arrest in 2019?');
    const prompt = llm.requests[before].messages.map((m) => m.content).join('\n');
    expect(prompt).toContain(
      "Q: How often did narcotics cases end in an arrest?\nSQL: SELECT count(*) AS arrests FROM crimes WHERE arrest AND primary_type = 'NARCOTICS'",
    );
  });

  it("a playground 👍 makes the playground's pair: no Slack workspace, Teams tenant or terminal is answered by it", async () => {
    const q = 'How many arson cases ended in an arrest?';
    await ask('web:fb:5', q);
    // the loopback playground's curator, as playground-routes.ts sends it
    const up = await recordFeedback(db.pool, jobs.deliveries, store, {
      deliveryKey: 'web:fb:5',
      platform: 'web',
      userId: 'playground:0123abcd',
      verdict: 'up',
      curator: true,
    });
    expect(up.promoted).toMatch(/^\d+$/);
    const { rows } = await db.pool.query('SELECT workspace, plan_key FROM verified_queries WHERE id = $1', [up.promoted]);
    expect(rows[0].workspace).toBe('web:playground');
    const key = rows[0].plan_key as string;
    expect(await store.matchPlan(key, 'web:playground')).toMatchObject({ id: up.promoted, added_by: 'web:playground:0123abcd' });
    // asked again in the playground (a new thread): verified
    expect(await ask('web:fb:6', 'how many arsons were reported with an arrest')).toMatchObject({
      verified: expect.stringMatching(/checked by web:playground:0123abcd/),
    });
    for (const elsewhere of ['T0SLACK', '72f988bf-86f1-41af-91ab-2d7cd011db47', undefined]) {
      expect(await store.matchPlan(key, elsewhere)).toBeUndefined();
      expect((await store.similar(q, elsewhere, 5, 0)).map((p) => p.id)).not.toContain(up.promoted);
    }
    // only an operator (datadesk verified add) makes a pair for every workspace
    await expect(store.add({ question: q, sql: 'SELECT 1', source: 'feedback' })).rejects.toThrow(/its own workspace only/);
  });

  it('a thumbs-down is stored with the question and SQL and listed for curators; a second click changes the verdict', async () => {
    await ask('web:fb:3', 'How many thefts were reported in 2019?');
    await recordFeedback(db.pool, jobs.deliveries, store, {
      deliveryKey: 'web:fb:3',
      platform: 'web',
      userId: 'someone',
      verdict: 'up',
      curator: false,
    });
    await recordFeedback(db.pool, jobs.deliveries, store, {
      deliveryKey: 'web:fb:3',
      platform: 'web',
      userId: 'someone',
      verdict: 'down',
      curator: false,
    });
    const down = await downVotes(db.pool);
    expect(down.filter((d) => d.question === 'How many thefts were reported in 2019?')).toHaveLength(1);
    expect(down[0].sql).toMatch(/primary_type = 'THEFT'/);
  });
});
