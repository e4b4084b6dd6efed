// datadesk verified list|add|remove|export and datadesk feedback, as a person
// runs them against the app's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { runCli } from '../helpers/cli.js';

let db: TestDatabase;
const env = () => ({ DATABASE_URL: db.url, DATADESK_ALLOW_SUPERUSER: 'true', DEMO_DATA: 'off' });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('datadesk verified / feedback', () => {
  it('adds a pair (the guard checks its SQL), lists it with the seeded ones, exports it, removes it', async () => {
    const refused = await runCli(['verified', 'add', 'Delete everything', 'DELETE FROM crimes'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/The SQL does not pass the guard: This is DELETE/);
    const added = await runCli(
      ['verified', 'add', 'How many homicides had an arrest?', "SELECT count(*) FROM crimes WHERE primary_type = 'HOMICIDE' AND arrest"],
      env(),
    );
    expect(added.code).toBe(0);
    const id = /^#(\d+): "How many homicides had an arrest\?" is verified\.$/m.exec(added.stdout)![1];
    const list = await runCli(['verified', 'list'], env());
    expect(list.stdout).toContain(`#${id} [cli by cli:`);
    expect(list.stdout).toMatch(/\[fixture\] /);
    const exported = (await runCli(['verified', 'export'], env())).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(exported.find((p) => p.question === 'How many homicides had an arrest?')).toMatchObject({
      source: 'cli',
      sql: "SELECT count(*) FROM crimes WHERE primary_type = 'HOMICIDE' AND arrest",
    });
    expect((await runCli(['verified', 'remove', id], env())).stdout).toBe(`#${id} removed.\n`);
    const again = await runCli(['verified', 'remove', id], env());
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`There is no verified pair #${id}`));
  });

  it('feedback lists the thumbs-down, newest first', async () => {
    expect((await runCli(['feedback'], env())).stdout).toBe('No answer has been marked 👎.\n');
    await db.pool.query(
      `INSERT INTO feedback (delivery_key, platform, user_id, verdict, question, sql) VALUES ('k1', 'slack', 'U1', 'down', 'How many thefts in 2019?', 'SELECT 1'), ('k2', 'web', 'p', 'up', 'q', 'SELECT 2')`,
    );
    const out = (await runCli(['feedback'], env())).stdout;
    expect(out).toMatch(/slack:U1 {2}How many thefts in 2019\?\n {4}SELECT 1\n$/);
    expect(out).not.toContain('SELECT 2');
  });
});
