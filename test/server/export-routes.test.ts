// Exports on their own budget (issue 21), over real HTTP on real PostgreSQL:
// the Teams link route answers only under this deployment's names and a few
// times a minute per address; exports run at most N at once and one a person
// ("busy, try again", never "the database is unavailable"); a download whose
// client goes away stops its query at once instead of running to the timeout.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { makeAnswer } from '../../src/core/answer.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { ExportGate } from '../../src/export/export-gate.js';
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
const TOKENS: Record<string, string> = { ['a'.repeat(32)]: SLOW, ['b'.repeat(32)]: 'SELECT id FROM crimes ORDER BY id LIMIT 5' };
const deliveries = {
  byExportToken: async (t: string) => (TOKENS[t] ? { answer: answerOf(TOKENS[t]) } : undefined),
} as unknown as Deliveries;

async function serve(gate = new ExportGate({ total: 1, perUser: 1 }), perMinute = 100) {
  const logger = createMemoryLogger();
  const route = exportRoutes(deliveries, { pool: data.db.reader!.pool, rowLimit: 1_000, statementTimeoutMs: 30_000, gate }, logger, {
    hosts: ['127.0.0.1', 'datadesk.example.com'],
    perMinute,
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
});
