// The watchdog of a read-only transaction of several statements: rearmed before each, each has the whole timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryTimeoutError, withReadOnly } from '../../src/db/read-only.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

// four statements of 0.9 s under a 1 s timeout: 3.6 s in all, past the watchdog's 1 s + 2 s grace
const sleeps = async (client: { query(text: string): Promise<unknown> }, before: () => void) => {
  for (let i = 0; i < 4; i++) {
    before();
    await client.query('SELECT pg_sleep(0.9)');
  }
  return 'done';
};

describe('withReadOnly watchdog', () => {
  it('gives each statement the whole timeout when the work rearms it before each', async () => {
    await expect(withReadOnly(db.pool, { statementTimeoutMs: 1_000, watchdog: true }, (c, rearm) => sleeps(c, rearm))).resolves.toBe(
      'done',
    );
  }, 20_000);

  it('stops work that does not rearm it once the timeout plus grace has passed', async () => {
    await expect(
      withReadOnly(db.pool, { statementTimeoutMs: 1_000, watchdog: true }, (c) => sleeps(c, () => undefined)),
    ).rejects.toBeInstanceOf(QueryTimeoutError);
  }, 20_000);
});
