// A run whose process dies stays `running` in ingest_runs until the next start
// marks it failed; a run whose process is alive is never marked.
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED, RUN_LOCK_CLASS, markInterruptedRuns, recordRun } from '../../src/ingest/run-log.js';
import { PORTAL_CSV_HEADER } from '../../src/ingest/crimes/crime-table.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';
import { portalRow } from '../helpers/crime-data.js';
import { pollUntil } from '../helpers/wait.js';

const ROW = portalRow();

/** Polls an async condition (a database state) until it holds. */
const waitFor = (holds: () => Promise<boolean>, timeoutMs = 15_000) =>
  pollUntil(async () => ((await holds()) ? true : undefined), timeoutMs, 'the condition');

let db: TestDatabase;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
  tmp.remove();
});

const runs = async () =>
  (
    await db.pool.query<{ id: number; source: string; status: string; detail: string | null }>(
      'SELECT id, source, status, detail FROM ingest_runs ORDER BY id',
    )
  ).rows;

/** Whether some session holds the advisory lock of run `id`. */
async function lockHeld(id: number): Promise<boolean> {
  const { rows } = await db.pool.query(
    `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = $2 AND objid = $1 AND objsubid = 2 AND granted`,
    [id, RUN_LOCK_CLASS],
  );
  return rows.length > 0;
}

describe('interrupted ingest runs', () => {
  it('leaves a live run alone, and marks it failed once its connection is gone', async () => {
    await db.pool.query('TRUNCATE ingest_runs');
    let finish!: () => void;
    const running = recordRun(
      db.pool,
      'live',
      () =>
        new Promise<{ inserted: number; updated: number; unchanged: number; rejected: number }>((resolve) => {
          finish = () => resolve({ inserted: 1, updated: 0, unchanged: 0, rejected: 0 });
        }),
    );
    await waitFor(async () => (await runs()).length === 1);
    const [{ id }] = await runs();
    expect(await markInterruptedRuns(db.pool)).toBe(0);
    expect((await runs())[0].status).toBe('running');

    // the holder's session ends as if its process had been killed
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = $2 AND objid = $1 AND objsubid = 2`,
      [id, RUN_LOCK_CLASS],
    );
    await waitFor(async () => !(await lockHeld(id)));
    expect(await markInterruptedRuns(db.pool)).toBe(1);
    expect((await runs())[0]).toMatchObject({ status: 'failed', detail: expect.stringContaining(INTERRUPTED) });
    expect(await markInterruptedRuns(db.pool)).toBe(0);

    // the run itself goes on and, when it ends, says how it really ended
    finish();
    await running;
    expect((await runs())[0].status).toBe('done');
  });

  it('marks a run failed at the next `ingest` after its process was killed (kill -9)', async () => {
    await db.pool.query('TRUNCATE ingest_runs');
    // The first load reads a named pipe that we keep open: it stays mid-run until it is killed.
    const fifo = path.join(tmp.dir, 'feed.csv');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [path.resolve('dist/cli/main.js'), 'ingest', 'crimes', '--csv', fifo], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: db.url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // opening a pipe for writing waits for its reader: fail instead if the command ends first
    const writer = await Promise.race([
      open(fifo, 'w'),
      exited.then(() => {
        closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)); // lets the pending open end
        throw new Error(`ingest ended before reading: ${stderr}`);
      }),
    ]);
    await writer.write(`${PORTAL_CSV_HEADER.join(',')}\n${ROW}\n`);
    await waitFor(async () => (await runs()).some((r) => r.status === 'running'), 120_000);
    const [killed] = await runs();
    expect(await lockHeld(killed.id)).toBe(true);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await writer.close().catch(() => undefined);
    await waitFor(async () => !(await lockHeld(killed.id)), 120_000);
    expect((await runs())[0].status).toBe('running');

    const csv = tmp.file('one.csv', `${PORTAL_CSV_HEADER.join(',')}\n${ROW}\n`);
    const next = await runCli(['ingest', 'crimes', '--csv', csv], { DATABASE_URL: db.url });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain('marked 1 interrupted ingest run as failed');
    expect(await runs()).toEqual([
      {
        id: killed.id,
        source: 'crimes from feed.csv',
        status: 'failed',
        detail: expect.stringMatching(new RegExp(`^${INTERRUPTED} \\(found at `)),
      },
      { id: expect.any(Number), source: 'crimes from one.csv', status: 'done', detail: null },
    ]);
  }, 300_000); // waits for events (the run recorded, the lock let go); the bounds are fail-safes for a busy machine
});
