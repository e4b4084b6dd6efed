// "Download CSV" from the playground over real HTTP: all rows of the answer's
// query (not the 10 shown), streamed under the read-only walls, up to the row
// limit; a query that does not pass the guard is refused, never run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartStore } from '../../../src/charts/chart-store.js';
import { playgroundRoutes } from '../../../src/channels/web/playground-routes.js';
import type { Jobs } from '../../../src/jobs/runtime.js';
import { startHttpServer, type RunningServer } from '../../../src/server/http-server.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { loadCrimes } from '../../helpers/crime-data.js';
import { testDesk } from '../../helpers/desk.js';
import { testJobs } from '../../helpers/jobs.js';
import { parseSimpleCsv } from '../../helpers/files.js';

let db: TestDatabase;
let jobs: Jobs;
const servers: RunningServer[] = [];
const THREAD = 'feedc0de'.repeat(4);

async function playground(rowLimit: number) {
  const { desk, logger } = testDesk(db);
  jobs ??= await testJobs(db, desk, logger);
  const route = playgroundRoutes({
    queue: jobs.queue,
    deliveries: jobs.deliveries,
    events: jobs.events,
    charts: new ChartStore(),
    logger,
    access: { host: '127.0.0.1', allowedHosts: [], perMinute: 100 },
    exports: { pool: db.reader!.pool, rowLimit, statementTimeoutMs: 10_000 },
  });
  const server = await startHttpServer('127.0.0.1', 0, [route], logger);
  servers.push(server);
  return server.url;
}

async function ask(url: string, text: string) {
  const res = await fetch(`${url}/api/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ thread: THREAD, text }),
  });
  const body = await res.text();
  return JSON.parse(/^event: answer\ndata: (.*)$/m.exec(body)![1]) as {
    answer: { table?: { rowCount: number; rows: unknown[][] } };
    exportUrl: string | null;
    exportLimit: number | null;
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await loadCrimes(db.pool, 4_000);
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await jobs?.stop();
  await db?.drop();
});

describe('Download CSV', () => {
  it('streams every row of the query, not only those shown, with a header; the file name says what it is', async () => {
    const url = await playground(1_000_000);
    const page = await ask(url, 'Which blocks had the most thefts?');
    expect(page.answer.table!.rows.length).toBeLessThan(page.answer.table!.rowCount);
    expect(page.exportUrl).toMatch(new RegExp(`^/api/export/${THREAD}/[0-9a-f-]{36}\\.csv$`));
    const res = await fetch(`${url}${page.exportUrl}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="datadesk-thefts-by-block[a-z0-9-]*\.csv"$/);
    const rows = parseSimpleCsv(await res.text());
    expect(rows.length - 1).toBe(page.answer.table!.rowCount);
    const { rows: truth } = await db.pool.query(`SELECT count(DISTINCT block)::int AS n FROM crimes WHERE primary_type = 'THEFT'`);
    expect(rows.length - 1).toBe(truth[0].n);
  });

  it('stops at the row limit it states', async () => {
    const url = await playground(7);
    const page = await ask(url, 'Which blocks had the most burglaries?');
    expect(page.exportLimit).toBe(7);
    const rows = parseSimpleCsv(await (await fetch(`${url}${page.exportUrl}`)).text());
    expect(rows).toHaveLength(8);
  });

  it("defuses text a spreadsheet would run as a formula (numbers stay numbers), and takes a query ending in '; -- comment'", async () => {
    const writes = await import('../../../src/export/csv-export.js');
    const sink: Buffer[] = [];
    const { Writable } = await import('node:stream');
    const out = new Writable({
      write(chunk, _e, done) {
        sink.push(Buffer.from(chunk));
        done();
      },
    });
    const sql =
      "SELECT '=HYPERLINK(\"http://evil.example\")' AS a, '+1' AS b, '@cmd' AS c, 'safe' AS d, -5 AS n, count(*) AS incidents FROM crimes; -- the end";
    await writes.writeCsvExport({ pool: db.reader!.pool, rowLimit: 10, statementTimeoutMs: 10_000 }, { kind: 'query', sql }, out);
    const [header, row] = parseSimpleCsv(Buffer.concat(sink).toString('utf8'));
    expect(header).toEqual(['a', 'b', 'c', 'd', 'n', 'incidents']);
    expect(row.slice(0, 5)).toEqual(['\'=HYPERLINK("http://evil.example")', "'+1", "'@cmd", 'safe', '-5']);
    const buffered = await writes.csvExportBuffer(
      { pool: db.reader!.pool, rowLimit: 10, statementTimeoutMs: 10_000 },
      { kind: 'rows', columns: ['x', 'n'], rows: [['-cmd', -2]] },
      1_000,
    );
    expect(buffered.toString('utf8')).toBe("x,n\r\n'-cmd,-2\r\n");
  });

  it('refuses a stored query that does not pass the guard (nothing runs), and an unknown answer', async () => {
    const url = await playground(1_000);
    const page = await ask(url, 'Which blocks had the most robberies?');
    const id = page.exportUrl!.split('/').pop()!.replace('.csv', '');
    // as if someone had changed the stored answer
    await db.pool.query(`UPDATE deliveries SET answer = jsonb_set(answer, '{sql}', '["DELETE FROM crimes"]') WHERE key = $1`, [
      `web:${THREAD}:${id}`,
    ]);
    const refused = await fetch(`${url}${page.exportUrl}`);
    expect(refused.status).toBe(422);
    expect((await refused.json()).error).toMatch(/^This answer's query cannot be exported: This is DELETE: only reading is allowed/);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM crimes')).rows[0].n).toBe(4_000);
    expect((await fetch(`${url}/api/export/${THREAD}/00000000-0000-4000-8000-000000000000.csv`)).status).toBe(404);
  });
});
