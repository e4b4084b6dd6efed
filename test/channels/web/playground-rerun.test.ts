// "Re-run" in the playground (issue 36, part 5), through its HTTP API: a plan
// answer comes with the Re-run value Slack's button carries (core/rerun.ts);
// the page posts it back to /api/ask and gets a new answer with "Re-run on …
// (was …)" first among its notes. A value that is not a re-run's is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { playgroundRoutes } from '../../../src/channels/web/playground-routes.js';
import { decodeRerun } from '../../../src/core/rerun.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { testJobs } from '../../helpers/jobs.js';

let db: TestDatabase;
let jobs: Jobs;
let url: string;
const servers: RunningServer[] = [];
const THREAD = 'c0ffee00'.repeat(4);
const today = () => new Date().toISOString().slice(0, 10);

type Page = { answer: { kind: string; headline?: string; notes?: string[] }; rerun: string | null };

async function ask(body: Record<string, unknown>): Promise<{ status: number; page?: Page; error?: string }> {
  const res = await fetch(`${url}/api/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ thread: THREAD, ...body }),
  });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, error: (JSON.parse(text) as { error: string }).error };
  return { status: 200, page: JSON.parse(/^event: answer\ndata: (.*)$/m.exec(text)![1]) as Page };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 3_000);
  const { desk, logger } = testDesk(db);
  jobs = await testJobs(db, desk, logger);
  const route = playgroundRoutes({
    queue: jobs.queue,
    deliveries: jobs.deliveries,
    events: jobs.events,
    charts: new ChartStore(),
    logger,
    access: { host: '127.0.0.1', allowedHosts: [], perMinute: 100 },
  });
  const server = await startHttpServer('127.0.0.1', 0, [route], logger);
  servers.push(server);
  url = server.url;
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await jobs?.stop();
  await db?.drop();
});

describe('Re-run in the playground', () => {
  it('a plan answer carries the Re-run value; posting it back answers the plan again with what changed since', async () => {
    const first = (await ask({ text: 'How many thefts were reported in 2018?' })).page!;
    expect(first.answer.kind).toBe('result');
    const value = decodeRerun(first.rerun!)!;
    const figure = /: ([\d,]+)$/.exec(first.answer.headline!)![1];
    expect(value.baseline).toMatchObject({ figures: [figure], rows: 1, on: today() });

    const again = (await ask({ text: 'Re-run on today’s data', rerun: first.rerun })).page!;
    expect(again.answer.headline).toBe(first.answer.headline);
    expect(again.answer.notes![0]).toBe(`Re-run on ${today()}: ${figure} (was ${figure} on ${today()}: no change, the same data).`);
    // the re-run's own answer can be re-run in turn
    expect(decodeRerun(again.rerun!)).toBeTruthy();

    // an answer of weeks ago, 9 fewer then and before the last rows were loaded: the note says what changed and why
    const n = Number(figure.replace(/,/g, ''));
    const old = JSON.stringify({
      p: value.plan,
      b: { ...value.baseline, figures: [(n - 9).toLocaleString('en-US')], on: '2020-01-02', through: '2019-12-20' },
    });
    const later = (await ask({ text: 'Re-run on today’s data', rerun: old })).page!;
    expect(later.answer.notes![0]).toMatch(
      new RegExp(`^Re-run on ${today()}: ${figure} \\(was ${(n - 9).toLocaleString('en-US')} on 2020-01-02: \\+9, new rows loaded since`),
    );
  });

  it('no Re-run under answers without a plan (help, a backtest), and a value that is not a re-run’s is refused', async () => {
    expect((await ask({ text: '/backtest help' })).page!.rerun).toBeNull();
    const refused = await ask({ text: 'Re-run on today’s data', rerun: '{"p":[1]}' });
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/^rerun must be the value of an answer's Re-run button/);
    expect((await ask({ text: 'Re-run on today’s data', rerun: 42 })).status).toBe(400);
  });
});
