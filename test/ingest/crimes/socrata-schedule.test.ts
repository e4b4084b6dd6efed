import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { createMemoryLogger } from '../../../src/core/logger.js';
import { scheduleSocrataSync } from '../../../src/ingest/crimes/socrata-schedule.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { sodaRecord, startFakeSoda, type FakeSoda } from '../../helpers/fake-soda.js';
import { tempDir } from '../../helpers/files.js';

let db: TestDatabase;
let soda: FakeSoda;
const tmp = tempDir();
beforeAll(async () => {
  db = await createTestDatabase();
  soda = await startFakeSoda([sodaRecord(1, '2024-01-01T10:00:00.000'), sodaRecord(2, '2024-01-02T10:00:00.000')]);
});
afterAll(async () => {
  await soda?.close();
  await db?.drop();
  tmp.remove();
});

describe('the portal sync schedule inside serve', () => {
  it('is off on the demo database unless asked for', () => {
    expect(scheduleSocrataSync(db.pool, loadConfig({}), createMemoryLogger())).toBeUndefined();
  });

  it('runs the sync at its time (weekly by default with a DATABASE_URL) and logs the counts', async () => {
    const logger = createMemoryLogger();
    const config = loadConfig({ DATABASE_URL: db.url, SOCRATA_URL: soda.url, DATADESK_HOME: tmp.dir });
    const job = scheduleSocrataSync(db.pool, config, logger)!;
    try {
      const next = job.nextRun()!;
      // Mondays 04:00 in Chicago
      expect(
        new Intl.DateTimeFormat('en-US', {
          timeZone: 'America/Chicago',
          weekday: 'long',
          hour: '2-digit',
          minute: '2-digit',
          hour12: false,
        }).format(next),
      ).toBe('Monday 04:00');
      await job.trigger();
      expect(logger.lines.find((l) => l.startsWith('Portal sync: 2 new'))).toMatch(
        /^Portal sync: 2 new, 0 updated, 0 unchanged, 0 rejected in 1 pages/,
      );
      soda.failNext.push({ status: 403 });
      await job.trigger();
      expect(logger.lines.at(-1)).toMatch(
        /^error: Portal sync failed: SODA API refused the request \(HTTP 403\).* It resumes from the last committed page at the next run\.$/,
      );
    } finally {
      job.stop();
    }
  });
});
