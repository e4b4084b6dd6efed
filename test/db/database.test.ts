// openDatabase with the logins a real deployment has: an owner that may create
// roles (the app makes its reader), an owner that may not (model-written SQL is
// refused with the reason, verified questions still answer), a READ_DATABASE_URL
// that is not read-only (refused), and a superuser (serve refuses to start).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createDesk } from '../../src/agents/create-desk.js';
import { loadConfig } from '../../src/config/env.js';
import { createMemoryLogger } from '../../src/core/logger.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { readMigrations } from '../../src/db/migrate.js';
import { runCli } from '../helpers/cli.js';
import { loadCrimes } from '../helpers/crime-data.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';

const admin = inject('adminDatabaseUrl');
const suffix = randomBytes(4).toString('hex');
const created: { roles: string[]; databases: string[] } = { roles: [], databases: [] };
let llm: FakeLlm;

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A database owned by a fresh non-superuser login; returns its URL. */
async function ownedDatabase(name: string, attributes: string): Promise<string> {
  const role = `dd_owner_${name}_${suffix}`;
  const database = `dd_db_${name}_${suffix}`;
  await adminQuery(`CREATE ROLE ${role} LOGIN ${attributes} PASSWORD 'owner-secret'`);
  created.roles.push(role);
  await adminQuery(`CREATE DATABASE ${database} OWNER ${role}`);
  created.databases.push(database);
  // migration 005 makes the app a member of the old datadesk_reader group: a DBA grants it once
  await adminQuery(`DO $$ BEGIN CREATE ROLE datadesk_reader NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
  await adminQuery(`GRANT datadesk_reader TO ${role}`);
  const u = new URL(admin);
  u.username = role;
  u.password = 'owner-secret';
  u.pathname = `/${database}`;
  return u.toString();
}

const config = (env: Record<string, string>) =>
  loadConfig({ SOCRATA_SCHEDULE: 'off', THREAD_MEMORY_URL: 'memory', LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake', ...env });
const modelSql = (sql: string) => ({ content: JSON.stringify({ sql, explanation: 'x' }) });

beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm?.close();
  for (const d of created.databases) await adminQuery(`DROP DATABASE IF EXISTS ${d} WITH (FORCE)`);
  for (const d of created.databases) await adminQuery(`DROP ROLE IF EXISTS datadesk_reader_${d}`);
  for (const r of created.roles) await adminQuery(`DROP ROLE IF EXISTS ${r}`);
});

describe('openDatabase', () => {
  it('an owner that may create roles gets a reader login of its own, and is told what only a superuser could add', async () => {
    const url = await ownedDatabase('cr', 'CREATEROLE');
    const logger = createMemoryLogger();
    let db: Database | undefined;
    try {
      db = await openDatabase(config({ DATABASE_URL: url }), logger, { refuseSuperuser: true });
      expect(db.readerProblem).toBeUndefined();
      const who = await db.reader!.query(
        "SELECT current_user AS u, session_user AS s, current_setting('default_transaction_read_only') AS ro",
      );
      expect(who.rows[0]).toEqual({ u: expect.stringMatching(/^datadesk_reader_dd_db_cr_/), s: who.rows[0].u, ro: 'on' });
      expect(logger.lines.join('\n')).toMatch(
        /need a superuser and were not done: temp_file_limit .*; REVOKE EXECUTE from PUBLIC on \d+ built-ins.*datadesk db harden --admin-url/,
      );
      // a second process finds the same login and password
      const again = await openDatabase(config({ DATABASE_URL: url }), createMemoryLogger());
      expect((await again.reader!.query('SELECT current_user AS u')).rows[0].u).toBe(who.rows[0].u);
      await again.close();
    } finally {
      await db?.close();
    }
  });

  it('db harden adds what only a superuser can: then the reader has a temp_file_limit, PUBLIC no set_config, and start-up warns no more', async () => {
    const url = await ownedDatabase('hard', 'CREATEROLE');
    const first = await openDatabase(config({ DATABASE_URL: url }), createMemoryLogger());
    const readerBefore = await first.reader!.query(`SELECT set_config('application_name', 'x', false) AS v`).then(
      () => 'allowed',
      (e: Error) => e.message,
    );
    expect(readerBefore).toBe('allowed');
    await first.close();
    const refused = await runCli(['db', 'harden', '--admin-url', url], { DATABASE_URL: url, SOCRATA_SCHEDULE: 'off' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--admin-url logs in as dd_owner_hard_\w+, which is not a superuser/);
    const done = await runCli(['db', 'harden', '--admin-url', admin], { DATABASE_URL: url, SOCRATA_SCHEDULE: 'off' });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/done: temp_file_limit .* on datadesk_reader_dd_db_hard_/);
    expect(done.stdout).toMatch(/done: REVOKE EXECUTE from PUBLIC on \d+ built-ins/);
    const logger = createMemoryLogger();
    const again = await openDatabase(config({ DATABASE_URL: url }), logger);
    try {
      expect(logger.lines.join('\n')).not.toMatch(/need a superuser/);
      expect((await again.reader!.query(`SELECT current_setting('temp_file_limit') AS v`)).rows[0].v).not.toBe('-1');
      await expect(again.reader!.query(`SELECT set_config('application_name', 'x', false)`)).rejects.toThrow(
        /permission denied for function set_config/,
      );
      // the app's own login keeps what it needs
      expect((await again.write.query(`SELECT set_config('application_name', 'app', false) AS v`)).rows[0].v).toBe('app');
    } finally {
      await again.close();
    }
    const twice = await runCli(['db', 'harden', '--admin-url', admin], { DATABASE_URL: url, SOCRATA_SCHEDULE: 'off' });
    expect(twice.stdout).toMatch(/already there: /);
  });

  it('an owner that may not create roles: model-written SQL is refused with the reason, verified questions answer', async () => {
    const url = await ownedDatabase('plain', '');
    const logger = createMemoryLogger();
    const cfg = config({ DATABASE_URL: url });
    const db = await openDatabase(cfg, logger);
    try {
      expect(db.reader).toBeUndefined();
      expect(db.readerProblem).toMatch(/may not create roles, and READ_DATABASE_URL is not set/);
      await loadCrimes(db.write, 2_000);
      const { desk } = createDesk(cfg, db, logger);
      llm.script.push(modelSql("SELECT count(*) FROM crimes WHERE primary_type = 'THEFT' AND year = 2019"));
      const modelAnswer = await desk.answer({
        platform: 'cli',
        threadId: `t-${suffix}-1`,
        text: 'how many thefts in 2019 involved a getaway driver',
      });
      expect(modelAnswer).toMatchObject({ kind: 'refusal', reason: expect.stringMatching(/READ_DATABASE_URL/) });
      llm.script.length = 0;
      llm.script.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
      const verified = await desk.answer({ platform: 'cli', threadId: `t-${suffix}-2`, text: 'How many thefts were reported in 2019?' });
      expect(verified).toMatchObject({ kind: 'result' });
    } finally {
      llm.script.length = 0;
      await db.close();
    }
  });

  it('reader: false (a command that runs no model-written SQL) opens without setting up the reader login, and warns nothing', async () => {
    const url = await ownedDatabase('nr', 'CREATEROLE');
    const logger = createMemoryLogger();
    const db = await openDatabase(config({ DATABASE_URL: url }), logger, { reader: false });
    try {
      expect(db.reader).toBeUndefined();
      expect(db.readerProblem).toMatch(/runs no model-written SQL/);
      expect(logger.lines.join('\n')).not.toMatch(/model-written SQL is off/);
      // migrated all the same, and no reader login was made
      const roles = await db.write.query("SELECT 1 FROM pg_roles WHERE rolname LIKE 'datadesk_reader_dd_db_nr_%'");
      expect(roles.rowCount).toBe(0);
      expect((await db.write.query('SELECT count(*)::int AS n FROM public.schema_migrations')).rows[0].n).toBe(readMigrations().length);
    } finally {
      await db.close();
    }
  });

  it('a READ_DATABASE_URL that can write or is a superuser is not used', async () => {
    const url = await ownedDatabase('rw', 'CREATEROLE');
    const db = await openDatabase(config({ DATABASE_URL: url, READ_DATABASE_URL: url }), createMemoryLogger());
    try {
      expect(db.reader).toBeUndefined();
      expect(db.readerProblem).toMatch(/is not a read-only login: .*may create roles.*may write to tables in public/);
    } finally {
      await db.close();
    }
  });

  it('serve refuses a superuser login, saying why and how to run anyway', async () => {
    const r = await runCli(['serve'], { DATABASE_URL: admin, PORT: '0', SOCRATA_SCHEDULE: 'off' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/a superuser\. The bot never runs as a superuser.*DATADESK_ALLOW_SUPERUSER=true/s);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
