// Exports on their own budget (issue 21), over real HTTP on real PostgreSQL:
// the Teams link route answers only under this deployment's names and a few
// times a minute per address, a link at most 5 times an hour and an address 20;
// exports run at most N at once and one a person
// ("busy, try again", never "the database is unavailable"); a download whose
// client goes away stops its query at once instead of running to the timeout.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { makeAnswer } from '../../src/core/answer.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { ExportGate } from '../../src/export/export-gate.js';
import { DownloadLimits } from '../../src/export/download-limits.js';
import type { Deliveries } from '../../src/jobs/deliveries.js';
import { exportRoutes } from '../../src/server/export-routes.js';
import { startHttpServer, type RunningServer } from '../../src/server/http-server.js';
import { crimeDatabase } from '../helpers/crime-data.js';
import { pollUntil } from '../helpers/wait.js';

const data = crimeDatabase(3_000);
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A slow query (pairs of later crimes counted per crime) behind one token, a quick one behind another. */
const SLOW = 'SELECT a.id, (SELECT count(*) FROM crimes b, crimes c WHERE b.id > a.id AND c.id > b.id) AS later FROM crimes a';
const answerOf = (sql: string) =>
  makeAnswer({
    kind: 'result',
    route: 'sql',
    trace: [],
    headline: 'Rows',
    narration: 'Rows',
    sql: [sql],
    assumptions: [],
    notes: [],
    table: { columns: ['x'], rows: [[1]], rowCount: 1, truncated: false },
  });
const QUICK = 'SELECT id FROM crimes ORDER BY id LIMIT 5';
const TOKENS: Record<string, string> = {
  ['a'.repeat(32)]: SLOW,
  ...Object.fromEntries(['b', 'c', 'd', 'e', 'f', '1'].map((c) => [c.repeat(32), QUICK])),
};
const deliveries = {
  byExportToken: async (t: string) => (TOKENS[t] ? { answer: answerOf(TOKENS[t]) } : undefined),
} as unknown as Deliveries;

async function serve(gate = new ExportGate({ total: 1, perUser: 1 }), perMinute = 100, downloads?: DownloadLimits) {
  const logger = createMemoryLogger();
  const route = exportRoutes(deliveries, { pool: data.db.reader!.pool, rowLimit: 1_000, statementTimeoutMs: 30_000, gate }, logger, {
    hosts: ['127.0.0.1', 'datadesk.example.com'],
    perMinute,
    downloads,
  });
  const server = await startHttpServer('127.0.0.1', 0, [route], logger);
  servers.push(server);
  return server;
}

const running = async () =>
  (
    await data.db.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%b.id > a.id%' AND pid <> pg_backend_pid()`,
    )
  ).rows[0].n;

describe('export links', () => {
  it('answer only under the names of this deployment, and a few times a minute per address', async () => {
    const server = await serve(new ExportGate(), 2);
    const quick = `${server.url}/exports/${'b'.repeat(32)}.csv`;
    // fetch will not send another Host: node:http does, as a DNS-rebound page's request would arrive
    const rebound = await new Promise<number>((resolve, reject) => {
      const u = new URL(quick);
      http
        .get({ host: u.hostname, port: u.port, path: u.pathname, headers: { host: 'evil.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
        .on('error', reject);
    });
    expect(rebound).toBe(403);
    const ok = await fetch(quick);
    expect(ok.status).toBe(200);
    expect((await ok.text()).split('\n')[0]).toBe('id');
    expect((await fetch(quick)).status).toBe(200);
    const limited = await fetch(quick);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('one export a person at a time: the second is told to come back, not that the database is down', async () => {
    const server = await serve();
    const slow = new AbortController();
    const first = fetch(`${server.url}/exports/${'a'.repeat(32)}.csv`, { signal: slow.signal }).catch(() => undefined);
    await pollUntil(async () => ((await running()) > 0 ? true : undefined), 10_000, 'the slow export to start');
    const second = await fetch(`${server.url}/exports/${'b'.repeat(32)}.csv`);
    expect(second.status).toBe(429);
    expect((await second.json()).error).toMatch(/^Busy: .*Try again in 10 s\.$/);
    // the client goes away: its query stops within seconds, not at the 30 s timeout
    const abandoned = Date.now();
    slow.abort();
    await first;
    await pollUntil(async () => ((await running()) === 0 ? true : undefined), 10_000, 'the abandoned export to stop');
    expect(Date.now() - abandoned).toBeLessThan(10_000);
    // and the gate is free again
    expect((await fetch(`${server.url}/exports/${'b'.repeat(32)}.csv`)).status).toBe(200);
  }, 60_000);

  it('a link is served at most 5 times an hour, and one address at most 20 downloads an hour: then 429 with Retry-After and why', async () => {
    // a gate wide enough that a download just finished never reads as "busy"
    const server = await serve(new ExportGate({ total: 4, perUser: 4 }));
    const get = (c: string) => fetch(`${server.url}/exports/${c.repeat(32)}.csv`);
    for (let i = 0; i < 5; i++) {
      const ok = await get('b');
      expect(ok.status).toBe(200);
      await ok.text();
    }
    const sixth = await get('b');
    expect(sixth.status).toBe(429);
    // the attack: 40 fetches of one link were 40 downloads; now 5 (above) and no more
    const rest = await Promise.all(Array.from({ length: 34 }, () => get('b').then((r) => r.status)));
    expect(rest.filter((s) => s !== 429)).toEqual([]);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(3_500);
    expect((await sixth.json()).error).toMatch(
      /^This link was downloaded 5 times already, its limit \(5 an hour\)\. Try again in \d+ minutes, or ask the question again for a new link\.$/,
    );
    // a link that is no answer's is not counted against anyone
    for (let i = 0; i < 30; i++) expect((await fetch(`${server.url}/exports/${'0'.repeat(32)}.csv`)).status).toBe(404);
    // other links from the same address: 20 downloads in all
    for (const c of ['c', 'd', 'e']) {
      for (let i = 0; i < 5; i++) {
        const ok = await get(c);
        expect(ok.status, `${c} #${i + 1}`).toBe(200);
        await ok.text();
      }
    }
    const over = await get('f');
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await over.json()).error).toMatch(/^Too many downloads: at most 20 an hour from one address\. Try again in \d+ minutes\.$/);
  }, 60_000);

  it('the limits open again as the hour passes; a download the gate turned away is not counted', () => {
    let now = 0;
    const limits = new DownloadLimits({ perLink: 2, perPerson: 3, windowMs: 60 * 60_000 }, () => now);
    const served = (link: string, who: string) => !('refused' in limits.take(link, who));
    expect([served('L1', 'p'), served('L1', 'p'), served('L1', 'p')]).toEqual([true, true, false]);
    const busy = limits.take('L2', 'p');
    if ('refund' in busy) busy.refund();
    expect(served('L2', 'p')).toBe(true);
    const refused = limits.take('L3', 'p');
    expect(refused).toMatchObject({ retryAfterS: 3_600 });
    now += 30 * 60_000;
    expect(limits.take('L1', 'p')).toMatchObject({ retryAfterS: 1_800 });
    now += 30 * 60_000 + 1;
    expect([served('L1', 'p'), served('L1', 'q')]).toEqual([true, true]);
  });
});
