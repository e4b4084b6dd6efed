// PostgreSQL goes away in the middle of `datadesk ingest crimes` (its
// connections are terminated, as a crash or a restart would): the command says
// so in a sentence and exits 1, the batches committed before stay with their
// rollups exact, and the same command run again loads the rest.
import { describe, expect, it } from 'vitest';
import { ROLLUPS } from '../../src/db/rollups.js';
import { generateCrimes } from '../../src/ingest/generate/crimes.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/files.js';

describe('datadesk ingest when PostgreSQL goes away', () => {
  it('says so, keeps what was committed (rollups exact), and the same command finishes the load', async () => {
    const db = await createTestDatabase();
    const tmp = tempDir();
    try {
      const file = tmp.file('crimes.csv');
      await generateCrimes({ rows: 400_000, seed: 5, out: file });
      const env = { DATABASE_URL: db.url, DATADESK_ALLOW_SUPERUSER: 'true', DATADESK_HOME: tmp.dir };
      const args = ['ingest', 'crimes', '--csv', file];
      const first = runCli(args, env);
      let exited = false;
      void first.then(() => (exited = true));
      // once the first batch is in (however long that takes on a busy machine), every connection of the load is cut
      const count = async () => Number((await db.pool.query('SELECT count(*) AS n FROM crimes')).rows[0].n);
      while (!exited && (await count()) === 0) await new Promise((r) => setTimeout(r, 50));
      expect(exited, `the load ended before a batch was seen:\n${exited ? (await first).stderr : ''}`).toBe(false);
      await db.pool.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const cut = await first;
      expect(cut.stderr).toMatch(/PostgreSQL went away during the command .*run the same command again/);
      expect(cut.stderr).not.toMatch(/unexpected error|\n\s+at /);
      expect(cut.code).toBe(1);

      const exact = async () => {
        const total = Number((await db.pool.query('SELECT count(*) AS n FROM crimes')).rows[0].n);
        for (const r of ROLLUPS)
          expect(Number((await db.pool.query(`SELECT coalesce(sum(n), 0) AS n FROM ${r.table}`)).rows[0].n), r.table).toBe(total);
        return total;
      };
      const kept = await exact();
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(400_000);

      const again = await runCli(args, env);
      expect(again.code, again.stderr).toBe(0);
      expect(await exact()).toBe(400_000);
    } finally {
      tmp.remove();
      await db.drop();
    }
  }, 600_000); // a fail-safe only: the test waits for events (the first batch in, the command's exit), not for a time
});
